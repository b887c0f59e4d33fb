import { afterEach, describe, expect, it, vi } from 'vitest';
import { hashSecret, hashSecretForSeed, verifySecret } from '../../src/core/store/secrets.js';

// STOR_TEST_SCRYPT_N (src/core/store/secrets.ts, costN): the test suite's cheaper hashes for the
// emulator processes it spawns. It may only lower the cost, and a hash made under either cost
// checks the same way.
describe('STOR_TEST_SCRYPT_N', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('unset, new hashes cost the default N=16384', async () => {
    vi.stubEnv('STOR_TEST_SCRYPT_N', undefined);
    expect(await hashSecret('s3cret')).toMatch(/^\$scrypt\$N=16384,r=8,p=1\$/);
    expect(hashSecretForSeed('s3cret')).toMatch(/^\$scrypt\$N=16384,r=8,p=1\$/);
  });

  it('a power of two below the default lowers N; the hash still checks the secret and refuses another', async () => {
    vi.stubEnv('STOR_TEST_SCRYPT_N', '16');
    const hash = await hashSecret('s3cret');
    expect(hash).toMatch(/^\$scrypt\$N=16,r=8,p=1\$/);
    expect(hashSecretForSeed('s3cret')).toMatch(/^\$scrypt\$N=16,r=8,p=1\$/);
    expect(await verifySecret('s3cret', hash)).toBe(true);
    expect(await verifySecret('s3creT', hash)).toBe(false);
    // A hash made at the default cost is checked at its own N whatever the variable says.
    vi.stubEnv('STOR_TEST_SCRYPT_N', undefined);
    const full = await hashSecret('s3cret');
    vi.stubEnv('STOR_TEST_SCRYPT_N', '16');
    expect(await verifySecret('s3cret', full)).toBe(true);
  });

  it('never raises the cost, and ignores what is not a power of two', async () => {
    for (const asked of ['65536', '16384', '1000', '1', '0', '-16', 'x', '']) {
      vi.stubEnv('STOR_TEST_SCRYPT_N', asked);
      expect(await hashSecret('s3cret'), asked).toMatch(/^\$scrypt\$N=16384,r=8,p=1\$/);
    }
  });
});
