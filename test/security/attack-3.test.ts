/**
 * Hostile-review findings (issue 26 round): each test failed before its fix.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../helpers/bin.js';
import { clientEnv } from '../helpers/client-env.js';
import { loginLines, spawnServe } from '../helpers/serve-process.js';
import { startStandinAppliance } from '../helpers/standin-appliance.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('SCRAM: the key never travels once SCRAM was offered', () => {
  it('stor upload to a SCRAM appliance authorizes the POST with a token, never the key as Bearer', async () => {
    const dir = tempDir();
    const server = await spawnServe(join(dir, 'state'), ['-v', '--key-login', 'scram']);
    const adminKey = readFileSync(server.adminKeyFile, 'utf8').trim();
    const file = join(dir, 'a.txt');
    writeFileSync(file, 'hello\n');
    const env = { ...clientEnv(), STOR_URL: server.baseUrl, STOR_API_KEY: adminKey, STOR_USER: 'truenas_admin' };
    const up = await spawnStor(['upload', file, '/mnt/tank/'], { env });
    expect(up.stderr).toBe('');
    expect(up.code).toBe(0);
    const lines = loginLines(server);
    expect(lines.some((l) => /login ok: auth\.login_ex SCRAM/.test(l))).toBe(true);
    expect(lines.filter((l) => /bearer key|API_KEY_PLAIN|login_with_api_key/.test(l))).toEqual([]);
  });
});

/** A hostile appliance that offers SCRAM: `firstAnswer`/`finalAnswer` build its answers from the client's messages. */
async function hostileScram(server: {
  first: (clientNonce: string) => Record<string, unknown>;
  final?: (clientFinal: string) => Record<string, unknown>;
}) {
  const sent: string[] = [];
  const nas = await startStandinAppliance({
    'auth.mechanism_choices': { result: ['API_KEY_PLAIN', 'TOKEN_PLAIN', 'PASSWORD_PLAIN', 'SCRAM'] },
    'auth.login_ex': (params) => {
      const data = params[0] as { mechanism: string; scram_type?: string; rfc_str?: string };
      sent.push(JSON.stringify(data));
      if (data.mechanism !== 'SCRAM') return { result: { response_type: 'SUCCESS', user_info: null, authenticator: 'LEVEL_1' } };
      if (data.scram_type === 'CLIENT_FIRST_MESSAGE') return { result: server.first(/,r=([^,]+)$/.exec(data.rfc_str!)![1]!) };
      return { result: server.final!(data.rfc_str!) };
    },
    'auth.login_with_api_key': (params) => {
      sent.push(JSON.stringify(params));
      return { result: true };
    },
    'auth.logout': { result: null },
    'auth.me': { result: { pw_name: 'root' } },
  });
  return { nas, sent };
}

const KEY = `7-${'S'.repeat(64)}`;
const serverNonce = (clientNonce: string) => Buffer.concat([Buffer.from(clientNonce, 'base64'), randomBytes(32)]).toString('base64');
const salt = randomBytes(16).toString('base64');

describe('SCRAM client against a hostile appliance (no downgrade, bounded work)', () => {
  it('10^9 iterations demanded: refused before any hashing, exit 4, and the key is never sent', async () => {
    const { nas, sent } = await hostileScram({
      first: (n) => ({ response_type: 'SCRAM_RESPONSE', scram_type: 'SERVER_FIRST_RESPONSE', rfc_str: `r=${serverNonce(n)},s=${salt},i=1000000000`, user_info: null }),
    });
    const run = await spawnStor(['whoami'], { env: { ...clientEnv(), STOR_URL: nas.baseUrl, STOR_API_KEY: KEY, STOR_USER: 'root' } });
    expect(run.stderr + ` exit ${run.code}`).toContain(' exit 4');
    expect(run.stderr).toContain('iteration count outside [50000, 5000000]');
    expect(nas.calls).not.toContain('auth.login_with_api_key');
    expect(sent.join('\n')).not.toContain('S'.repeat(64));
    expect(run.stderr).not.toContain('S'.repeat(64));
  });

  it('a wrong server signature fails the login (logged out), never falls back to the key, and no secret is printed even with -v', async () => {
    const { nas, sent } = await hostileScram({
      first: (n) => ({ response_type: 'SCRAM_RESPONSE', scram_type: 'SERVER_FIRST_RESPONSE', rfc_str: `r=${serverNonce(n)},s=${salt},i=50000`, user_info: null }),
      final: () => ({ response_type: 'SCRAM_RESPONSE', scram_type: 'SERVER_FINAL_RESPONSE', rfc_str: `v=${randomBytes(64).toString('base64')}`, user_info: null }),
    });
    const run = await spawnStor(['-v', 'whoami'], { env: { ...clientEnv(), STOR_URL: nas.baseUrl, STOR_API_KEY: KEY, STOR_USER: 'root' } });
    expect(run.stderr + ` exit ${run.code}`).toContain(' exit 4');
    expect(run.stderr).toContain('server signature mismatch');
    expect(nas.calls).toContain('auth.logout');
    expect(nas.calls).not.toContain('auth.login_with_api_key');
    expect(nas.calls).not.toContain('auth.me');
    expect(run.stderr + run.stdout).not.toContain('S'.repeat(64));
    expect(run.stderr).not.toMatch(/p=[A-Za-z0-9+/]{20,}/);
    expect(sent.filter((s) => s.includes('S'.repeat(16)))).toEqual([]);
  });

  it('offered SCRAM, then a plain SUCCESS without the SCRAM exchange: refused, no session used', async () => {
    const { nas } = await hostileScram({ first: () => ({ response_type: 'SUCCESS', user_info: null, authenticator: 'LEVEL_1', reconnect_token: null }) });
    const run = await spawnStor(['whoami'], { env: { ...clientEnv(), STOR_URL: nas.baseUrl, STOR_API_KEY: KEY, STOR_USER: 'root' } });
    expect(run.stderr + ` exit ${run.code}`).toContain(' exit 4');
    expect(nas.calls).not.toContain('auth.me');
    expect(nas.calls).not.toContain('auth.login_with_api_key');
  });
});

describe('SCRAM: no downgrade on a later login of the same connection', () => {
  it('a reconnect to an appliance that stops offering SCRAM does not send the key (the strategy stays withheld)', async () => {
    const { apiKeyLogin, bearerKey } = await import('../../src/core/transport/login-strategies.js');
    const login = apiKeyLogin(KEY, 'root');
    const asked: string[] = [];
    // First connection: the appliance offers SCRAM and refuses the client-first.
    const offering = async <T>(method: string): Promise<T> => {
      asked.push(method);
      if (method === 'auth.mechanism_choices') return ['API_KEY_PLAIN', 'SCRAM'] as T;
      return { response_type: 'AUTH_ERR' } as T;
    };
    await expect(login.login(offering, 'nas')).rejects.toThrow();
    // The reconnect reaches something that no longer offers SCRAM (a downgrade on the way).
    const downgraded = async <T>(method: string): Promise<T> => {
      asked.push(method);
      if (method === 'auth.mechanism_choices') return ['API_KEY_PLAIN'] as T;
      return true as T;
    };
    await expect(login.login(downgraded, 'nas')).rejects.toThrow();
    expect(asked).not.toContain('auth.login_with_api_key');
    expect(() => bearerKey(login, 'nas')).toThrow(/does not send the key/);
  });
});
