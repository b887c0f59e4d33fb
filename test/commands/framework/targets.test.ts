import { describe, expect, it } from 'vitest';
import { ProfileStore } from '../../../src/core/config/profiles.js';
import { profilesFor } from '../../../src/commands/framework/target.js';
import { profileNameFor } from '../../../src/commands/login/login.js';
import { parseEndpoint } from '../../../src/core/transport/endpoint.js';
import { clientEnv } from '../../helpers/client-env.js';
import { createUserWithKey } from '../../helpers/appliance.js';
import { runStor, type RunResult } from '../../helpers/run-stor.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/** `stor login` to an in-process server with a key on standard input. */
function login(server: TestServer, env: Record<string, string>, key: string, ...args: string[]): Promise<RunResult> {
  return runStor(['login', '--url', server.url, '--api-key-stdin', '--json', ...args], { env, stdin: key });
}

/** The secret half of a key: what must never be printed. */
function secretOf(key: string): string {
  return key.split('-')[1]!;
}

function errorOf(result: RunResult): { code: string; kind: string; message: string; hint?: string } {
  return JSON.parse(result.stderr).error;
}

describe('empty STOR_API_KEY and STOR_URL', () => {
  it('refuses an empty or blank STOR_API_KEY that is set, naming it, instead of running as the embedded administrator', async () => {
    for (const value of ['', '   ']) {
      const result = await runStor(['whoami', '--json'], { env: { ...clientEnv(), STOR_API_KEY: value } });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(errorOf(result)).toMatchObject({
        code: 'EMPTY_ENV',
        kind: 'usage',
        message: 'STOR_API_KEY is set but empty',
      });
    }
    const plain = await runStor(['whoami'], { env: { ...clientEnv(), STOR_API_KEY: '' } });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('STOR_API_KEY');
    expect(plain.stderr).toContain('unset STOR_API_KEY');
  });

  it('refuses an empty STOR_URL that is set, for commands and for login', async () => {
    const whoami = await runStor(['whoami', '--json'], { env: { ...clientEnv(), STOR_URL: '' } });
    expect(whoami.code).toBe(2);
    expect(errorOf(whoami)).toMatchObject({ code: 'EMPTY_ENV', message: 'STOR_URL is set but empty' });
    const loginResult = await runStor(['login', '--api-key-stdin', '--json'], {
      env: { ...clientEnv(), STOR_URL: '' },
      stdin: '1-x',
    });
    expect(loginResult.code).toBe(2);
    expect(errorOf(loginResult)).toMatchObject({ code: 'EMPTY_ENV', message: 'STOR_URL is set but empty' });
  });

  it('refuses an empty STOR_API_KEY as the key source of login, rather than prompting or reporting a malformed key', async () => {
    const result = await runStor(['login', '--url', 'ws://127.0.0.1:9', '--json'], {
      env: { ...clientEnv(), STOR_API_KEY: '' },
      tty: true,
    });
    expect(result.code).toBe(2);
    expect(errorOf(result)).toMatchObject({ code: 'EMPTY_ENV', message: 'STOR_API_KEY is set but empty' });
  });

  it('refuses a STOR_API_KEY that is not of the form <id>-<secret> before sending it anywhere, without printing it', async () => {
    const garbage = 'garbage-not-a-key';
    // Embedded (would be a rejected key, exit 4) and a URL where nothing listens (would be exit 3):
    // both refused as malformed before any login is tried.
    for (const extra of [{}, { STOR_URL: 'ws://127.0.0.1:9' }]) {
      const result = await runStor(['whoami', '--json'], { env: { ...clientEnv(), ...extra, STOR_API_KEY: garbage } });
      expect(result.code).toBe(2);
      expect(errorOf(result)).toMatchObject({
        code: 'MALFORMED_KEY',
        kind: 'usage',
        message: expect.stringContaining('STOR_API_KEY'),
      });
      expect(result.stderr).not.toContain(garbage);
    }
    const plain = await runStor(['whoami'], { env: { ...clientEnv(), STOR_API_KEY: garbage } });
    expect(plain.code).toBe(2);
    expect(plain.stderr).not.toContain(garbage);
  });

  it('treats unset variables as unset: the embedded administrator answers', async () => {
    const result = await runStor(['whoami', '--json'], { env: clientEnv() });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ username: 'truenas_admin', target: { kind: 'embedded' } });
  });
});

describe('--url borrows the saved profile of the same appliance', () => {
  it('compares URLs as parseEndpoint normalises them: scheme, host case, default port, trailing slash, /api/current', () => {
    const doc = {
      profiles: {
        nas: { url: 'wss://nas.example.com', apiKey: 'k' },
        other: { url: 'wss://nas.example.com:8443', apiKey: 'k' },
        broken: { url: 'ftp://nas.example.com', apiKey: 'k' },
      },
    };
    for (const url of [
      'wss://NAS.example.com:443/',
      'https://nas.example.com/api/current',
      'nas.example.com',
      'wss://nas.example.com/api/current/',
    ]) {
      expect(profilesFor(parseEndpoint(url), doc), url).toEqual(['nas']);
    }
    expect(profilesFor(parseEndpoint('https://nas.example.com:8443/'), doc)).toEqual(['other']);
    expect(profilesFor(parseEndpoint('ws://nas.example.com'), doc)).toEqual([]);
  });

  it('prefers the current profile among several for the same appliance, else the first by name', () => {
    const p = { url: 'ws://127.0.0.1:6000', apiKey: 'k' };
    const endpoint = parseEndpoint('http://127.0.0.1:6000/');
    expect(profilesFor(endpoint, { profiles: { b: p, a: p, c: p }, current: 'c' })).toEqual(['c', 'a', 'b']);
    expect(
      profilesFor(endpoint, { profiles: { b: p, a: p, x: { ...p, url: 'ws://127.0.0.1:7000' } }, current: 'x' }),
    ).toEqual(['a', 'b']);
  });

  it('`stor login --url X` then `stor --url X/ whoami` works without STOR_API_KEY, and prints no key', async () => {
    const server = await startTestServer();
    const env = clientEnv();
    const saved = await login(server, env, server.adminKey);
    expect(saved.code).toBe(0);
    const name = `127.0.0.1-${server.port}`;
    for (const url of [`${server.url}/`, `WS://127.0.0.1:${server.port}/api/current`]) {
      const me = await runStor(['--url', url, 'whoami', '--json'], { env });
      expect(me.stderr).toBe('');
      expect(me.code).toBe(0);
      expect(JSON.parse(me.stdout)).toMatchObject({
        username: 'truenas_admin',
        target: { kind: 'remote', url: `ws://127.0.0.1:${server.port}`, profile: name },
      });
      for (const out of [me.stdout, me.stderr]) expect(out).not.toContain(secretOf(server.adminKey));
    }
    const viaEnv = await runStor(['whoami', '--json'], { env: { ...env, STOR_URL: `${server.url}/` } });
    expect(JSON.parse(viaEnv.stdout).target.profile).toBe(name);
    for (const out of [saved.stdout, saved.stderr, viaEnv.stdout, viaEnv.stderr])
      expect(out).not.toContain(secretOf(server.adminKey));
  });

  it('uses the current matching profile, else the first by name, says which under -v, and lets STOR_API_KEY win', async () => {
    const server = await startTestServer();
    const elsewhere = await startTestServer();
    const alice = await createUserWithKey(server.testAppliance, 'alice', { privilegeRoles: ['READONLY_ADMIN'] });
    const env = clientEnv();
    expect((await login(server, env, alice.key, '--profile', 'a')).code).toBe(0);
    expect((await login(server, env, server.adminKey, '--profile', 'b')).code).toBe(0);

    // b is current: its key (the administrator's) is used.
    const current = await runStor(['-v', '--url', server.url, 'whoami', '--json'], { env });
    expect(JSON.parse(current.stdout)).toMatchObject({ username: 'truenas_admin', target: { profile: 'b' } });
    expect(current.stderr).toContain(
      `stor: ws://127.0.0.1:${server.port}: using the key and settings of profile "b" (also saved for it: a)`,
    );

    // Another appliance is current: the first by name, a (alice's key).
    expect((await login(elsewhere, env, elsewhere.adminKey, '--profile', 'z')).code).toBe(0);
    const first = await runStor(['--verbose', '--url', server.url, 'whoami', '--json'], { env });
    expect(JSON.parse(first.stdout)).toMatchObject({ username: 'alice', target: { profile: 'a' } });
    expect(first.stderr).toContain('using the key and settings of profile "a" (also saved for it: b)');

    // Without -v the choice is silent.
    const quiet = await runStor(['--url', server.url, 'whoami', '--json'], { env });
    expect(quiet.stderr).toBe('');

    const envKey = await runStor(['--url', server.url, 'whoami', '--json'], {
      env: { ...env, STOR_API_KEY: server.adminKey },
    });
    expect(JSON.parse(envKey.stdout).username).toBe('truenas_admin');
    for (const out of [current.stderr, first.stderr, current.stdout, first.stdout]) {
      expect(out).not.toContain(secretOf(alice.key));
      expect(out).not.toContain(secretOf(server.adminKey));
    }
  });

  it('still asks for a key when no saved profile is for that appliance', async () => {
    const server = await startTestServer();
    const env = clientEnv();
    expect((await login(server, env, server.adminKey)).code).toBe(0);
    const other = await runStor(['--url', 'ws://127.0.0.1:9', 'whoami', '--json'], { env });
    expect(other.code).toBe(2);
    expect(errorOf(other)).toMatchObject({ code: 'NO_API_KEY', message: 'no API key for ws://127.0.0.1:9' });
  });
});

describe('stor login names the profile after the host', () => {
  it('names a new profile host or host-PORT, stable across spellings of the URL', () => {
    expect(profileNameFor(parseEndpoint('wss://NAS.example.com/'))).toBe('nas.example.com');
    expect(profileNameFor(parseEndpoint('https://nas.example.com:443/api/current'))).toBe('nas.example.com');
    expect(profileNameFor(parseEndpoint('ws://127.0.0.1:6000'))).toBe('127.0.0.1-6000');
    expect(profileNameFor(parseEndpoint('wss://[::1]:8443'))).toBe('::1-8443');
  });

  it('creates the profile on the first login and updates it in place on the next, whatever the spelling of the URL', async () => {
    const server = await startTestServer();
    const alice = await createUserWithKey(server.testAppliance, 'alice', { privilegeRoles: ['READONLY_ADMIN'] });
    const env = clientEnv();
    const name = `127.0.0.1-${server.port}`;

    const first = await login(server, env, server.adminKey);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      profile: name,
      url: `ws://127.0.0.1:${server.port}`,
      created: true,
      current: true,
    });
    expect(JSON.parse(first.stdout)).not.toHaveProperty('replaced_url');

    const again = await runStor(['login', '--url', `ws://127.0.0.1:${server.port}/api/current/`, '--api-key-stdin'], {
      env,
      stdin: alice.key,
    });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`saved in profile "${name}", updated`);
    expect(again.stdout).toContain('created\tfalse\n');
    const list = await runStor(['profile', 'list', '--json'], { env });
    expect(JSON.parse(list.stdout).map((p: { name: string }) => p.name)).toEqual(['embedded', name]);
    const me = await runStor(['whoami', '--json'], { env });
    expect(JSON.parse(me.stdout).username).toBe('alice');

    // A profile already saved for the appliance under another name is the one updated.
    const store = new ProfileStore(env.STOR_CONFIG_DIR!);
    await store.save('nas1', (await store.read()).profiles[name]!, false);
    await runStor(['profile', 'remove', name], { env });
    const reuse = await login(server, env, server.adminKey);
    expect(JSON.parse(reuse.stdout)).toMatchObject({ profile: 'nas1', created: false });
    for (const out of [first.stdout, first.stderr, again.stdout, again.stderr, reuse.stdout, reuse.stderr]) {
      expect(out).not.toContain(secretOf(server.adminKey));
      expect(out).not.toContain(secretOf(alice.key));
    }
  });

  it('refuses a name saved for another appliance, before connecting, unless --force', async () => {
    const server = await startTestServer();
    const env = clientEnv();
    const name = `127.0.0.1-${server.port}`;
    const store = new ProfileStore(env.STOR_CONFIG_DIR!);
    await store.save(name, { url: 'wss://nas.example.com', apiKey: '1-old' }, true);

    const refused = await login(server, env, server.adminKey);
    expect(refused.code).toBe(2);
    expect(errorOf(refused)).toMatchObject({
      code: 'PROFILE_EXISTS',
      message: `profile "${name}" is saved for wss://nas.example.com, not ws://127.0.0.1:${server.port}`,
      hint: 'save this one under another name with --profile NAME, or replace that profile with --force',
    });
    expect((await store.read()).profiles[name]).toEqual({ url: 'wss://nas.example.com', apiKey: '1-old' });

    // An explicit name is guarded too; the refusal comes before any connection (nothing listens on port 9).
    const named = await runStor(
      ['login', '--url', 'ws://127.0.0.1:9', '--profile', name, '--api-key-stdin', '--json'],
      { env, stdin: server.adminKey },
    );
    expect(named.code).toBe(2);
    expect(errorOf(named).code).toBe('PROFILE_EXISTS');

    const forced = await login(server, env, server.adminKey, '--force');
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({
      profile: name,
      created: false,
      replaced_url: 'wss://nas.example.com',
    });
    expect((await store.read()).profiles[name]!.url).toBe(`ws://127.0.0.1:${server.port}`);
    const human = await runStor(['login', '--url', server.url, '--api-key-stdin', '--profile', 'x'], {
      env,
      stdin: server.adminKey,
    });
    expect(human.stderr).toContain(`saved in new profile "x"`);
  });
});

describe('stor profile list shows TLS', () => {
  it('shows none for ws:// and http://, and verified, insecure or the CA for wss:// and https://', async () => {
    const env = clientEnv();
    const store = new ProfileStore(env.STOR_CONFIG_DIR!);
    await store.save('local', { url: 'ws://127.0.0.1:6000', apiKey: 'k' }, false);
    await store.save('plain', { url: 'http://127.0.0.1:6001', apiKey: 'k', insecure: true }, false);
    await store.save('nas', { url: 'wss://nas.example.com', apiKey: 'k' }, false);
    await store.save('bare', { url: 'nas2.example.com', apiKey: 'k' }, false);
    await store.save('lab', { url: 'https://lab.example.com', apiKey: 'k', insecure: true }, false);
    await store.save('office', { url: 'wss://office.example.com', apiKey: 'k', ca: '/etc/office-ca.pem' }, true);

    const json = JSON.parse((await runStor(['profile', 'list', '--json'], { env })).stdout) as {
      name: string;
      tls: string;
    }[];
    expect(Object.fromEntries(json.map((p) => [p.name, p.tls]))).toEqual({
      embedded: 'none',
      local: 'none',
      plain: 'none',
      nas: 'verified',
      bare: 'verified',
      lab: 'insecure',
      office: 'ca',
    });
    const piped = (await runStor(['profile', 'list'], { env })).stdout.split('\n');
    expect(piped).toContain('\tlocal\tws://127.0.0.1:6000\tnone\tws\t');
    expect(piped).toContain('\tplain\thttp://127.0.0.1:6001\tnone\tws\t');
    expect(piped).toContain('*\toffice\twss://office.example.com\tca /etc/office-ca.pem\tws\t');
  });
});

describe('stor logout', () => {
  it('logging out twice is not an error: the second says nothing was saved', async () => {
    const server = await startTestServer();
    const env = clientEnv();
    expect((await login(server, env, server.adminKey)).code).toBe(0);
    const name = `127.0.0.1-${server.port}`;

    const first = await runStor(['logout', '--json'], { env });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      profile: name,
      removed: true,
      was_current: true,
      key: { created_by_stor: false, name: null, id: null, revoked: false },
    });

    const second = await runStor(['logout', '--json'], { env });
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({ profile: null, removed: false, was_current: false, key: null });
    const human = await runStor(['logout'], { env });
    expect(human).toMatchObject({ code: 0, stderr: 'stor: no profile is current: nothing to log out of\n' });

    const named = await runStor(['--profile', name, 'logout', '--json'], { env });
    expect(named.code).toBe(0);
    expect(JSON.parse(named.stdout)).toEqual({ profile: name, removed: false, was_current: false, key: null });
    const namedHuman = await runStor(['--profile', name, 'logout'], { env });
    expect(namedHuman.stderr).toBe(`stor: no profile "${name}" is saved: nothing to log out of\n`);
  });

  it('profile remove of an unknown profile stays an error: it names one to delete', async () => {
    const result = await runStor(['profile', 'remove', 'nosuch', '--json'], { env: clientEnv() });
    expect(result.code).toBe(1);
    expect(errorOf(result)).toMatchObject({ code: 'NOT_FOUND' });
  });
});
