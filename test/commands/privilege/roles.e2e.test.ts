import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import catalogueData from '../../../src/core/roles/roles-25.10.1.json' with { type: 'json' };
import { storIn } from '../../helpers/run-stor.js';
import { stor } from '../../helpers/runbook.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { startStandinAppliance } from '../../helpers/standin-appliance.js';
import { tempDir } from '../../helpers/temp-dir.js';

type Env = Record<string, string>;

/**
 * privilege delete and privilege roles on whichever target `env` points at, through `run`: the
 * built binary against stor serve, in-process (the same `run()` the binary calls) on the embedded
 * target, where the process is not what these tests are about.
 */
async function privilegeWalk(env: Env, run: ReturnType<typeof stor> = stor(env)) {
  await run(['call', 'group.create', JSON.stringify({ name: 'ops', smb: false })]);
  await run(['privilege', 'create', 'operators', '--groups', 'ops', '--roles', 'READONLY_ADMIN']);

  // Built-in privileges: refused as the appliance refuses them (MW/plugins/account_/privilege.py:163), --yes or not.
  const builtin = await run(['privilege', 'delete', '1', '--yes'], 1);
  expect(builtin.stderr).toContain('[EPERM] Unable to delete built-in privilege');
  expect((await run(['privilege', 'delete', '1'], 1)).stderr).toBe(builtin.stderr);
  expect((await run(['privilege', 'delete', 'nobody', '--yes'], 1)).stderr).toContain(
    'no privilege with id or name "nobody"',
  );

  expect((await run(['privilege', 'delete', 'operators'], 2)).stderr).toContain('--yes');
  const deleted = JSON.parse((await run(['privilege', 'delete', 'operators', '--yes', '--json'])).stdout);
  expect(deleted).toMatchObject({ name: 'operators', groups: ['ops'], roles: ['READONLY_ADMIN'], deleted: true });
  const left = JSON.parse((await run(['privilege', 'list', '--json'])).stdout) as {
    name: string;
    builtin_name: string | null;
  }[];
  expect(left.every((p) => p.builtin_name !== null)).toBe(true);

  // The catalogue: one row per role, counts direct and total.
  const roles = JSON.parse((await run(['privilege', 'roles', '--json'])).stdout) as {
    name: string;
    includes_directly: number;
    includes_in_total: number;
    self_including: boolean;
    builtin: boolean;
  }[];
  expect(roles).toHaveLength(Object.keys(catalogueData).length);
  expect(roles.find((r) => r.name === 'PRIVILEGE_WRITE')).toMatchObject({
    includes_directly: 1,
    includes_in_total: 1,
    self_including: true,
  });
  expect(roles.find((r) => r.name === 'FULL_ADMIN')).toMatchObject({
    includes_directly: 0,
    includes_in_total: roles.length - 1,
    self_including: false,
  });
  const piped = (await run(['privilege', 'roles'])).stdout.split('\n');
  expect(piped).toContain('PRIVILEGE_WRITE\t1\t1\ttrue\ttrue');

  const readonly = JSON.parse((await run(['privilege', 'roles', 'READONLY_ADMIN', '--json'])).stdout);
  expect(readonly.includes.directly).toEqual(catalogueData.READONLY_ADMIN.includes);
  expect(readonly.included_by.in_total).toContain('FULL_ADMIN');
  const privilegeRead = JSON.parse((await run(['privilege', 'roles', 'PRIVILEGE_READ', '--json'])).stdout);
  expect(privilegeRead.included_by.directly).toContain('READONLY_ADMIN');
  expect(privilegeRead.includes).toEqual({ directly: [], in_total: [] });

  // PRIVILEGE_WRITE includes itself on 25.10.1 (and nothing else).
  const tree = await run(['privilege', 'roles', 'PRIVILEGE_WRITE', '--tree']);
  expect(tree.stdout).toBe('PRIVILEGE_WRITE\n└─ PRIVILEGE_WRITE  [includes itself]\n');
  expect(JSON.parse((await run(['privilege', 'roles', 'PRIVILEGE_WRITE', '--tree', '--json'])).stdout).tree).toEqual({
    role: 'PRIVILEGE_WRITE',
    mark: null,
    children: [{ role: 'PRIVILEGE_WRITE', mark: 'self', children: [] }],
  });

  const unknown = await run(['privilege', 'roles', 'NOT_A_ROLE', '--json'], 2);
  expect(JSON.parse(unknown.stderr).error).toMatchObject({
    code: 'UNKNOWN_ROLE',
    message: 'not a role of this appliance: NOT_A_ROLE',
  });
}

describe('stor privilege delete and privilege roles', () => {
  it('on the embedded target', async () => {
    const env = { STOR_HOME: tempDir() };
    await privilegeWalk(env, storIn(env));
  });

  it('against stor serve', async () => {
    const server = await spawnServe(tempDir());
    await privilegeWalk({
      STOR_HOME: tempDir(),
      STOR_URL: server.baseUrl,
      STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
    });
  });

  it("draws a longer cycle in a target's own catalogue, marking where it closes", async () => {
    const role = (name: string, includes: string[]) => ({
      name,
      title: `${name} title`,
      includes,
      builtin: false,
      stig: 1,
    });
    const nas = await startStandinAppliance({
      'auth.login_with_api_key': { result: true },
      'privilege.roles': {
        result: [
          role('LOOP_A', ['LOOP_B', 'PLAIN']),
          role('LOOP_B', ['LOOP_C']),
          role('LOOP_C', ['LOOP_A']),
          role('PLAIN', []),
          role('FULL_ADMIN', []),
        ],
      },
    });
    // In-process (storIn): what the stand-in is asked, and the answer drawn, not the process.
    const run = storIn({
      STOR_HOME: tempDir(),
      STOR_CONFIG_DIR: tempDir(),
      STOR_URL: nas.baseUrl,
      STOR_API_KEY: `7-${'k'.repeat(64)}`,
    });
    const tree = await run(['privilege', 'roles', 'LOOP_A', '--tree']);
    expect(tree.stdout.split('\n')).toEqual([
      'LOOP_A',
      '├─ LOOP_B',
      '│  └─ LOOP_C',
      '│     └─ LOOP_A  [cycle: already above]',
      '└─ PLAIN',
      '',
    ]);
    const detail = JSON.parse((await run(['privilege', 'roles', 'LOOP_B', '--json'])).stdout);
    expect(detail).toMatchObject({
      title: 'LOOP_B title',
      self_including: true,
      includes: { directly: ['LOOP_C'], in_total: ['LOOP_A', 'LOOP_B', 'LOOP_C', 'PLAIN'] },
      included_by: { directly: ['LOOP_A'], in_total: ['LOOP_A', 'LOOP_B', 'LOOP_C', 'FULL_ADMIN'] },
    });
  });
});
