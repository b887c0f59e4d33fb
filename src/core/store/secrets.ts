import { randomBytes, randomInt, scryptSync, timingSafeEqual } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** 64 characters from [A-Za-z0-9], drawn without modulo bias: the secret half of a real API key. */
export function generateKeySecret(length = 64): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/** The whole key as given to a client: `<id>-<64 letters and digits>`. */
export const API_KEY_PATTERN = /^\d+-[A-Za-z0-9]{64}$/;

// scrypt at N=2^14 costs about 40 ms and 16 MiB here. The secrets are 381-bit random strings, so
// the cost is there to make a stolen database useless for offline guessing of weaker secrets
// (passwords share this code) while keeping a CLI login fast. Parameters travel with each hash, so
// they can be raised later without invalidating stored keys.
const PARAMS = { N: 16384, r: 8, p: 1 } as const;
const KEY_LENGTH = 64;

/** `$scrypt$N=16384,r=8,p=1$<salt b64>$<hash b64>` */
export function hashSecret(secret: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(secret, salt, KEY_LENGTH, { ...PARAMS, maxmem: 64 * 1024 * 1024 });
  return `$scrypt$N=${PARAMS.N},r=${PARAMS.r},p=${PARAMS.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** Constant-time check of a secret against a stored hash; malformed hashes never match. */
export function verifySecret(secret: string, stored: string): boolean {
  const parts = stored.split('$');
  if (parts.length !== 5 || parts[1] !== 'scrypt') return false;
  const params = Object.fromEntries(
    (parts[2] ?? '').split(',').map((kv) => {
      const [k, v] = kv.split('=');
      return [k, Number(v)];
    }),
  ) as Record<string, number>;
  const { N, r, p } = params;
  if (!Number.isInteger(N) || !Number.isInteger(r) || !Number.isInteger(p)) return false;
  const salt = Buffer.from(parts[3] ?? '', 'base64');
  const expected = Buffer.from(parts[4] ?? '', 'base64');
  if (expected.length !== KEY_LENGTH) return false;
  const actual = scryptSync(secret, salt, KEY_LENGTH, { N: N!, r: r!, p: p!, maxmem: 256 * 1024 * 1024 });
  return timingSafeEqual(actual, expected);
}
