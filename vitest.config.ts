import { defineConfig } from 'vitest/config';
import { CHEAP_HASHES } from './test/helpers/cheap-hashes.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests spawn real processes and servers; two cores run two files at a time comfortably.
    maxWorkers: 2,
    // Generous: the e2e tests spawn the CLI many times, and a loaded 2-core machine is slow to start Node.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Every answer the emulator gives is checked against its 25.10.1 contract (src/core/rpc/dispatcher.ts).
    // CHEAP_HASHES: cheaper key hashes and SCRAM data for the in-process emulators (test/helpers/cheap-hashes.ts).
    env: { STOR_CHECK_RESULTS: '1', STOR_SESSION: 'off', ...CHEAP_HASHES },
  },
});
