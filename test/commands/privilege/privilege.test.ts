import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Appliance } from '../../../src/core/appliance/appliance.js';
import { release25101Catalogue } from '../../../src/core/roles/index.js';
import { insertPrivilege } from '../../../src/core/store/privileges.js';
import { createUserWithKey, openTestAppliance } from '../../helpers/appliance.js';
import { runStor } from '../../helpers/run-stor.js';
import { tempDir } from '../../helpers/temp-dir.js';

async function seeded(settings?: Parameters<typeof Appliance.open>[0]['settings']) {
  const home = tempDir();
  Appliance.open({ stateDir: home, ...(settings ? { settings } : {}) }).close();
  const run = (args: string[], o: { tty?: boolean } = {}) => runStor(args, { env: { STOR_HOME: home }, ...o });
  expect((await run(['call', 'group.create', '{"name":"ops","smb":false}'])).code).toBe(0);
  return run;
}

describe('stor privilege', () => {
  it('reduces FULL_ADMIN with 30 other roles to [FULL_ADMIN], effective roles unchanged', async () => {
    const run = await seeded();
    const others = release25101Catalogue()
      .names.filter((n) => n !== 'FULL_ADMIN' && !n.endsWith('PRODUCT_WRITE') && n !== 'PRIVILEGE_WRITE')
      .slice(0, 30);
    const roles = ['FULL_ADMIN', ...others];
    expect(
      (await run(['privilege', 'create', 'big', '--groups', 'ops', '--roles', roles.join(','), '--force'])).code,
    ).toBe(0);
    const fix = await run(['privilege', 'fix', 'big', '--yes', '--json']);
    expect(fix.code).toBe(0);
    expect(JSON.parse(fix.stdout).privileges[0]).toMatchObject({
      before: roles,
      after: ['FULL_ADMIN'],
      effective_before: 141,
      effective_after: 141,
      lost_roles: [],
    });
    const shown = JSON.parse((await run(['privilege', 'show', 'big', '--json'])).stdout);
    expect(shown.listed_roles).toEqual(['FULL_ADMIN']);
    expect(shown.health).toEqual(['ok']);
  });

  it('reports PRIVILEGE_WRITE as a lockout under truenas-25.10.1 and leaves it unless --drop-self-including, saying what that costs', async () => {
    const run = await seeded({ roleExpansion: 'truenas-25.10.1' });
    await run(['privilege', 'create', 'pw', '--groups', 'ops', '--roles', 'PRIVILEGE_WRITE,POOL_READ', '--force']);
    const list = JSON.parse((await run(['privilege', 'list', '--json'])).stdout);
    expect(list.find((p: { name: string }) => p.name === 'pw')).toMatchObject({
      health: ['self-including'],
      locks_out: true,
    });
    const kept = await run(['privilege', 'fix', 'pw', '--yes', '--json']);
    expect(kept.code).toBe(6);
    // The status says what exit 6 says: the list is not clean, it still locks out.
    expect(JSON.parse(kept.stdout).privileges[0]).toMatchObject({
      status: 'locks-out',
      after: ['PRIVILEGE_WRITE', 'POOL_READ'],
      still_locks_out: true,
    });
    const human = await run(['privilege', 'fix', 'pw', '--yes']);
    // Piped stdout is the data row; the explanation is for the operator, on stderr.
    expect(human.stdout).toMatch(/^4\tpw\tlocks-out\t\tPRIVILEGE_WRITE, POOL_READ\t/m);
    const dry = await run(['privilege', 'fix', 'pw', '--dry-run', '--json']);
    expect(dry.code).toBe(6);
    expect(JSON.parse(dry.stdout).privileges[0]).toMatchObject({ status: 'locks-out', still_locks_out: true });
    expect(human.stdout).not.toContain('includes itself');
    expect(human.stderr).toContain('PRIVILEGE_WRITE includes itself');
    expect(human.stderr).toContain('--drop-self-including');
    expect(human.stderr).toContain('loses privilege editing (privilege.create, privilege.update, privilege.delete)');
    expect(human.stderr).toContain('list PRIVILEGE_READ');

    const dropped = await run(['privilege', 'fix', 'pw', '--yes', '--drop-self-including', '--json']);
    expect(dropped.code).toBe(0);
    expect(JSON.parse(dropped.stdout).privileges[0]).toMatchObject({
      status: 'fixed',
      after: ['POOL_READ'],
      removed: [
        {
          role: 'PRIVILEGE_WRITE',
          reason: 'includes itself; loses privilege editing (privilege.create, privilege.update, privilege.delete)',
          keep: expect.stringContaining('PRIVILEGE_READ'),
        },
      ],
      lost_roles: ['PRIVILEGE_WRITE'],
      still_locks_out: false,
    });
  });

  it('check suggests exactly the list the fix it names writes, an unknown role in the list too', async () => {
    const home = tempDir();
    const appliance = Appliance.open({ stateDir: home });
    // A name this catalogue does not know (a role of another release): the API refuses to save
    // one, so it goes into the store directly, as an upgrade would leave it.
    insertPrivilege(appliance.store.db, {
      builtin_name: null,
      name: 'old',
      local_groups: [],
      ds_groups: [],
      roles: ['FULL_ADMIN', 'GONE_ROLE', 'POOL_READ', 'GONE_ROLE'],
      web_shell: false,
    });
    appliance.close();
    const run = (args: string[]) => runStor(args, { env: { STOR_HOME: home } });
    const checked = JSON.parse((await run(['privilege', 'check', '--json'])).stdout).privileges.find(
      (p: { name: string }) => p.name === 'old',
    );
    const next = /^next: stor privilege fix (\d+)(.*)$/m.exec((await run(['privilege', 'check'])).stderr)!;
    expect(next[2]).toBe(' --drop-unknown');
    const flags = next[2]!.split(' ').filter(Boolean);
    const planned = JSON.parse((await run(['privilege', 'fix', next[1]!, ...flags, '--dry-run', '--json'])).stdout)
      .privileges[0];
    // Before, check suggested [FULL_ADMIN] while the `stor privilege fix N` it named wrote [FULL_ADMIN, GONE_ROLE].
    expect(checked.suggested_roles).toEqual(['FULL_ADMIN']);
    expect(planned.after).toEqual(checked.suggested_roles);
    expect(planned.removed.map((r: { role: string; reason: string }) => `${r.role}: ${r.reason}`)).toEqual([
      'GONE_ROLE: not a role of this appliance',
      'POOL_READ: included by FULL_ADMIN',
      'GONE_ROLE: not a role of this appliance',
    ]);
    // Without --drop-unknown the fix keeps a name it does not know, and says so.
    expect(
      JSON.parse((await run(['privilege', 'fix', 'old', '--dry-run', '--json'])).stdout).privileges[0].after,
    ).toEqual(['FULL_ADMIN', 'GONE_ROLE']);
  });

  it('never rewrites built-in privileges and reports clean ones with exit 0', async () => {
    const run = await seeded();
    const all = await run(['privilege', 'fix', '--all', '--json']);
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout).privileges.map((p: { status: string }) => p.status)).toEqual([
      'builtin',
      'builtin',
      'builtin',
    ]);
    expect((await run(['privilege', 'check'])).code).toBe(0);
  });

  it('--dry-run shows the change and changes nothing', async () => {
    const run = await seeded();
    await run(['privilege', 'create', 'ops', '--groups', 'ops', '--roles', 'READONLY_ADMIN,POOL_READ', '--force']);
    const dry = await run(['privilege', 'fix', 'ops', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('\tops\twould-fix\tPOOL_READ (included by READONLY_ADMIN)\tREADONLY_ADMIN\t');
    expect(dry.stderr).toContain(
      'stor: dry run: nothing is rewritten. Without --dry-run, stor would rewrite 1 privilege.',
    );
    expect(JSON.parse((await run(['privilege', 'show', 'ops', '--json'])).stdout).listed_roles).toEqual([
      'READONLY_ADMIN',
      'POOL_READ',
    ]);
  });

  it('--dry-run reads as a dry run ("would"), agrees with the real run on success, and the real run then does it', async () => {
    const run = await seeded();
    await run(['privilege', 'create', 'ops', '--groups', 'ops', '--roles', 'READONLY_ADMIN,POOL_READ', '--force']);
    const dry = await run(['privilege', 'fix', 'ops', '--dry-run']);
    expect(dry.code).toBe(0);
    // Piped, the plan is one tab-separated row; the words that it is a dry run are on stderr.
    expect(dry.stdout).toMatch(
      /^\d+\tops\twould-fix\tPOOL_READ \(included by READONLY_ADMIN\)\tREADONLY_ADMIN\t(\d+)→\1\t\n$/,
    );
    expect(dry.stderr).toBe(
      'stor: dry run: nothing is rewritten. Without --dry-run, stor would rewrite 1 privilege.\n',
    );
    // On a terminal the headers say what would happen.
    const tty = await run(['privilege', 'fix', 'ops', '--dry-run'], { tty: true });
    expect(stripVTControlCharacters(tty.stdout)).toMatch(/WOULD DROP\s+WOULD BECOME\s+EFFECTIVE\s+WOULD LOSE/);
    expect(`${dry.stdout}${dry.stderr}${tty.stdout}`).not.toMatch(/changed|fixed|becomes:|\bDROPPED\b|ROLES AFTER/i);
    const dryJson = JSON.parse((await run(['privilege', 'fix', 'ops', '--dry-run', '--json'])).stdout);
    expect(dryJson).toMatchObject({
      dry_run: true,
      privileges: [{ name: 'ops', status: 'would-fix', after: ['READONLY_ADMIN'] }],
    });

    const real = await run(['privilege', 'fix', 'ops', '--yes', '--json']);
    expect(real.code).toBe(dry.code);
    expect(JSON.parse(real.stdout)).toMatchObject({
      dry_run: false,
      privileges: [{ name: 'ops', status: 'fixed', after: dryJson.privileges[0].after }],
    });
  });

  it('--dry-run fails as the real run does: exit 5 for an identity without PRIVILEGE_WRITE, exit 6 for a lockout it leaves', async () => {
    const home = tempDir();
    Appliance.open({ stateDir: home, settings: { roleExpansion: 'truenas-25.10.1' } }).close();
    const run = (args: string[], env: Record<string, string> = {}) =>
      runStor(args, { env: { STOR_HOME: home, ...env } });
    expect((await run(['call', 'group.create', '{"name":"ops","smb":false}'])).code).toBe(0);
    await run(['privilege', 'create', 'ops', '--groups', 'ops', '--roles', 'READONLY_ADMIN,POOL_READ', '--force']);
    const t = await openTestAppliance(undefined, home);
    const { key } = await createUserWithKey(t, 'viewer', { privilegeRoles: ['READONLY_ADMIN'] });
    t.appliance.close();
    const dry = await run(['privilege', 'fix', 'ops', '--dry-run'], { STOR_API_KEY: key });
    const real = await run(['privilege', 'fix', 'ops', '--yes'], { STOR_API_KEY: key });
    expect({ code: dry.code, stdout: dry.stdout }).toEqual({ code: 5, stdout: '' });
    expect(dry.stderr).toContain('[EACCES] Not authorized');
    expect(real.code).toBe(dry.code);
    expect(real.stderr).toContain('[EACCES] Not authorized');
    expect(JSON.parse((await run(['privilege', 'show', 'ops', '--json'])).stdout).listed_roles).toEqual([
      'READONLY_ADMIN',
      'POOL_READ',
    ]);

    await run(['privilege', 'create', 'pw', '--groups', 'ops', '--roles', 'PRIVILEGE_WRITE,POOL_READ', '--force']);
    const dryKept = await run(['privilege', 'fix', 'pw', '--dry-run']);
    const realKept = await run(['privilege', 'fix', 'pw', '--yes']);
    expect([dryKept.code, realKept.code]).toEqual([6, 6]);
    expect(dryKept.stdout).toMatch(/^\d+\tpw\tlocks-out\t/);
    expect(dryKept.stderr).toMatch(/would keep: PRIVILEGE_WRITE includes itself/);
    expect(`${dryKept.stdout}${dryKept.stderr}`).not.toMatch(/changed|fixed/i);
  });

  it('create refuses what locks users out on this target (as-reported: an overlap), unless --force, and resolves groups by name or gid', async () => {
    const run = await seeded({ roleExpansion: 'as-reported' });
    const refused = await run([
      'privilege',
      'create',
      'ops',
      '--groups',
      'ops',
      '--roles',
      'SHARING_ADMIN,READONLY_ADMIN',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('READONLY_ADMIN is already included by SHARING_ADMIN');
    expect(refused.stderr).toContain('on the emulator (as-reported)');
    expect(JSON.parse((await run(['privilege', 'list', '--json'])).stdout)).toHaveLength(3);
    const unknown = await run(['privilege', 'create', 'ops', '--groups', 'ops', '--roles', 'NOPE']);
    expect(unknown.code).toBe(2);
    const ok = await run([
      'privilege',
      'create',
      'ops',
      '--groups',
      '3000',
      '--roles',
      'SHARING_ADMIN',
      '--web-shell',
      '--json',
    ]);
    expect(JSON.parse(ok.stdout)).toMatchObject({
      name: 'ops',
      groups: ['ops'],
      roles: ['SHARING_ADMIN'],
      web_shell: true,
      health: ['ok'],
    });
    const updated = await run([
      'privilege',
      'update',
      'ops',
      '--no-web-shell',
      '--roles',
      'POOL_READ',
      '--roles',
      'DATASET_READ',
      '--json',
    ]);
    expect(JSON.parse(updated.stdout)).toMatchObject({ roles: ['POOL_READ', 'DATASET_READ'], web_shell: false });
  });

  it('under truenas-25.10.1 an overlap is saved with a warning, and a self-including role is refused', async () => {
    const run = await seeded({ roleExpansion: 'truenas-25.10.1' });
    const overlap = await run([
      'privilege',
      'create',
      'ops',
      '--groups',
      'ops',
      '--roles',
      'FILESYSTEM_FULL_CONTROL,FILESYSTEM_DATA_WRITE',
      '--json',
    ]);
    expect(overlap.code).toBe(0);
    expect(overlap.stderr).toContain(
      'warning: [1] FILESYSTEM_DATA_WRITE is already included by FILESYSTEM_FULL_CONTROL: redundant; harmless on the emulator (truenas-25.10.1)',
    );
    expect(JSON.parse(overlap.stdout)).toMatchObject({
      roles: ['FILESYSTEM_FULL_CONTROL', 'FILESYSTEM_DATA_WRITE'],
      health: ['overlap'],
    });
    const self = await run(['privilege', 'update', 'ops', '--roles', 'PRIVILEGE_WRITE,POOL_READ']);
    expect(self.code).toBe(1);
    expect(self.stderr).toContain('PRIVILEGE_WRITE includes itself');
    expect(self.stderr).toContain('list PRIVILEGE_READ');
    expect(JSON.parse((await run(['privilege', 'show', 'ops', '--json'])).stdout).listed_roles).toEqual([
      'FILESYSTEM_FULL_CONTROL',
      'FILESYSTEM_DATA_WRITE',
    ]);
  });

  it('with reject-overlap the appliance refuses the list with -32602 naming the index and the including role', async () => {
    const strict = await seeded({ roleLists: 'reject-overlap' });
    const r = await strict([
      'call',
      'privilege.create',
      '{"name":"ops","web_shell":false,"local_groups":[3000],"roles":["FILESYSTEM_FULL_CONTROL","FILESYSTEM_DATA_WRITE"]}',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      '* privilege_create.roles.1: FILESYSTEM_DATA_WRITE is already included by FILESYSTEM_FULL_CONTROL (index 0)',
    );
    const forced = await strict([
      'privilege',
      'create',
      'ops',
      '--groups',
      'ops',
      '--roles',
      'FILESYSTEM_FULL_CONTROL,FILESYSTEM_DATA_WRITE',
      '--force',
    ]);
    expect(forced.code).toBe(1);

    const lenient = await seeded();
    const accepted = await lenient([
      'call',
      'privilege.create',
      '{"name":"ops","web_shell":false,"local_groups":[3000],"roles":["FILESYSTEM_FULL_CONTROL","FILESYSTEM_DATA_WRITE"]}',
    ]);
    expect(accepted.code).toBe(0);
  });
});

describe('stor privilege delete and roles', () => {
  it('delete asks first, then the privilege is gone from the appliance; one that is not there is named (exit 1)', async () => {
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
    const run = (args: string[]) => runStor(args, { env });
    await run(['group', 'create', 'ops']);
    expect((await run(['privilege', 'create', 'ops', '--groups', 'ops', '--roles', 'READONLY_ADMIN'])).code).toBe(0);
    const names = async () =>
      (JSON.parse((await run(['privilege', 'list', '--json'])).stdout) as { name: string }[]).map((p) => p.name);
    expect(await names()).toContain('ops');
    expect((await run(['privilege', 'delete', 'ops'])).code).toBe(2);
    expect(await names()).toContain('ops');
    const deleted = await run(['privilege', 'delete', 'ops', '--yes']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(await names()).not.toContain('ops');
    const gone = await run(['privilege', 'delete', 'zz', '--yes']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('no privilege with id or name "zz"');
  });

  it('roles lists the roles the appliance knows, READONLY_ADMIN among them', async () => {
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
    const r = await runStor(['privilege', 'roles', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(r.stdout))).toContain('READONLY_ADMIN');
  });
});
