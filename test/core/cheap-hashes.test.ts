import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateRsaKeyPair, publicKeyOf, rsaBits } from '../../src/core/appliance/keychain/ssh-keys.js';
import { keysFromSaltedPassword, newDataIterations, saltedPassword, scramAuthData } from '../../src/core/net/scram.js';
import { hashSecret, hashSecretForSeed, verifySecret } from '../../src/core/store/secrets.js';
import { rsaModulusBits } from '../helpers/ssh-key-fixtures.js';

// The test suite's cheaper hashes, SCRAM data and RSA keys for the emulators it runs
// (test/helpers/cheap-hashes.ts): the knobs may only lower the cost, and what is made under
// either cost checks the same way.
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

describe('STOR_TEST_SCRAM_ITERATIONS', () => {
  afterEach(() => vi.unstubAllEnvs());

  it("unset, new SCRAM data takes 26's 500,000 rounds; a count in [50,000, 500,000) lowers it, and the data still logs in", async () => {
    vi.stubEnv('STOR_TEST_SCRAM_ITERATIONS', undefined);
    expect(newDataIterations()).toBe(500_000);
    vi.stubEnv('STOR_TEST_SCRAM_ITERATIONS', '50000');
    const data = await scramAuthData('s3cret');
    expect(data.iterations).toBe(50_000);
    const keys = keysFromSaltedPassword(
      await saltedPassword('s3cret', Buffer.from(data.salt, 'base64'), data.iterations),
    );
    expect(keys.storedKey.toString('base64')).toBe(data.stored_key);
  });

  it('never raises the count, nor lowers it below what a client accepts', () => {
    for (const asked of ['5000000', '500000', '49999', '1000', '0', 'x', '']) {
      vi.stubEnv('STOR_TEST_SCRAM_ITERATIONS', asked);
      expect(newDataIterations(), asked).toBe(500_000);
    }
  });
});

describe('STOR_TEST_RSA_BITS', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('unset, a new key pair takes ssh-keygen’s 3072 bits (made at that size in ssh-keys.test.ts); 1024 lowers it, and the pair still reads back', () => {
    vi.stubEnv('STOR_TEST_RSA_BITS', undefined);
    expect(rsaBits()).toBe(3072);
    vi.stubEnv('STOR_TEST_RSA_BITS', '1024');
    const cheap = generateRsaKeyPair('root@test');
    expect(rsaModulusBits(cheap.public_key)).toBe(1024);
    expect(publicKeyOf(cheap.private_key)).toEqual({ publicKey: cheap.public_key });
  });

  it('never raises the size, and takes nothing but 1024 or 2048', () => {
    vi.stubEnv('STOR_TEST_RSA_BITS', '2048');
    expect(rsaBits()).toBe(2048);
    for (const asked of ['4096', '3072', '1536', '512', '0', 'x', '']) {
      vi.stubEnv('STOR_TEST_RSA_BITS', asked);
      expect(rsaBits(), asked).toBe(3072);
    }
  });
});
