import { randomBytes, randomInt, scrypt, scryptSync, timingSafeEqual, type ScryptOptions } from 'node:crypto';

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

/**
 * The N of new hashes: PARAMS.N, unless STOR_TEST_SCRYPT_N lowers it. The test suite sets it for
 * the emulator processes it spawns (test/helpers/bin.ts, serve-process.ts), whose keys guard
 * nothing and which hash and check thousands of them: a full scrypt was a quarter of the CPU a CLI
 * run against `stor serve` costs. Only a power of two below the default is taken, so it can lower
 * the cost, never raise it; read at each hash, from the environment of the process that hashes. A
 * check reads N from the stored hash, so states made under either cost stay readable under both.
 */
function costN(): number {
  const asked = Number(process.env.STOR_TEST_SCRYPT_N);
  return Number.isInteger(asked) && asked >= 2 && asked < PARAMS.N && (asked & (asked - 1)) === 0 ? asked : PARAMS.N;
}

/** scrypt on libuv's thread pool: a hash never holds the event loop, so no other client waits for it. */
function scryptAsync(secret: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

function encode(salt: Buffer, hash: Buffer, N: number = PARAMS.N): string {
  return `$scrypt$N=${N},r=${PARAMS.r},p=${PARAMS.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** `$scrypt$N=16384,r=8,p=1$<salt b64>$<hash b64>` */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const N = costN();
  return encode(salt, await scryptAsync(secret, salt, { ...PARAMS, N, maxmem: 64 * 1024 * 1024 }), N);
}

/**
 * The same hash, computed in place: only for seeding a new state directory, which happens once,
 * inside the transaction that opens the store, before anything is served.
 */
export function hashSecretForSeed(secret: string): string {
  const salt = randomBytes(16);
  const N = costN();
  return encode(salt, scryptSync(secret, salt, KEY_LENGTH, { ...PARAMS, N, maxmem: 64 * 1024 * 1024 }), N);
}

/**
 * A well-formed hash that no one knows a secret for: random bytes where scrypt's output goes, so
 * finding a matching password means inverting scrypt. For the password an install gives
 * truenas_admin (store/seed.ts), which the emulator cannot know; it costs no scrypt run.
 */
export function unknownSecretHash(): string {
  return encode(randomBytes(16), randomBytes(KEY_LENGTH), costN());
}

/** Constant-time check of a secret against a stored hash; malformed hashes never match. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
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
  let actual: Buffer;
  try {
    actual = await scryptAsync(secret, salt, { N: N!, r: r!, p: p!, maxmem: 256 * 1024 * 1024 });
  } catch {
    // Parameters scrypt refuses (N not a power of two, over maxmem) are a malformed hash.
    return false;
  }
  return timingSafeEqual(actual, expected);
}
