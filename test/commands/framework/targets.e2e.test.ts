import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { selfSignedCert } from '../../helpers/self-signed.js';

/** Targets and credentials with the built binary against a spawned `stor serve`. */
describe('targets and credentials, end to end', () => {
  it('`stor login --url ws://127.0.0.1:PORT` then `stor --url ws://127.0.0.1:PORT/ whoami` works with no STOR_API_KEY; logout twice exits 0', async () => {
    const server = await spawnServe(tempDir());
    const key = readFileSync(server.adminKeyFile, 'utf8');
    const secret = key.trim().split('-')[1]!;
    const port = new URL(server.baseUrl).port;
    const env = clientEnv();
    const outputs: string[] = [];

    const login = await spawnStor(['login', '--url', `ws://127.0.0.1:${port}`, '--api-key-stdin'], { env, stdin: key });
    outputs.push(login.stdout, login.stderr);
    expect(login.code).toBe(0);
    expect(login.stdout).toContain(`profile\t127.0.0.1-${port}\ncreated\ttrue\n`);
    expect(login.stderr).toBe(`stor: saved in new profile "127.0.0.1-${port}"\n`);

    const me = await spawnStor(['-v', '--url', `ws://127.0.0.1:${port}/`, 'whoami', '--json'], { env });
    outputs.push(me.stdout, me.stderr);
    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout)).toMatchObject({
      username: 'truenas_admin',
      target: { kind: 'remote', url: `ws://127.0.0.1:${port}`, profile: `127.0.0.1-${port}` },
    });
    expect(me.stderr).toContain(`using the key and settings of profile "127.0.0.1-${port}"`);

    const list = await spawnStor(['profile', 'list'], { env });
    outputs.push(list.stdout, list.stderr);
    expect(list.stdout).toBe(
      `\tembedded\t(embedded) ${env.STOR_HOME}\tnone\t\t\n*\t127.0.0.1-${port}\tws://127.0.0.1:${port}\tnone\tws\t\n`,
    );

    const first = await spawnStor(['logout', '--json'], { env });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ profile: `127.0.0.1-${port}`, removed: true });
    const second = await spawnStor(['logout', '--json'], { env });
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ removed: false });

    for (const out of outputs) expect(out).not.toContain(secret);
    expect(await server.stop()).toBe(0);
  });

  it('an empty STOR_API_KEY exits 2 naming it, instead of running as the embedded administrator', async () => {
    const result = await spawnStor(['whoami'], { env: { ...clientEnv(), STOR_API_KEY: '' } });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('STOR_API_KEY is set but empty');
  });

  it("--url to a wss:// appliance borrows the saved profile's CA; profile list shows it", async () => {
    const dir = tempDir();
    const { cert, key: tlsKey } = selfSignedCert(dir);
    const server = await spawnServe(join(dir, 'state'), ['--tls-cert', cert, '--tls-key', tlsKey]);
    const adminKey = readFileSync(server.adminKeyFile, 'utf8');
    const env = clientEnv();
    expect(
      (await spawnStor(['login', '--url', server.baseUrl, '--ca', cert, '--api-key-stdin'], { env, stdin: adminKey }))
        .code,
    ).toBe(0);

    // Spelled otherwise (https, trailing /api/current), and with neither --ca nor a key: both come from the profile.
    const url = `${server.baseUrl.replace(/^wss:/, 'https:')}/api/current`;
    const me = await spawnStor(['--url', url, 'whoami', '--json'], { env });
    expect(me.stderr).toBe('');
    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout).username).toBe('truenas_admin');

    // Without the profile the certificate is not trusted: the CA above came from it.
    const bare = await spawnStor(['--url', url, 'whoami'], { env: { ...clientEnv(), STOR_API_KEY: adminKey.trim() } });
    expect(bare.code).toBe(3);
    expect(bare.stderr).toContain('--ca');

    const list = JSON.parse((await spawnStor(['profile', 'list', '--json'], { env })).stdout);
    expect(list).toEqual([
      expect.objectContaining({ name: 'embedded', current: false }),
      expect.objectContaining({ url: server.baseUrl, tls: 'ca', ca: cert }),
    ]);
    expect(await server.stop()).toBe(0);
  });
});
