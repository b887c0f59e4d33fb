import { defineConfig } from 'vitest/config';
import { CHEAP_HASHES } from './test/helpers/cheap-hashes.js';
import { EMBEDDED_MEANT } from './test/helpers/embedded-meant.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Every test file shares one module graph per worker instead of vitest's default of a fresh
    // worker and fresh imports for each file. The in-process tests import the appliance, server or
    // CLI sources, and re-importing them for each file was about half of those files' time; the
    // end-to-end tests (*.e2e.test.ts) spawn the built binary and import little, yet a fresh worker
    // per file cost about 0.6 s of CPU each (bench/HISTORY.md). Each file still loads its own test
    // module; the sources keep no state between files that a test reads (caches keyed by a path, a
    // pattern or an object only), and no test file changes process-wide state (process.env, the
    // working directory, the umask, mocks or fake timers): the children they spawn get an
    // environment of their own. One project, not one for the e2e files and one for the rest: two
    // projects transformed every module both import twice, and ran the e2e files before all others.
    isolate: false,
    // Three files at a time on two cores: a file often waits on a timer or a spawned process, and two
    // workers left a third of a core idle (quiet, Node 20: 448 s at CPU 167 % with two, 410 s at
    // 185 % with three; bench/HISTORY.md, "the whole suite after the fifth round" and "the suite's
    // time, sixth round").
    maxWorkers: 3,
    // Generous: the e2e tests spawn the CLI many times, and a loaded 2-core machine is slow to start
    // Node. At a load of 9 (the suite beside three other test runs) a scenario of 30 spawns took
    // over a minute; the bound is there to end a test that hangs, not to judge speed.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Every answer the emulator gives is checked against its 25.10.1 contract (src/core/rpc/dispatcher.ts).
    // CHEAP_HASHES: cheaper key hashes and SCRAM data for the in-process emulators (test/helpers/cheap-hashes.ts).
    // EMBEDDED_MEANT: a command naming no target means the embedded appliance (test/helpers/embedded-meant.ts).
    env: { STOR_CHECK_RESULTS: '1', STOR_SESSION: 'off', ...CHEAP_HASHES, ...EMBEDDED_MEANT },
  },
});
