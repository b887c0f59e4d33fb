import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../helpers/bin.js';
import { clientEnv, remoteEnv } from '../helpers/client-env.js';
import { spawnServe } from '../helpers/serve-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { agentServing, sessionEnv, startStor, until, viaAgent } from '../helpers/session.js';
import { selfSignedCert } from '../helpers/self-signed.js';
import { EMBEDDED_MEANT } from '../helpers/embedded-meant.js';

/*
 * What Node reads for the whole process (NODE_EXTRA_CA_CERTS, HOME, TMPDIR) is the handed-over
 * command's own, not the agent's. The built bin/stor.js and agent (`npm run build` first).
 */

describe('what Node reads for the whole process is the command’s own', () => {
  it('NODE_EXTRA_CA_CERTS: a command trusting a CA the agent was not started with connects as in its own process', async () => {
    const dir = tempDir();
    const { cert, key } = selfSignedCert(dir);
    const serve = await spawnServe(join(dir, 'state'), ['--tls-cert', cert, '--tls-key', key]);
    const { env: session, dir: sessions } = sessionEnv();
    // The agent is started by a command without NODE_EXTRA_CA_CERTS (viaAgent's starter).
    const env = {
      ...clientEnv(),
      ...session,
      STOR_URL: serve.baseUrl,
      STOR_API_KEY: readFileSync(serve.adminKeyFile, 'utf8').trim(),
      NODE_EXTRA_CA_CERTS: cert,
    };
    const own = await spawnStor(['--json', 'whoami'], { env: { ...env, STOR_SESSION: 'off', ...EMBEDDED_MEANT } });
    expect(own.code, own.stderr).toBe(0);
    expect(await viaAgent(['--json', 'whoami'], env, sessions)).toEqual(own);
  });

  it('HOME: a command without HOME finds no profiles of the HOME of the command that started the agent, as in its own process', async () => {
    const serve = await spawnServe(tempDir('stor-serve-'));
    const { env: session, dir } = sessionEnv();
    const home = tempDir('stor-home-');
    // A profile under that HOME's ~/.config/stor, and the agent started from it (so with that HOME).
    const withHome = { ...session, HOME: home, STOR_HOME: tempDir('stor-client-home-') };
    expect(
      (
        await spawnStor(['login', '--url', serve.baseUrl, '--api-key-stdin', '--profile', 'theirs'], {
          env: withHome,
          stdin: readFileSync(serve.adminKeyFile, 'utf8'),
        })
      ).code,
    ).toBe(0);
    expect((await spawnStor(['whoami'], { env: withHome })).code).toBe(0);
    await agentServing(dir);
    // Without HOME a process looks in the password database's home (only read here, never written).
    const own = await spawnStor(['--json', 'profile', 'list'], {
      env: { ...session, HOME: undefined, STOR_SESSION: 'off', ...EMBEDDED_MEANT },
    });
    expect(own.code, own.stderr).toBe(0);
    expect(own.stdout).not.toContain('theirs');
    expect(await viaAgent(['--json', 'profile', 'list'], { ...session, HOME: undefined }, dir)).toEqual(own);
  });

  it('TMPDIR: `upload -` spools standard input in the command’s temporary directory, not the agent’s', async () => {
    const serve = await spawnServe(tempDir('stor-serve-'));
    const { env: session, dir } = sessionEnv();
    const tmp = tempDir('stor-own-tmp-');
    const env = { ...remoteEnv(serve), ...session, TMPDIR: tmp };
    expect((await viaAgent(['whoami'], env, dir)).code).toBe(0);
    const cmd = startStor(['upload', '-', '/mnt/tank/spooled.txt'], env, 'pipe');
    cmd.child.stdin!.write('first part, ');
    // Standard input is still open: the spool file exists while the command reads it.
    await until('the spool is in the command’s TMPDIR', () =>
      readdirSync(tmp).some((f) => f.startsWith('stor-stdin-')),
    );
    cmd.child.stdin!.end('and the rest');
    const ended = await cmd.closed;
    expect(ended.code, ended.stderr).toBe(0);
    expect(readdirSync(tmp)).toEqual([]);
    const st = await spawnStor(['--json', 'stat', '/mnt/tank/spooled.txt'], { env: remoteEnv(serve) });
    expect(JSON.parse(st.stdout)).toMatchObject({ size: 'first part, and the rest'.length });
  });
});
