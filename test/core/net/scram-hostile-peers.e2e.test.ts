/**
 * SCRAM against hostile peers: the key never travels once SCRAM was offered, a hostile appliance
 * gets no downgrade and bounded work, and the server refuses replayed, revoked or malformed steps.
 * Each test failed before its fix.
 */
import { randomBytes, X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { loginLines, spawnServe } from '../../helpers/serve-process.js';
import { startStandinAppliance } from '../../helpers/standin-appliance.js';
import { connectWs, startTestServer, type RpcReply, type WsClient } from '../../helpers/server.js';
import { createUserWithKey, openTestAppliance } from '../../helpers/appliance.js';
import { selfSignedCert } from '../../helpers/self-signed.js';
import { startServer } from '../../../src/core/server/server.js';
import {
  buildClientFinal,
  buildClientFirst,
  keysFromSaltedPassword,
  newNonce,
  parseServerFirst,
  saltedPassword,
  tlsServerEndPoint,
} from '../../../src/core/net/scram.js';
import { tempDir } from '../../helpers/temp-dir.js';

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
      if (data.mechanism !== 'SCRAM')
        return { result: { response_type: 'SUCCESS', user_info: null, authenticator: 'LEVEL_1' } };
      if (data.scram_type === 'CLIENT_FIRST_MESSAGE')
        return { result: server.first(/,r=([^,]+)$/.exec(data.rfc_str!)![1]!) };
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
const serverNonce = (clientNonce: string) =>
  Buffer.concat([Buffer.from(clientNonce, 'base64'), randomBytes(32)]).toString('base64');
const salt = randomBytes(16).toString('base64');

describe('SCRAM client against a hostile appliance (no downgrade, bounded work)', () => {
  it('10^9 iterations demanded: refused before any hashing, exit 4, and the key is never sent', async () => {
    const { nas, sent } = await hostileScram({
      first: (n) => ({
        response_type: 'SCRAM_RESPONSE',
        scram_type: 'SERVER_FIRST_RESPONSE',
        rfc_str: `r=${serverNonce(n)},s=${salt},i=1000000000`,
        user_info: null,
      }),
    });
    const run = await spawnStor(['whoami'], {
      env: { ...clientEnv(), STOR_URL: nas.baseUrl, STOR_API_KEY: KEY, STOR_USER: 'root' },
    });
    expect(run.stderr + ` exit ${run.code}`).toContain(' exit 4');
    expect(run.stderr).toContain('iteration count outside [50000, 5000000]');
    expect(nas.calls).not.toContain('auth.login_with_api_key');
    expect(sent.join('\n')).not.toContain('S'.repeat(64));
    expect(run.stderr).not.toContain('S'.repeat(64));
  });

  it('a wrong server signature fails the login (logged out), never falls back to the key, and no secret is printed even with -v', async () => {
    const { nas, sent } = await hostileScram({
      first: (n) => ({
        response_type: 'SCRAM_RESPONSE',
        scram_type: 'SERVER_FIRST_RESPONSE',
        rfc_str: `r=${serverNonce(n)},s=${salt},i=50000`,
        user_info: null,
      }),
      final: () => ({
        response_type: 'SCRAM_RESPONSE',
        scram_type: 'SERVER_FINAL_RESPONSE',
        rfc_str: `v=${randomBytes(64).toString('base64')}`,
        user_info: null,
      }),
    });
    const run = await spawnStor(['-v', 'whoami'], {
      env: { ...clientEnv(), STOR_URL: nas.baseUrl, STOR_API_KEY: KEY, STOR_USER: 'root' },
    });
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
    const { nas } = await hostileScram({
      first: () => ({ response_type: 'SUCCESS', user_info: null, authenticator: 'LEVEL_1', reconnect_token: null }),
    });
    const run = await spawnStor(['whoami'], {
      env: { ...clientEnv(), STOR_URL: nas.baseUrl, STOR_API_KEY: KEY, STOR_USER: 'root' },
    });
    expect(run.stderr + ` exit ${run.code}`).toContain(' exit 4');
    expect(nas.calls).not.toContain('auth.me');
    expect(nas.calls).not.toContain('auth.login_with_api_key');
  });
});

describe('SCRAM: no downgrade on a later login of the same connection', () => {
  it('a reconnect to an appliance that stops offering SCRAM does not send the key (the strategy stays withheld)', async () => {
    const { apiKeyLogin, bearerKey } = await import('../../../src/core/transport/login-strategies.js');
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

/** One SCRAM exchange over raw frames, with hooks to tamper with the client-final. */
async function scramFrames(
  client: WsClient,
  username: string,
  key: string,
  tamper: (rfc: string) => string = (r) => r,
) {
  const id = Number(key.split('-')[0]);
  const nonce = newNonce();
  const cf = buildClientFirst(username, id, nonce, false);
  const one = (await client.call('auth.login_ex', [
    { mechanism: 'SCRAM', scram_type: 'CLIENT_FIRST_MESSAGE', rfc_str: cf.rfc },
  ])) as RpcReply;
  const r1 = one.result as Record<string, any> | undefined;
  if (r1?.response_type !== 'SCRAM_RESPONSE') return { one, final: null, two: null };
  const sf = parseServerFirst(r1.rfc_str, nonce);
  const keys = keysFromSaltedPassword(await saltedPassword(key.slice(key.indexOf('-') + 1), sf.salt, sf.iterations));
  const built = buildClientFinal(cf.gs2Header, null, sf.nonce, cf.bare, sf.rfc, keys);
  const rfc = tamper(built.rfc);
  const two = await client.call('auth.login_ex', [
    { mechanism: 'SCRAM', scram_type: 'CLIENT_FINAL_MESSAGE', rfc_str: rfc },
  ]);
  return { one, final: rfc, two };
}

describe('SCRAM on the server, raw frames', () => {
  it("a client-final replayed on another connection (after its own client-first) is AUTH_ERR: the nonce is the exchange's", async () => {
    const server = await startTestServer({ keyLogin: 'scram' });
    const { key } = await createUserWithKey(server.testAppliance, 'rita', { privilegeRoles: ['READONLY_ADMIN'] });
    const a = await connectWs(server.rpcUrl);
    const good = await scramFrames(a, 'rita', key);
    expect((good.two!.result as Record<string, unknown>).scram_type).toBe('SERVER_FINAL_RESPONSE');
    const b = await connectWs(server.rpcUrl);
    const replay = await scramFrames(b, 'rita', key, () => good.final!);
    expect(replay.two!.result).toEqual({ response_type: 'AUTH_ERR' });
    expect((await b.call('auth.me')).error).toBeDefined();
    // On the same connection after success: no exchange is in progress.
    expect(
      (await a.call('auth.login_ex', [{ mechanism: 'SCRAM', scram_type: 'CLIENT_FINAL_MESSAGE', rfc_str: good.final }]))
        .error,
    ).toBeDefined();
  });

  it('a key revoked between client-first and client-final: AUTH_ERR, no session', async () => {
    const server = await startTestServer({ keyLogin: 'scram' });
    const t = server.testAppliance;
    const { key } = await createUserWithKey(t, 'sam', { privilegeRoles: ['READONLY_ADMIN'] });
    const c = await connectWs(server.rpcUrl);
    const run = await scramFrames(c, 'sam', key, (rfc) => {
      t.appliance.store.write(() =>
        t.appliance.store.db.prepare('UPDATE api_keys SET revoked = 1 WHERE id = ?').run(Number(key.split('-')[0])),
      );
      return rfc;
    });
    expect(run.two!.result).toEqual({ response_type: 'AUTH_ERR' });
    expect((await c.call('auth.me')).error).toBeDefined();
  });

  it('SCRAM steps count against the login rate limit (20 a minute per address, each message one call)', async () => {
    const server = await startTestServer({ keyLogin: 'scram' });
    const c = await connectWs(server.rpcUrl);
    const answers: string[] = [];
    for (let i = 0; i < 21; i++) {
      const reply = await c.call('auth.login_ex', [
        {
          mechanism: 'SCRAM',
          scram_type: 'CLIENT_FIRST_MESSAGE',
          rfc_str: `n,,n=nobody:${i + 1},r=${newNonce().toString('base64')}`,
        },
      ]);
      answers.push(
        reply.error
          ? String(reply.error.data?.reason ?? reply.error.message)
          : String((reply.result as Record<string, unknown>).response_type),
      );
    }
    expect(answers.slice(0, 20).every((a) => a === 'AUTH_ERR' || /Rate Limit/.test(a))).toBe(true);
    expect(answers[20]).toMatch(/Rate Limit Exceeded/);
  });

  it('malformed and oversized client messages are AUTH_ERR (or a refusal), never a crash; the server still serves', async () => {
    const server = await startTestServer({ keyLogin: 'scram' });
    const bad = [
      '',
      'n,,',
      'x,,n=a:1,r=AAAA',
      `n,,n=${'a:'.repeat(3_900)}:1,r=${newNonce().toString('base64')}`,
      `p=tls-server-end-point,,n=admin:1,r=${newNonce().toString('base64')}`,
      'n,a=root,n=root:1,r=x',
      `n,,n=root:99999999999999999999,r=${newNonce().toString('base64')}`,
      `n,,r=${newNonce().toString('base64')},n=root:1`,
    ];
    for (const rfc of bad) {
      const c = await connectWs(server.rpcUrl);
      const reply = await c.call('auth.login_ex', [
        { mechanism: 'SCRAM', scram_type: 'CLIENT_FIRST_MESSAGE', rfc_str: rfc },
      ]);
      expect(reply.result ?? reply.error?.message, rfc.slice(0, 40)).toBeDefined();
      if (reply.result) expect(reply.result).toEqual({ response_type: 'AUTH_ERR' });
      c.close();
    }
    // Past the anonymous frame limit the connection is closed before anything is parsed.
    const c = await connectWs(server.rpcUrl);
    c.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'auth.login_ex',
      params: [
        { mechanism: 'SCRAM', scram_type: 'CLIENT_FIRST_MESSAGE', rfc_str: `n,,n=${'a'.repeat(1_000_000)}:1,r=AAAA` },
      ],
    });
    expect((await c.closed).code).toBe(1007);
    expect(await (await connectWs(server.rpcUrl)).result('core.ping')).toBe('pong');
  });
});

describe('SCRAM channel-binding flags over TLS (RFC 5802 §6, §7)', () => {
  async function tlsScram() {
    const t = await openTestAppliance({ keyLogin: 'scram' });
    const pem = selfSignedCert(tempDir());
    const running = await startServer({
      appliance: t.appliance,
      host: '127.0.0.1',
      port: 0,
      tls: { cert: readFileSync(pem.cert), key: readFileSync(pem.key) },
    });
    onTestFinished(() => running.close(100));
    const { key } = await createUserWithKey(t, 'tina', { privilegeRoles: ['READONLY_ADMIN'] });
    const binding = tlsServerEndPoint(new X509Certificate(readFileSync(pem.cert)).raw);
    return { key, binding, connect: () => connectWs(running.rpcUrl, { rejectUnauthorized: false }) };
  }

  /** An exchange whose gs2 header is `header` (the binding data, when any, the server's own). */
  async function withHeader(client: WsClient, key: string, header: string, binding: Buffer | null) {
    const nonce = newNonce();
    const bare = `n=tina:${key.split('-')[0]},r=${nonce.toString('base64')}`;
    const one = (await client.result('auth.login_ex', [
      { mechanism: 'SCRAM', scram_type: 'CLIENT_FIRST_MESSAGE', rfc_str: `${header}${bare}` },
    ])) as Record<string, any>;
    if (one.response_type !== 'SCRAM_RESPONSE') return one;
    const sf = parseServerFirst(one.rfc_str, nonce);
    const keys = keysFromSaltedPassword(await saltedPassword(key.slice(key.indexOf('-') + 1), sf.salt, sf.iterations));
    const built = buildClientFinal(header, binding, sf.nonce, bare, sf.rfc, keys);
    return (await client.result('auth.login_ex', [
      { mechanism: 'SCRAM', scram_type: 'CLIENT_FINAL_MESSAGE', rfc_str: built.rfc },
    ])) as Record<string, any>;
  }

  it("a channel-binding type the server does not implement (p=tls-unique) is refused, even carrying the server's end-point hash", async () => {
    const { key, binding, connect } = await tlsScram();
    expect(await withHeader(await connect(), key, 'p=tls-unique,,', binding)).toEqual({ response_type: 'AUTH_ERR' });
    // The implemented type still works.
    expect((await withHeader(await connect(), key, 'p=tls-server-end-point,,', binding)).scram_type).toBe(
      'SERVER_FINAL_RESPONSE',
    );
  });

  it('"y" (client thinks the server cannot bind) over TLS, where the server can: refused as a downgrade; "n" stays allowed', async () => {
    const { key, connect } = await tlsScram();
    expect(await withHeader(await connect(), key, 'y,,', null)).toEqual({ response_type: 'AUTH_ERR' });
    expect((await withHeader(await connect(), key, 'n,,', null)).scram_type).toBe('SERVER_FINAL_RESPONSE');
  });
});

describe('SCRAM client: a user name SCRAM cannot carry', () => {
  it("STOR_USER with ',' or '=' is a SCRAM_FAILED usage-level refusal (exit 4), not an internal error, and nothing is sent", async () => {
    const { nas, sent } = await hostileScram({ first: () => ({ response_type: 'AUTH_ERR' }) });
    const run = await spawnStor(['whoami', '--json'], {
      env: { ...clientEnv(), STOR_URL: nas.baseUrl, STOR_API_KEY: KEY, STOR_USER: 'ops,team=1' },
    });
    expect(run.stderr + ` exit ${run.code}`).toContain(' exit 4');
    expect(JSON.parse(run.stdout || run.stderr).error.code).toBe('SCRAM_FAILED');
    expect(sent).toEqual([]);
  });
});
