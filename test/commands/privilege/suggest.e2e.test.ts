/**
 * `stor privilege suggest`, the built binary against the embedded appliance
 * and two `stor serve` whose catalogues differ (25.10.1, 26.0).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { spawnStor } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { sessionEnv } from '../../helpers/session.js';
import { stor } from '../../helpers/runbook.js';
import { spawnServe, type ServeProcess } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';

interface Suggestion {
  roles: string[];
  full_admin_only: string[];
  no_role_needed: string[];
  methods: { method: string; granted_by: string | null; granted_by_roles: string[]; commands: string[] }[];
  locks_out: boolean;
  catalogue: string;
}

const servers: ServeProcess[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

describe('privilege suggest on the embedded appliance', () => {
  const embedded = () => {
    const env = clientEnv();
    return { env, run: stor(env) };
  };

  it('--for "dataset create": DATASET_WRITE and nothing broader', async () => {
    const { run } = embedded();
    const data = JSON.parse(
      (await run(['privilege', 'suggest', '--for', 'dataset create', '--json'])).stdout,
    ) as Suggestion;
    expect(data.roles).toEqual(['DATASET_WRITE']);
    expect(data.methods.map((m) => [m.method, m.granted_by, m.commands])).toEqual([
      ['pool.dataset.create', 'DATASET_WRITE', ['dataset create']],
      ['pool.dataset.query', 'DATASET_WRITE', ['dataset create']],
    ]);
    // Broader roles grant it too; the target says so, and they are not suggested.
    expect(data.methods[0]!.granted_by_roles).toContain('SHARING_ADMIN');
    const piped = await run(['privilege', 'suggest', '--for', 'dataset create']);
    expect(piped.stdout).toMatch(/^roles\tDATASET_WRITE$/m);
  });

  it('--methods: one least role per method; filesystem.put says plainly that only FULL_ADMIN can', async () => {
    const { run } = embedded();
    const two = JSON.parse(
      (await run(['privilege', 'suggest', '--methods', 'pool.dataset.create,filesystem.stat', '--json'])).stdout,
    ) as Suggestion;
    expect(two.roles).toEqual(['DATASET_WRITE', 'FILESYSTEM_ATTRS_READ']);
    const put = await run(['privilege', 'suggest', '--methods', 'filesystem.put']);
    expect(put.stdout).toMatch(/^roles\tFULL_ADMIN$/m);
    expect(put.stdout).toMatch(/^only FULL_ADMIN can call\tfilesystem.put$/m);
    expect(put.stderr).toContain('only FULL_ADMIN can call filesystem.put on this target (the /_upload/ endpoint');
    const upload = JSON.parse(
      (await run(['privilege', 'suggest', '--for', 'upload, dataset create', '--json'])).stdout,
    ) as Suggestion;
    expect(upload).toMatchObject({ roles: ['FULL_ADMIN'], full_admin_only: ['filesystem.put'] });
  });

  it('an unknown command is a usage error listing those stor can answer for; an unknown method is named', async () => {
    const { env } = embedded();
    const bad = await spawnStor(['privilege', 'suggest', '--for', 'dataset create, frobnicate'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--for names a command stor cannot answer for: frobnicate');
    expect(bad.stderr).toMatch(/hint: commands that declare the methods they call: .*dataset create.*upload/);
    const missing = await spawnStor(
      ['privilege', 'suggest', '--methods', 'pool.dataset.create,pool.dataset.frob', '--json'],
      { env },
    );
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stderr).error).toMatchObject({
      code: 'METHOD_NOT_FOUND',
      message: 'the target lists no method pool.dataset.frob',
    });
    const none = await spawnStor(['privilege', 'suggest'], { env });
    expect(none.code).toBe(2);
  });

  it('--privilege NAME prints a desired-state fragment; -o writes it, and will not replace a file without --force', async () => {
    const { env, run } = embedded();
    const printed = await run([
      'privilege',
      'suggest',
      '--for',
      'snapshot create, snapshot delete',
      '--privilege',
      'backup',
    ]);
    expect(parseYaml(printed.stdout)).toEqual({
      stor_state: 1,
      privileges: [{ name: 'backup', roles: ['SNAPSHOT_DELETE', 'SNAPSHOT_WRITE'], groups: [], web_shell: false }],
    });
    const dir = tempDir();
    const file = join(dir, 'backup.yaml');
    const written = await spawnStor(
      ['privilege', 'suggest', '--for', 'dataset create', '--privilege', 'ops', '-o', file],
      { env, cwd: dir },
    );
    expect(written.code, written.stderr).toBe(0);
    expect(parseYaml(readFileSync(file, 'utf8'))).toEqual({
      stor_state: 1,
      privileges: [{ name: 'ops', roles: ['DATASET_WRITE'], groups: [], web_shell: false }],
    });
    writeFileSync(file, 'mine\n');
    const again = await spawnStor(
      ['privilege', 'suggest', '--for', 'dataset create', '--privilege', 'ops', '-o', file],
      { env },
    );
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`${file} exists`);
    expect(readFileSync(file, 'utf8')).toBe('mine\n');
    expect(
      (
        await spawnStor(
          ['privilege', 'suggest', '--for', 'dataset create', '--privilege', 'ops', '-o', file, '--force'],
          { env },
        )
      ).code,
    ).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('DATASET_WRITE');
    const noName = await spawnStor(['privilege', 'suggest', '--for', 'dataset create', '-o', join(dir, 'x.yaml')], {
      env,
    });
    expect(noName.code).toBe(2);
    expect(existsSync(join(dir, 'x.yaml'))).toBe(false);
  });
});

describe('privilege suggest judges by each target: stor serve --emulate truenas-25.10.1 and truenas-26.0', () => {
  it('privilege.update + privilege.query: two roles on 25.10.1 (PRIVILEGE_WRITE includes itself, locks out), one on 26.0; --targets asks both', async () => {
    const [nas1, nas2] = await Promise.all(
      ['truenas-25.10.1', 'truenas-26.0'].map((e) => spawnServe(tempDir(), ['--emulate', e])),
    );
    servers.push(nas1!, nas2!);
    // 26 logs keys in with SCRAM, counted against auth.login_ex's rate limit: the agent logs in once per server.
    const env = { ...clientEnv(), ...sessionEnv().env, STOR_USER: 'truenas_admin' };
    for (const [name, server] of [
      ['nas1', nas1!],
      ['nas2', nas2!],
    ] as const) {
      const login = await spawnStor(['login', '--url', server.baseUrl, '--api-key-stdin', '--profile', name], {
        env,
        stdin: readFileSync(server.adminKeyFile, 'utf8').trim(),
      });
      expect(login.code, login.stderr).toBe(0);
    }
    const args = ['privilege', 'suggest', '--methods', 'privilege.update,privilege.query', '--json'];
    const one = await spawnStor(['--profile', 'nas1', ...args], { env });
    expect(one.code, one.stderr).toBe(0);
    // PRIVILEGE_WRITE lists itself in 25.10.1 (MW/role.py:62) and nothing else grants privilege.update.
    expect(JSON.parse(one.stdout)).toMatchObject({
      roles: ['PRIVILEGE_READ', 'PRIVILEGE_WRITE'],
      locks_out: true,
      catalogue: 'target',
    });
    expect(one.stderr).toContain('locks its users out');
    const two = await spawnStor(['--profile', 'nas2', ...args], { env });
    expect(two.code, two.stderr).toBe(0);
    // stable/26 MW/role.py:64: PRIVILEGE_WRITE includes PRIVILEGE_READ, not itself.
    expect(JSON.parse(two.stdout)).toMatchObject({ roles: ['PRIVILEGE_WRITE'], locks_out: false });

    const both = await spawnStor(['--targets', 'nas1,nas2', ...args], { env });
    expect(both.code, both.stderr).toBe(0);
    const outcomes = JSON.parse(both.stdout) as { target: string; data: Suggestion }[];
    expect(outcomes.map((o) => [o.target, o.data.roles])).toEqual([
      ['nas1', ['PRIVILEGE_READ', 'PRIVILEGE_WRITE']],
      ['nas2', ['PRIVILEGE_WRITE']],
    ]);
    const fragment = await spawnStor(
      ['--targets', 'nas1,nas2', 'privilege', 'suggest', '--for', 'dataset create', '--privilege', 'ops'],
      { env },
    );
    expect(fragment.code).toBe(2);
    expect(fragment.stderr).toContain('--privilege writes one fragment, for one target');
  });
});
