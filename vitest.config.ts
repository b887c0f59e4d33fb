import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests spawn real processes and servers; two cores run two files at a time comfortably.
    maxWorkers: 2,
    // Generous: the e2e tests spawn the CLI many times, and a loaded 2-core machine is slow to start Node.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Every answer the emulator gives is checked against its 25.10.1 contract (src/core/rpc/dispatcher.ts).
    // STOR_TEST_SCRYPT_N: key and password hashes at scrypt N=16, not 16384 (src/core/store/secrets.ts,
    // costN): a full hash at every seed and login was most of the CPU of in-process server tests.
    // test/security/key-checks.test.ts, about the hashing's cost, puts the real cost back.
    env: { STOR_CHECK_RESULTS: '1', STOR_SESSION: 'off', STOR_TEST_SCRYPT_N: '16' },
  },
});
