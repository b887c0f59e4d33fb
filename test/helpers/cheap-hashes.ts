/**
 * Environment for every emulator the tests run, in process (vitest.config.ts) and spawned
 * (bin.ts, serve-process.ts, runbook.ts, terminal.ts, other-user.ts, run-request-agent.ts): their
 * keys guard nothing, and they make and check thousands of them.
 * - STOR_TEST_SCRYPT_N: key and password hashes at scrypt N=16, not 16384
 *   (src/core/store/secrets.ts, costN); a full hash at every seed and login was a quarter of a
 *   CLI run's CPU against `stor serve`, and most of an in-process server test's.
 * - STOR_TEST_SCRAM_ITERATIONS: an emulated 26's new SCRAM data at 50,000 PBKDF2 rounds, the least
 *   a client accepts, not 500,000 (src/core/net/scram.ts, newDataIterations); each login runs
 *   PBKDF2 at that count on the client, ≈0.4 s at 500,000.
 * - STOR_TEST_RSA_BITS: a new SSH key pair (keychaincredential.generate_ssh_key_pair, a
 *   setup_ssh_connection that generates one) of 1024 bits, not 3072 (src/core/appliance/keychain/
 *   ssh-keys.ts, rsaBits); finding a 3072-bit key was 0.3 to 1.5 s of CPU each.
 * Tests about those costs put the real ones back with vi.stubEnv (test/core/appliance/session/key-checks.test.ts,
 * test/core/net/scram.test.ts, test/core/cheap-hashes.test.ts).
 */
export const CHEAP_HASHES = {
  STOR_TEST_SCRYPT_N: '16',
  STOR_TEST_SCRAM_ITERATIONS: '50000',
  STOR_TEST_RSA_BITS: '1024',
} as const;
