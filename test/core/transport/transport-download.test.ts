import { createHash, randomBytes } from 'node:crypto';
import { closeSync, createReadStream, createWriteStream, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it, onTestFinished } from 'vitest';
import { RpcError } from '../../../src/core/errors.js';
import { EmbeddedTransport } from '../../../src/core/transport/embedded.js';
import { parseEndpoint } from '../../../src/core/transport/endpoint.js';
import { apiKeyLogin } from '../../../src/core/transport/login-strategies.js';
import { HttpRpcTransport } from '../../../src/core/transport/remote-http.js';
import { RemoteTransport } from '../../../src/core/transport/remote.js';
import type { Transport } from '../../../src/core/transport/transport.js';
import { createUserWithKey } from '../../helpers/appliance.js';
import { adminTransport, startTestServer } from '../../helpers/server.js';
import { tempDir } from '../../helpers/temp-dir.js';

const MiB = 1024 * 1024;

/** Random bytes at host path `host`, written in 1 MiB pieces; answers their sha256. */
function randomFile(host: string, size: number): string {
  const hash = createHash('sha256');
  const fd = openSync(host, 'w');
  for (let left = size; left > 0; left -= MiB) {
    const piece = randomBytes(Math.min(MiB, left));
    hash.update(piece);
    writeSync(fd, piece);
  }
  closeSync(fd);
  return hash.digest('hex');
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** A transport of each kind, with the state directory whose tree it serves. */
const TARGETS: Record<string, () => Promise<{ transport: Transport; stateDir: string }>> = {
  embedded: async () => {
    const stateDir = tempDir();
    const transport = await EmbeddedTransport.open({ stateDir, timeoutSeconds: 30 });
    onTestFinished(() => transport.close());
    return { transport, stateDir };
  },
  ws: async () => {
    const server = await startTestServer();
    const transport = await adminTransport(server);
    return { transport, stateDir: server.stateDir };
  },
  http: async () => {
    const server = await startTestServer();
    const transport = await HttpRpcTransport.open({
      endpoint: parseEndpoint(server.url),
      login: apiKeyLogin(server.adminKey),
      timeoutSeconds: 30,
    });
    onTestFinished(() => transport.close());
    return { transport, stateDir: server.stateDir };
  },
};

describe.each(Object.keys(TARGETS))('Transport.download on %s', (kind) => {
  it('streams a 20 MiB file into the sink exactly, with progress up to its size', async () => {
    const { transport, stateDir } = await TARGETS[kind]!();
    const sha256 = randomFile(join(stateDir, 'mnt', 'tank', 'big file é.bin'), 20 * MiB);
    const out = join(tempDir(), 'big.bin');
    let progress = 0;
    const result = await transport.download({
      path: '/mnt/tank/big file é.bin',
      sink: createWriteStream(out),
      onProgress: (n) => (progress = n),
    });
    expect(result.bytes).toBe(20 * MiB);
    expect(progress).toBe(20 * MiB);
    expect(await sha256Of(out)).toBe(sha256);
  });

  it('a directory or a missing file fails with the job\'s own error: "<path> is not a file" (EFAULT)', async () => {
    const { transport } = await TARGETS[kind]!();
    for (const path of ['/mnt/tank', '/mnt/tank/missing.bin']) {
      const err = await transport
        .download({ path, sink: createWriteStream(join(tempDir(), 'x')) })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RpcError);
      expect((err as RpcError).reason).toBe(`[EFAULT] ${path} is not a file`);
    }
  });
});

describe.each(['ws', 'http'])('Transport.download on %s for a user without FULL_ADMIN', (kind) => {
  it('is refused by core.download with EACCES before any byte moves', async () => {
    const server = await startTestServer();
    const key = (await createUserWithKey(server.testAppliance, 'reader', { privilegeRoles: ['READONLY_ADMIN'] })).key;
    const open = kind === 'ws' ? RemoteTransport.open : HttpRpcTransport.open;
    const transport = await open({ endpoint: parseEndpoint(server.url), login: apiKeyLogin(key), timeoutSeconds: 30 });
    onTestFinished(() => transport.close());
    const sink = new PassThrough();
    const err = await transport.download({ path: '/mnt/tank/a', sink }).catch((e: unknown) => e);
    expect((err as RpcError).reason).toBe('[EACCES] Not authorized');
    expect(sink.destroyed).toBe(true);
  });
});
