import { createHash as nodeCreateHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHash, randomBytes, randomFillSync, randomUUID, sha1 } from '../../../src/core/transport/light-crypto.js';
import { tempDir } from '../../helpers/temp-dir.js';

// What the WebSocket client takes instead of node:crypto (light-crypto.ts, scripts/bundle.mjs).
describe('light-crypto', () => {
  it("SHA-1 is node:crypto's for any bytes, across block boundaries", () => {
    for (const n of [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000]) {
      const data = Buffer.alloc(n, n % 251);
      expect(sha1(data).toString('hex')).toBe(nodeCreateHash('sha1').update(data).digest('hex'));
    }
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(sha1(bytes).toString('hex')).toBe(nodeCreateHash('sha1').update(bytes).digest('hex'));
      }),
    );
  });

  it("answers RFC 6455's handshake example as ws asks it: update() with a string, digest('base64')", () => {
    // RFC 6455 §1.3: the server's Sec-WebSocket-Accept for this Sec-WebSocket-Key.
    const accept = createHash('sha1')
      .update('dGhlIHNhbXBsZSBub25jZQ==' + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11')
      .digest('base64');
    expect(accept).toBe('s3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
    fc.assert(
      fc.property(fc.array(fc.string()), (parts) => {
        const ours = createHash('sha1');
        const theirs = nodeCreateHash('sha1');
        for (const p of parts) {
          ours.update(p);
          theirs.update(p);
        }
        expect(ours.digest('base64')).toBe(theirs.digest('base64'));
      }),
    );
  });

  it('leaves any other hash to node:crypto', () => {
    expect(createHash('sha256').update('x').digest('hex')).toBe(nodeCreateHash('sha256').update('x').digest('hex'));
  });

  it('reads the random device, and only into the range asked', () => {
    // /dev/zero stands in for the device: what it gives shows it was read.
    const buf = Buffer.alloc(32, 0xff);
    randomFillSync(buf, 8, 16, '/dev/zero');
    expect([...buf.subarray(0, 8)]).toEqual(Array(8).fill(0xff));
    expect([...buf.subarray(8, 24)]).toEqual(Array(16).fill(0));
    expect([...buf.subarray(24)]).toEqual(Array(8).fill(0xff));
    expect([...randomBytes(16, '/dev/zero')]).toEqual(Array(16).fill(0));
  });

  it('falls back to node:crypto where the device is missing or is not a character device', () => {
    const file = join(tempDir(), 'urandom');
    writeFileSync(file, Buffer.alloc(64));
    for (const device of [file, join(tempDir(), 'missing')]) {
      // 64 zero bytes from node:crypto: a chance of 2^-512.
      expect(randomBytes(64, device).equals(Buffer.alloc(64))).toBe(false);
      const buf = Buffer.alloc(24);
      randomFillSync(buf, 4, 16, device);
      expect(buf.subarray(4, 20).equals(Buffer.alloc(16))).toBe(false);
      expect([...buf.subarray(0, 4), ...buf.subarray(20)]).toEqual(Array(8).fill(0));
    }
  });

  it('gives version 4 UUIDs, none twice, past a refill of its pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const id = randomUUID();
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(1000);
  });
});
