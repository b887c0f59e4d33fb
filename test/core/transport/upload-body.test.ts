import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { parseEndpoint } from '../../../src/core/transport/endpoint.js';
import { apiKeyLogin } from '../../../src/core/transport/login-strategies.js';
import { HttpRpcTransport } from '../../../src/core/transport/remote-http.js';
import { RemoteTransport } from '../../../src/core/transport/remote.js';
import { multipartFraming } from '../../../src/core/transport/upload-client.js';
import { startTestServer } from '../../helpers/server.js';
import { tempDir } from '../../helpers/temp-dir.js';

/*
 * The upload's envelope comes from form-data, the file's chunks straight from the ring: the same bytes must
 * arrive, progress must count the file's bytes as they are handed to the socket, and the file's
 * 2 MiB buffers must go round (a new buffer per chunk cost most of an upload's CPU,
 * bench/HISTORY.md) on both transports, HTTP RPC included.
 */

const MiB = 1024 * 1024;
const CHUNK = 2 * MiB;

describe('an upload body', () => {
  it('is framed as form-data frames it: the data part, the file part with its escaped name, the closing boundary', () => {
    const { head, tail, contentType } = multipartFraming('{"method":"filesystem.put"}', 'a"b\r\nc.bin');
    const boundary = /^multipart\/form-data; boundary=(-{26}[0-9a-f]{24})$/.exec(contentType)?.[1];
    expect(boundary).toBeDefined();
    expect(head.toString()).toBe(
      `--${boundary}\r\nContent-Disposition: form-data; name="data"\r\nContent-Type: application/json\r\n\r\n` +
        `{"method":"filesystem.put"}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a%22b%0D%0Ac.bin"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    );
    expect(tail.toString()).toBe(`\r\n--${boundary}--\r\n`);
    expect(multipartFraming('{}', 'x').contentType).not.toBe(contentType);
  });

  describe.each(['ws', 'http'])('over %s', (kind) => {
    it('lands byte for byte, counts progress up to the size, and reads into the same buffers again', async () => {
      const server = await startTestServer();
      const open = kind === 'ws' ? RemoteTransport.open : HttpRpcTransport.open;
      const transport = await open({
        endpoint: parseEndpoint(server.url),
        login: apiKeyLogin(server.adminKey),
        timeoutSeconds: 30,
      });
      onTestFinished(() => transport.close());
      // 20 chunks and a bit, under a name that needs escaping in the part's header.
      const size = 20 * CHUNK + 12345;
      const bytes = randomBytes(size);
      const file = join(tempDir('stor-body-'), 'odd "name".bin');
      writeFileSync(file, bytes);
      const progress: number[] = [];
      // A ring buffer that is never given back is replaced by Buffer.allocUnsafe(CHUNK), one per chunk.
      const allocUnsafe = vi.spyOn(Buffer, 'allocUnsafe');
      onTestFinished(() => allocUnsafe.mockRestore());
      await transport.upload({
        file,
        size,
        path: '/mnt/tank/body.bin',
        options: {},
        onProgress: (n) => progress.push(n),
      });
      const fresh = allocUnsafe.mock.calls.filter(([length]) => length === CHUNK).length;
      allocUnsafe.mockRestore();
      expect(readFileSync(join(server.stateDir, 'mnt/tank/body.bin')).equals(bytes)).toBe(true);
      expect(progress.at(-1)).toBe(size);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      expect(progress.length).toBe(21);
      // Four buffers go round; a few more at most if a write callback comes late, not one per chunk.
      expect(fresh).toBeLessThan(4);
    });
  });
});
