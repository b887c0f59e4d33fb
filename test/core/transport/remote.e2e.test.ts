import { createServer } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { WebSocketServer } from 'ws';
import type { AddressInfo } from 'node:net';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { runStor } from '../../helpers/run-stor.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { clientEnv } from '../../helpers/client-env.js';
import { selfSignedCert } from '../../helpers/self-signed.js';

/*
 * The built binary logs in, reaches the target over ws://, wss:// and HTTP, and exits 3 or 4 when it
 * cannot; the checks of messages and of profiles run in-process (runStor: the same `run()` the binary
 * calls, the same environment), as what they check is what the command says and saves.
 */

function withoutTarget(whoami: string): unknown {
  const { target: _target, ...rest } = JSON.parse(whoami);
  return rest;
}

describe('stor serve and the remote target, end to end', () => {
  it('logs in over ws:// with --api-key-stdin and answers whoami as the embedded target does', async () => {
    const server = await spawnServe(tempDir());
    const key = readFileSync(server.adminKeyFile, 'utf8');
    const env = clientEnv();
    const login = await spawnStor(['login', '--url', server.baseUrl, '--api-key-stdin', '--json'], { env, stdin: key });
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    // Named after the host and port.
    const name = new URL(server.baseUrl).host.replace(':', '-');
    expect(JSON.parse(login.stdout)).toMatchObject({
      profile: name,
      url: server.baseUrl,
      username: 'truenas_admin',
      current: true,
      created: true,
    });

    const remote = await spawnStor(['whoami', '--json'], { env });
    expect(remote.code).toBe(0);
    expect(JSON.parse(remote.stdout).target).toEqual({ kind: 'remote', url: server.baseUrl, profile: name });
    const embedded = await spawnStor(['whoami', '--json'], { env: { STOR_HOME: server.stateDir } });
    expect(withoutTarget(remote.stdout)).toEqual(withoutTarget(embedded.stdout));

    const overHttp = await spawnStor(['--rpc', 'http', 'whoami', '--json'], { env });
    expect(overHttp.code).toBe(0);
    expect(withoutTarget(overHttp.stdout)).toEqual(withoutTarget(embedded.stdout));

    const call = await spawnStor(['call', 'privilege.query', '[]', '{"count":true}'], { env });
    expect(call.stdout.trim()).toBe('3');

    // The key is in the profile file, which only its owner may read, and never in any listing.
    const configFile = join(env.STOR_CONFIG_DIR!, 'config.json');
    expect(statSync(configFile).mode & 0o777).toBe(0o600);
    const list = await spawnStor(['profile', 'list', '--json'], { env });
    const secret = key.trim().split('-')[1]!;
    for (const out of [login.stdout, login.stderr, remote.stdout, list.stdout, list.stderr])
      expect(out).not.toContain(secret);
    expect(JSON.parse(list.stdout)).toEqual([
      {
        name: 'embedded',
        kind: 'embedded',
        url: null,
        current: false,
        tls: 'none',
        insecure: false,
        ca: null,
        rpc: null,
        tags: [],
      },
      {
        name,
        kind: 'remote',
        url: server.baseUrl,
        current: true,
        tls: 'none',
        insecure: false,
        ca: null,
        rpc: 'ws',
        tags: [],
      },
    ]);

    expect(await server.stop()).toBe(0);
    expect(server.stderr()).toContain('stopped');
  });

  it('uses wss:// with a self-signed certificate: accepted with --ca, refused without, accepted with --insecure', async () => {
    const dir = tempDir();
    const { cert, key } = selfSignedCert(dir);
    const server = await spawnServe(join(dir, 'state'), ['--tls-cert', cert, '--tls-key', key]);
    expect(server.baseUrl).toMatch(/^wss:\/\/127\.0\.0\.1:\d+$/);
    const adminKey = readFileSync(server.adminKeyFile, 'utf8');

    const untrusted = await spawnStor(['login', '--url', server.baseUrl, '--api-key-stdin'], {
      env: clientEnv(),
      stdin: adminKey,
    });
    expect(untrusted.code).toBe(3);
    expect(untrusted.stderr).toContain('TLS');
    expect(untrusted.stderr).toContain('--ca');

    const env = clientEnv();
    const trusted = await spawnStor(['login', '--url', server.baseUrl, '--ca', cert, '--api-key-stdin'], {
      env,
      stdin: adminKey,
    });
    expect(trusted.code).toBe(0);
    const me = await spawnStor(['whoami', '--json'], { env });
    expect(JSON.parse(me.stdout).username).toBe('truenas_admin');

    const insecure = await spawnStor(['--insecure', '--url', server.baseUrl, 'whoami', '--json'], {
      env: { ...clientEnv(), STOR_API_KEY: adminKey.trim() },
    });
    expect(insecure.code).toBe(0);
    expect(JSON.parse(insecure.stdout).account_attributes).toEqual(['LOCAL', 'API_KEY', 'SYS_ADMIN']);
  });

  it('refuses to send a key in clear to a non-loopback host, before connecting, with exit 2', async () => {
    const env = clientEnv();
    const key = `7-${'k'.repeat(64)}`;
    for (const url of ['ws://10.1.2.3', 'http://nas.example.com:6000']) {
      const r = await runStor(['login', '--url', url, '--api-key-stdin'], { env, stdin: key });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('refusing to send an API key in clear');
      expect(r.stderr).toContain('revoke');
      expect(r.stdout + r.stderr).not.toContain('k'.repeat(64));
    }
    expect(readdirSync(env.STOR_CONFIG_DIR!)).toEqual([]);
  });

  it('exits 4 for a wrong key, 3 for an unreachable URL, 3 for a plain web server', async () => {
    const server = await spawnServe(tempDir());
    const wrong = await spawnStor(['login', '--url', server.baseUrl, '--api-key-stdin'], {
      env: clientEnv(),
      stdin: `1-${'A'.repeat(64)}`,
    });
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toContain('rejected');

    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const unreachable = await spawnStor(['whoami', '--url', `ws://127.0.0.1:${closedPort}`], {
      env: { ...clientEnv(), STOR_API_KEY: `1-${'A'.repeat(64)}` },
    });
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toContain('connection refused');

    const web = createServer((_req, res) =>
      res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not here</h1>'),
    );
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
    try {
      const port = (web.address() as AddressInfo).port;
      for (const rpc of ['ws', 'http']) {
        const r = await runStor(['whoami', '--rpc', rpc, '--url', `ws://127.0.0.1:${port}`], {
          env: { ...clientEnv(), STOR_API_KEY: `1-${'A'.repeat(64)}` },
        });
        expect(r.code).toBe(3);
        expect(r.stderr).toContain('is not a storage appliance');
      }
    } finally {
      await new Promise((r) => web.close(r));
    }
  });

  it('a server with no /api/current names the versions its /api/versions lists (an appliance older than stor\'s API), and a web server whose list is not one stays "not a storage appliance" (MW/main.py:1300-1304)', async () => {
    const answers: Record<string, [number, string]> = {};
    const web = createServer((req, res) => {
      const [status, body] = answers[req.url ?? ''] ?? [404, 'not here'];
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
    try {
      const url = `ws://127.0.0.1:${(web.address() as AddressInfo).port}`;
      const env = { ...clientEnv(), STOR_API_KEY: `1-${'A'.repeat(64)}` };
      answers['/api/versions'] = [200, '["v24.10"]'];
      const old = await runStor(['whoami', '--url', url], { env });
      expect(old.code).toBe(3);
      expect(old.stderr).toContain('has no /api/current (HTTP 404); its /api/versions lists v24.10');
      expect(old.stderr).toContain('upgrade the appliance');
      for (const junk of ['{"a":1}', '["<script>"]', `[${'"v1",'.repeat(200)}"v1"]`, 'x'.repeat(20_000)]) {
        answers['/api/versions'] = [200, junk];
        const r = await runStor(['whoami', '--url', url], { env });
        expect(r.code).toBe(3);
        expect(r.stderr).toContain('is not a storage appliance');
        expect(r.stderr).not.toContain('/api/versions lists');
      }
    } finally {
      await new Promise((r) => web.close(r));
    }
  });

  it('exits 3 with a clear message when the target never answers, or closes the socket mid-call', async () => {
    const silent = createTcpServer(() => undefined); // accepts, then says nothing
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    wss.on('connection', (ws) => ws.on('message', () => ws.close(1011, 'boom')));
    await new Promise((r) => wss.once('listening', r));
    try {
      const env = { ...clientEnv(), STOR_API_KEY: `1-${'A'.repeat(64)}` };
      const hung = await spawnStor(
        ['whoami', '--timeout', '1', '--url', `ws://127.0.0.1:${(silent.address() as AddressInfo).port}`],
        { env },
      );
      expect(hung.code).toBe(3);
      expect(hung.stderr).toContain('did not answer the WebSocket handshake within 1 s');

      const dropped = await spawnStor(['whoami', '--url', `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`], {
        env,
      });
      expect(dropped.code).toBe(3);
      expect(dropped.stderr).toContain('closed (code 1011: boom)');
    } finally {
      silent.close();
      wss.close();
    }
  });

  it('manages profiles: use, remove, logout, and precedence of --url and STOR_URL over the profile', async () => {
    const a = await spawnServe(tempDir());
    const b = await spawnServe(tempDir());
    const env = clientEnv();
    const keyA = readFileSync(a.adminKeyFile, 'utf8');
    const keyB = readFileSync(b.adminKeyFile, 'utf8');
    expect(
      (await runStor(['login', '--url', a.baseUrl, '--profile', 'a', '--api-key-stdin'], { env, stdin: keyA })).code,
    ).toBe(0);
    expect(
      (await runStor(['login', '--url', b.baseUrl, '--profile', 'b', '--api-key-stdin'], { env, stdin: keyB })).code,
    ).toBe(0);
    const target = async (args: string[], extra: Record<string, string> = {}) =>
      JSON.parse((await runStor([...args, 'whoami', '--json'], { env: { ...env, ...extra } })).stdout).target;
    expect(await target([])).toEqual({ kind: 'remote', url: b.baseUrl, profile: 'b' });
    expect(await target(['--profile', 'a'])).toEqual({ kind: 'remote', url: a.baseUrl, profile: 'a' });
    expect(await target([], { STOR_PROFILE: 'a' })).toEqual({ kind: 'remote', url: a.baseUrl, profile: 'a' });
    // A URL given without a profile uses the saved profile for that appliance.
    expect(await target(['--url', a.baseUrl], { STOR_API_KEY: keyA.trim() })).toEqual({
      kind: 'remote',
      url: a.baseUrl,
      profile: 'a',
    });
    expect(await target([], { STOR_URL: a.baseUrl })).toEqual({ kind: 'remote', url: a.baseUrl, profile: 'a' });

    expect((await runStor(['profile', 'use', 'a'], { env })).code).toBe(0);
    expect(await target([])).toEqual({ kind: 'remote', url: a.baseUrl, profile: 'a' });
    const unknown = await runStor(['profile', 'use', 'nope'], { env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('known profiles: a, b');

    expect((await runStor(['logout'], { env })).code).toBe(0);
    expect((await target([])).kind).toBe('embedded');
    expect((await runStor(['profile', 'remove', 'b'], { env })).code).toBe(0);
    expect(
      JSON.parse((await runStor(['profile', 'list', '--json'], { env })).stdout).map((p: { name: string }) => p.name),
    ).toEqual(['embedded']);
  });
});
