import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { createHash as nodeCreateHash, randomFillSync as nodeRandomFillSync } from 'node:crypto';
import { sha1 as nobleSha1 } from '@noble/hashes/legacy.js';

/*
 * What a WebSocket connection needs of node:crypto, without loading it. Loading node:crypto costs
 * some fifty of Node's internal modules, ~9 ms of CPU on Node 24, and a cold remote command paid
 * it before its login frame could leave (bench/HISTORY.md, "the CPU a cold remote whoami spends
 * before its login frame leaves"): the `ws` package loads it at its top, for a random
 * Sec-WebSocket-Key (RFC 6455 §4.1), random masking keys for the frames a client sends (§5.3) and
 * SHA-1 to check the server's Sec-WebSocket-Accept (§4.2.2); in the CLI bundle its files get this
 * module instead (scripts/bundle.mjs). remote.ts takes its calls' ids (v4 UUIDs) from here.
 *
 * The randomness comes from the kernel's CSPRNG through /dev/urandom, which is where OpenSSL seeds
 * node:crypto's from; where there is no such device (Windows) or it cannot be read, from
 * node:crypto, as before. SHA-1 is @noble/hashes' (already in the tree through otpauth); any other
 * hash is node:crypto's. No secret goes through this SHA-1:
 * it hashes the nonce ws sent in the clear.
 */

/** The kernel's random device. The functions below take another path from the tests only. */
const RANDOM_DEVICE = '/dev/urandom';

/** Fills `size` bytes of `buf` from `offset` from the random device at `device`; false if it cannot. */
function fillFromDevice(buf: Uint8Array, offset: number, size: number, device: string): boolean {
  let fd: number;
  try {
    fd = openSync(device, 'r');
  } catch {
    return false;
  }
  try {
    // A character device only: a regular file in its place is no source of randomness.
    if (!fstatSync(fd).isCharacterDevice()) return false;
    for (let done = 0; done < size;) {
      const n = readSync(fd, buf, offset + done, size - done, null);
      if (n <= 0) return false;
      done += n;
    }
    return true;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

/** node:crypto's randomFillSync(buf, offset, size), as ws/lib/sender.js calls it. */
export function randomFillSync<T extends Uint8Array>(
  buf: T,
  offset = 0,
  size = buf.length - offset,
  device = RANDOM_DEVICE,
): T {
  if (!fillFromDevice(buf, offset, size, device)) nodeRandomFillSync(buf, offset, size);
  return buf;
}

/** node:crypto's randomBytes(size), synchronous, as ws/lib/websocket.js calls it. */
export function randomBytes(size: number, device = RANDOM_DEVICE): Buffer {
  return randomFillSync(Buffer.alloc(size), 0, size, device);
}

/** UUIDs drawn from one read of the device: a connection's calls do not read it once each. */
const UUIDS_PER_FILL = 128;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
let uuidBytes: Buffer | undefined;
let uuidNext = UUIDS_PER_FILL;

/** node:crypto's randomUUID(): a version 4 UUID (RFC 9562 §5.4), lower-case. */
export function randomUUID(): string {
  if (uuidNext === UUIDS_PER_FILL) {
    uuidBytes ??= Buffer.alloc(16 * UUIDS_PER_FILL);
    randomFillSync(uuidBytes);
    uuidNext = 0;
  }
  const b = uuidBytes!;
  const o = 16 * uuidNext++;
  const h = (i: number) => HEX[b[o + i]!]!;
  // The version (4) in the high nibble of byte 6, the variant (0b10) in the high bits of byte 8.
  const v = HEX[(b[o + 6]! & 0x0f) | 0x40]!;
  const r = HEX[(b[o + 8]! & 0x3f) | 0x80]!;
  return `${h(0)}${h(1)}${h(2)}${h(3)}-${h(4)}${h(5)}-${v}${h(7)}-${r}${h(9)}-${h(10)}${h(11)}${h(12)}${h(13)}${h(14)}${h(15)}`;
}

/** The part of node:crypto's Hash that ws uses: update() with a string or bytes, then digest(). */
interface Sha1 {
  update(data: string | Uint8Array): Sha1;
  digest(): Buffer;
  digest(encoding: BufferEncoding): string;
}

/** node:crypto's createHash: SHA-1 here, any other algorithm node:crypto's own. */
export function createHash(algorithm: string): Sha1 | ReturnType<typeof nodeCreateHash> {
  if (algorithm !== 'sha1') return nodeCreateHash(algorithm);
  const parts: Buffer[] = [];
  const hash: Sha1 = {
    update(data) {
      parts.push(typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data));
      return hash;
    },
    digest(encoding?: BufferEncoding) {
      const sum = sha1(Buffer.concat(parts));
      return (encoding === undefined ? sum : sum.toString(encoding)) as Buffer & string;
    },
  };
  return hash;
}

/** SHA-1 (FIPS 180-4 §6.1) of `message`, by @noble/hashes (audited, pure JavaScript, no node:crypto). */
export function sha1(message: Uint8Array): Buffer {
  const digest = nobleSha1(message);
  return Buffer.from(digest.buffer, digest.byteOffset, digest.byteLength);
}
