import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Appliance } from '../../src/core/appliance/appliance.js';
import { openTestAppliance } from '../helpers/appliance.js';
import { runStor } from '../helpers/run-stor.js';
import { tempDir } from '../helpers/temp-dir.js';

const PASSWORD = 'Corr3ct horse-battery';

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) =>
    statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [join(dir, name)],
  );
}

function embedded() {
  const home = tempDir();
  Appliance.open({ stateDir: home }).close();
  const outputs: string[] = [];
  const run = async (args: string[], stdin?: string) => {
    const r = await runStor(args, { env: { STOR_HOME: home }, ...(stdin !== undefined ? { stdin } : {}) });
    outputs.push(r.stdout, r.stderr);
    return r;
  };
  return { home, run, outputs };
}

describe('stor user and stor group on the embedded appliance', () => {
  it('creates a user with a password from stdin: the appliance takes it (auth.login), and it is in no output or state file', async () => {
    const { home, run, outputs } = embedded();
    const created = await run(
      [
        'user',
        'create',
        'alice',
        '--group',
        'ops',
        '--create-group',
        '--groups',
        'builtin_administrators',
        '--full-name',
        'Alice A',
        '--password-stdin',
        '--json',
      ],
      `${PASSWORD}\nignored second line\n`,
    );
    expect(created.code, created.stderr).toBe(0);
    const user = JSON.parse(created.stdout);
    expect(user).toMatchObject({
      username: 'alice',
      full_name: 'Alice A',
      group: 'ops',
      created: true,
      group_created: true,
      password_disabled: false,
      home: '/var/empty',
      builtin: false,
    });
    expect(user.groups).toContain('builtin_administrators');
    expect(user).not.toHaveProperty('password');
    expect(user).not.toHaveProperty('unixhash');
    // The group stor made for `--group ops` (not named like the user) is an ordinary local group.
    expect(JSON.parse((await run(['group', 'show', 'ops', '--json'])).stdout)).toMatchObject({
      name: 'ops',
      members: ['alice'],
      builtin: false,
    });

    const t = await openTestAppliance(undefined, home);
    expect(await t.call(t.session(), 'auth.login', 'alice', PASSWORD)).toBe(true);
    expect(await t.call(t.session(), 'auth.login', 'alice', `${PASSWORD}\nignored second line`)).toBe(false);
    t.appliance.close();

    await run(['user', 'show', 'alice']);
    await run(['user', 'list']);
    for (const out of outputs) expect(out).not.toContain(PASSWORD);
    for (const file of filesUnder(home)) expect(readFileSync(file).includes(PASSWORD), file).toBe(false);
  });

  it('refuses create without a password source (exit 2) or with an empty one, and creates nothing', async () => {
    const { run } = embedded();
    const none = await run(['user', 'create', 'bob']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--password-disabled');
    const empty = await run(['user', 'create', 'bob', '--password-stdin', '--json'], '\n');
    expect(empty.code).toBe(2);
    expect(JSON.parse(empty.stderr).error.code).toBe('NO_PASSWORD');
    const both = await run(['user', 'create', 'bob', '--password-stdin', '--password-disabled'], `${PASSWORD}\n`);
    expect(both.code).toBe(2);
    expect(
      JSON.parse((await run(['user', 'list', '--json'])).stdout).map((u: { username: string }) => u.username),
    ).not.toContain('bob');
  });

  it('--group: an existing group is used, a new one is made, and taken back when the appliance refuses the user', async () => {
    const { run } = embedded();
    await run(['group', 'create', 'ops']);
    expect(
      JSON.parse((await run(['user', 'create', 'ivy', '--group', 'ops', '--password-disabled', '--json'])).stdout),
    ).toMatchObject({ group: 'ops', group_created: false });
    const refused = await run([
      'user',
      'create',
      'jack',
      '--group',
      'fresh',
      '--create-group',
      '--shell',
      '/bin/nosuch',
      '--password-disabled',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('user_create.shell: Please select a valid shell.');
    expect((await run(['group', 'show', 'fresh'])).code).toBe(1);
    // Named like the user, the group comes from user.create's own group_create, undone with it (MW/plugins/account.py:646-668, 699).
    await run(['user', 'create', 'kim', '--group', 'kim', '--shell', '/bin/nosuch', '--password-disabled']);
    expect((await run(['group', 'show', 'kim'])).code).toBe(1);
  });

  it('lists users with typed fields, the primary group by name and the synthetic container user the appliance lists', async () => {
    const { run } = embedded();
    await run(['user', 'create', 'svc', '--password-disabled']);
    const users = JSON.parse((await run(['user', 'list', '--json'])).stdout) as Record<string, unknown>[];
    const svc = users.find((u) => u.username === 'svc')!;
    // group_create (MW/plugins/account.py:646-668): a group named like the user; password-less users are not SMB users.
    expect(svc).toMatchObject({
      group: 'svc',
      groups: [],
      password_disabled: true,
      smb: false,
      api_keys: 0,
      twofactor: false,
      locked: false,
      roles: [],
    });
    expect(Object.keys(svc).sort()).toEqual([
      'api_keys',
      'builtin',
      'full_name',
      'group',
      'groups',
      'home',
      'id',
      'locked',
      'password_disabled',
      'roles',
      'shell',
      'smb',
      'twofactor',
      'uid',
      'username',
    ]);
    expect(typeof svc.uid).toBe('number');
    const admin = users.find((u) => u.username === 'truenas_admin')!;
    expect(admin).toMatchObject({ group: 'truenas_admin', groups: ['builtin_administrators'], api_keys: 1 });
    expect(users.find((u) => u.username === 'truenas_container_unpriv_root')).toMatchObject({
      group: null,
      builtin: true,
      locked: true,
    });
    const piped = await run(['user', 'list']);
    expect(piped.stdout.split('\n').find((l) => l.startsWith(`${svc.uid}\t`))).toBe(
      `${svc.uid}\tsvc\tsvc\tsvc\t\tfalse\tfalse\tdisabled\tfalse\t0`,
    );
  });

  it('--exist-ok re-runs leave the user and group as they are and say so; without it the appliance refuses', async () => {
    const { run } = embedded();
    const first = JSON.parse(
      (await run(['user', 'create', 'carol', '--password-disabled', '--full-name', 'Carol', '--json'])).stdout,
    );
    const again = await run([
      'user',
      'create',
      'carol',
      '--password-disabled',
      '--full-name',
      'Someone else',
      '--shell',
      '/usr/bin/bash',
      '--exist-ok',
      '--json',
    ]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ ...first, created: false, group_created: false });
    const said = await run(['user', 'create', 'carol', '--password-disabled', '--exist-ok']);
    expect(said.stderr).toContain('user carol exists');
    expect(said.stderr).toContain('nothing was changed');
    const refused = await run(['user', 'create', 'carol', '--password-disabled']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('user_create.username: The username "carol" already exists.');

    expect(JSON.parse((await run(['group', 'create', 'ops', '--json'])).stdout)).toMatchObject({
      name: 'ops',
      created: true,
    });
    const groupAgain = await run(['group', 'create', 'ops', '--members', 'carol', '--exist-ok', '--json']);
    expect(JSON.parse(groupAgain.stdout)).toMatchObject({ name: 'ops', created: false, members: [] });
    expect((await run(['group', 'create', 'ops'])).stderr).toContain('already exists');
  });

  it('updates a user: rename, groups replaced, new password from stdin; nothing given is exit 2', async () => {
    const { home, run } = embedded();
    await run(['group', 'create', 'a']);
    await run(['group', 'create', 'b']);
    await run(
      ['user', 'create', 'dave', '--groups', 'a,b,builtin_administrators', '--password-stdin'],
      'first-Pass1\n',
    );
    const updated = await run(
      [
        'user',
        'update',
        'dave',
        '--name',
        'david',
        '--groups',
        'b,builtin_administrators',
        '--shell',
        '/usr/bin/bash',
        '--password-stdin',
        '--json',
      ],
      `${PASSWORD}\n`,
    );
    expect(updated.code, updated.stderr).toBe(0);
    const u = JSON.parse(updated.stdout);
    expect(u).toMatchObject({
      username: 'david',
      groups: ['b', 'builtin_administrators'],
      shell: '/usr/bin/bash',
      changed: ['username', 'groups', 'password', 'shell'],
    });
    expect(updated.stdout).not.toContain(PASSWORD);
    const t = await openTestAppliance(undefined, home);
    expect(await t.call(t.session(), 'auth.login', 'david', PASSWORD)).toBe(true);
    t.appliance.close();
    const nothing = await run(['user', 'update', 'david']);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('nothing to change');
    expect((await run(['user', 'update', 'david', '--groups', 'nosuch'])).stderr).toContain(
      'no local group with name or gid "nosuch"',
    );
    expect((await run(['user', 'show', 'dave'])).code).toBe(1);
  });

  it('deletes only with --yes off a terminal; --delete-group takes the primary group, else it stays', async () => {
    const { run } = embedded();
    await run(['user', 'create', 'erin', '--password-disabled']);
    await run(['user', 'create', 'frank', '--password-disabled']);
    const unconfirmed = await run(['user', 'delete', 'erin']);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('not on a terminal');
    expect((await run(['user', 'show', 'erin'])).code).toBe(0);

    expect(JSON.parse((await run(['user', 'delete', 'erin', '--yes', '--json'])).stdout)).toMatchObject({
      username: 'erin',
      group: 'erin',
      group_deleted: false,
    });
    expect((await run(['group', 'show', 'erin'])).code).toBe(0);
    expect(
      JSON.parse((await run(['user', 'delete', 'frank', '--yes', '--delete-group', '--json'])).stdout),
    ).toMatchObject({ username: 'frank', group_deleted: true });
    expect((await run(['group', 'show', 'frank'])).code).toBe(1);
  });

  it("refuses to delete built-in users and groups with the appliance's own errors, without asking", async () => {
    const { run } = embedded();
    // MW/plugins/account.py:1054 and :2159.
    const root = await run(['user', 'delete', 'root']);
    expect(root.code).toBe(1);
    expect(root.stderr).toContain('[EINVAL] Cannot delete a built-in user');
    const group = await run(['group', 'delete', 'builtin_users', '--json']);
    // The appliance's words, but not its EACCES (exit 5, "lacks the role"): no role would help, so
    // it is BUILTIN_GROUP (exit 1), and no hint sends the operator to whoami.
    expect(group.code).toBe(1);
    expect(JSON.parse(group.stderr).error).toMatchObject({
      code: 'BUILTIN_GROUP',
      kind: 'failed',
      message: 'A built-in group cannot be deleted.',
    });
    expect(JSON.parse(group.stderr).error.hint).not.toMatch(/whoami|role/);
    expect((await run(['group', 'show', 'builtin_users'])).code).toBe(0);
  });

  it('groups: members by name, replaced on update, renamed; delete asks, then goes', async () => {
    const { run } = embedded();
    await run(['user', 'create', 'gina', '--password-disabled']);
    await run(['user', 'create', 'hal', '--password-disabled']);
    const created = JSON.parse(
      (await run(['group', 'create', 'team', '--gid', '4100', '--members', 'gina,hal', '--json'])).stdout,
    );
    expect(created).toMatchObject({
      gid: 4100,
      name: 'team',
      members: ['gina', 'hal'],
      builtin: false,
      privileges: [],
      created: true,
    });
    const unknown = await run(['group', 'create', 'other', '--members', 'nosuchuser']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no local user named "nosuchuser"');
    expect((await run(['group', 'show', 'other'])).code).toBe(1);

    const updated = JSON.parse(
      (await run(['group', 'update', 'team', '--members', 'hal', '--name', 'crew', '--json'])).stdout,
    );
    expect(updated).toMatchObject({ gid: 4100, name: 'crew', members: ['hal'], changed: ['name', 'users'] });
    await run(['privilege', 'create', 'crewpriv', '--groups', 'crew', '--roles', 'READONLY_ADMIN']);
    const list = JSON.parse((await run(['group', 'list', '--json'])).stdout) as {
      name: string;
      privileges: string[];
      roles: string[];
    }[];
    expect(list.find((g) => g.name === 'crew')).toMatchObject({ privileges: ['crewpriv'], roles: ['READONLY_ADMIN'] });
    expect(list.find((g) => g.name === 'builtin_administrators')).toMatchObject({
      privileges: ['Local Administrator'],
    });

    // A group a privilege uses stays until the privilege lets go of it (MW/plugins/account_/privilege.py:327),
    // refused before anyone is asked, as GROUP_IN_USE (exit 1): not the role denial its EACCES looks like.
    expect((await run(['group', 'delete', '4100'])).code).toBe(1);
    const bound = await run(['group', 'delete', '4100', '--yes']);
    expect(bound.code).toBe(1);
    expect(bound.stderr).toContain("This group is used by privilege 'crewpriv'.");
    await run(['privilege', 'update', 'crewpriv', '--groups', '']);
    expect(JSON.parse((await run(['group', 'delete', '4100', '--yes', '--json'])).stdout)).toMatchObject({
      gid: 4100,
      name: 'crew',
      members: ['hal'],
    });
    expect((await run(['group', 'show', 'crew'])).code).toBe(1);
  });
});
