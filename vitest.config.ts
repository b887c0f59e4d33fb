import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests spawn real processes and servers; two cores run two files at a time comfortably.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Every answer the emulator gives is checked against its 25.10.1 contract (src/core/rpc/dispatcher.ts).
    env: { STOR_CHECK_RESULTS: '1' },
  },
});
