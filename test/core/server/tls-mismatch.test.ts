import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startServer } from '../../../src/core/server/server.js';
import { openTestAppliance } from '../../helpers/appliance.js';
import { runStor } from '../../helpers/run-stor.js';
import { startTestServer } from '../../helpers/server.js';
import { tempDir } from '../../helpers/temp-dir.js';

function clientEnv(url: string, key: string) {
  return { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir(), STOR_URL: url, STOR_API_KEY: key };
}

describe('a TLS client and a plain server, or the reverse', () => {
  it('says wss:// to a plain server does not speak TLS and suggests ws://, not a certificate problem', async () => {
    const server = await startTestServer();
    const wss = `wss://127.0.0.1:${server.port}`;
    for (const rpc of ['ws', 'http']) {
      const r = await runStor(['--rpc', rpc, 'whoami', '--json'], { env: clientEnv(wss, server.adminKey) });
      expect(r.code, r.stderr).toBe(3);
      const { error } = JSON.parse(r.stderr) as { error: { code: string; message: string; hint: string } };
      expect(error.code).toBe('TLS_NOT_SPOKEN');
      expect(error.message).toBe(`${wss} does not speak TLS: the server answered in plain text`);
      expect(error.hint).toBe(`use ws://127.0.0.1:${server.port} for a server without TLS`);
      expect(r.stderr).not.toMatch(/certificate|--ca|--insecure/);
      expect(r.stderr).not.toContain(server.adminKey);
    }
  });

  it('hints at wss:// when ws:// reaches a port that speaks only TLS', async () => {
    const dir = tempDir();
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    const t = await openTestAppliance();
    const running = await startServer({
      appliance: t.appliance,
      host: '127.0.0.1',
      port: 0,
      tls: { cert: readFileSync(cert), key: readFileSync(key) },
    });
    onTestFinished(() => running.close(100));
    const ws = `ws://127.0.0.1:${running.port}`;
    const r = await runStor(['whoami'], { env: clientEnv(ws, t.adminKey) });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(`stor: cannot reach ${ws}: `);
    expect(r.stderr).toContain(`hint: if the appliance speaks TLS on this port, use wss://127.0.0.1:${running.port}\n`);
  });
});
