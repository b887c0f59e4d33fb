import { defineConfig } from 'vitest/config';
import { CHEAP_HASHES } from './test/helpers/cheap-hashes.js';
import { EMBEDDED_MEANT } from './test/helpers/embedded-meant.js';

/**
 * The end-to-end tests (*.e2e.test.ts) spawn the built binary and import little; every other test imports
 * the appliance, server or CLI sources in the test worker, and re-importing them for each file
 * (vitest's default isolation) was about half of those files' time. They share one module graph
 * per worker instead: each file still loads its own test module, and the sources keep no state
 * between files that a test reads (caches keyed by a path, a pattern or an object only).
 */
const ISOLATED = ['test/**/*.e2e.test.ts'];

export default defineConfig({
  test: {
    // Tests spawn real processes and servers; two cores run two files at a time comfortably.
    maxWorkers: 2,
    // Generous: the e2e tests spawn the CLI many times, and a loaded 2-core machine is slow to start
    // Node. At a load of 9 (the suite beside three other test runs) a scenario of 30 spawns took
    // over a minute; the bound is there to end a test that hangs, not to judge speed.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Every answer the emulator gives is checked against its 25.10.1 contract (src/core/rpc/dispatcher.ts).
    // CHEAP_HASHES: cheaper key hashes and SCRAM data for the in-process emulators (test/helpers/cheap-hashes.ts).
    // EMBEDDED_MEANT: a command naming no target means the embedded appliance (test/helpers/embedded-meant.ts).
    env: { STOR_CHECK_RESULTS: '1', STOR_SESSION: 'off', ...CHEAP_HASHES, ...EMBEDDED_MEANT },
    projects: [
      { extends: true, test: { name: 'e2e', include: ISOLATED } },
      {
        extends: true,
        test: { name: 'in-process', include: ['test/**/*.test.ts'], exclude: ISOLATED, isolate: false },
      },
    ],
  },
});
