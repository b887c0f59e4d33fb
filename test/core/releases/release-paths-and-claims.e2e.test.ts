/**
 * Releases against a hostile peer: versioned paths against path tricks, and a
 * client facing an appliance that lies about its release.
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { loggedInWs, startTestServer } from '../../helpers/server.js';
import { startStandinAppliance } from '../../helpers/standin-appliance.js';

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function rawUpgrade(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path,
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode!);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('versioned API paths against path tricks', () => {
  it('only the exact paths open a WebSocket; dot segments, encodings, doubled or trailing slashes are 404', async () => {
    const server = await startTestServer();
    expect(await rawUpgrade(server.port, '/api/current')).toBe(101);
    expect(await rawUpgrade(server.port, '/api/v25.10.1')).toBe(101);
    expect(await rawUpgrade(server.port, '/api/current?x=1')).toBe(101);
    for (const path of [
      '/api/v25.10.1/../current',
      '/api/v25.10.1/..',
      '/api/%2e%2e/api/current',
      '/api/v25%2e10%2e1',
      '/api/current/',
      '//api/current',
      '/api//current',
      '/api/v99.0',
      '/api/V25.10.1',
      '/api/current%00',
      '/api/current#x',
      '/API/CURRENT',
    ]) {
      expect([path, await rawUpgrade(server.port, path)]).toEqual([path, 404]);
    }
  });

  it('/api/versions answers the list as JSON; other spellings are not it', async () => {
    const server = await startTestServer();
    const versions = await get(server.port, '/api/versions');
    expect(versions.status).toBe(200);
    expect(Array.isArray(JSON.parse(versions.body))).toBe(true);
    expect((await get(server.port, '/api/versions?x=1')).status).toBe(200);
    for (const path of ['/api/versions/', '/api/versions/..', '/api/%76ersions', '/api/versions/../current']) {
      expect([path, (await get(server.port, path)).status]).toEqual([path, 404]);
    }
  });
});

/** auth.me as the emulator answers it, so only the release is a lie. */
async function realMe(): Promise<unknown> {
  const server = await startTestServer();
  const ws = await loggedInWs(server.rpcUrl, server.adminKey);
  return ws.result('auth.me');
}

async function lyingAppliance(version: unknown) {
  const ME = await realMe();
  return startStandinAppliance({
    'auth.login_with_api_key': { result: true },
    'auth.mechanism_choices': { error: { code: -32601, message: 'Method does not exist' } },
    'auth.me': { result: ME },
    'system.version_short': { result: version },
    'system.version': { result: typeof version === 'string' ? `TrueNAS-${version}` : version },
  });
}

describe('an appliance that lies about its release', () => {
  const KEY = `1-${'k'.repeat(64)}`;
  it('a version with terminal escapes is never written raw to the terminal or a pipe', async () => {
    const nas = await lyingAppliance('26.0\u001b]0;pwned\u0007\u001b[2J');
    const run = await spawnStor(['whoami'], { env: { ...clientEnv(), STOR_URL: nas.baseUrl, STOR_API_KEY: KEY } });
    expect(run.stdout + run.stderr).not.toContain('\u001b]0;');
    expect(run.stdout + run.stderr).not.toContain('\u001b[2J');
  });

  it('a huge version string: whoami still answers, and the release is not judged as one stor knows', async () => {
    const nas = await lyingAppliance(`25.10.1${'9'.repeat(200_000)}`);
    const run = await spawnStor(['whoami', '--json'], {
      env: { ...clientEnv(), STOR_URL: nas.baseUrl, STOR_API_KEY: KEY },
    });
    expect(run.code).toBe(0);
    const data = JSON.parse(run.stdout);
    expect(data.username).toBe('truenas_admin');
  });

  it('a version that is not a string: whoami still answers who we are (the release is decoration), with the release unknown', async () => {
    const nas = await lyingAppliance(42);
    const run = await spawnStor(['whoami', '--json'], {
      env: { ...clientEnv(), STOR_URL: nas.baseUrl, STOR_API_KEY: KEY },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ username: 'truenas_admin', release: null });
  });
});
