import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTestAppliance } from '../../helpers/appliance.js';

describe('a fresh state directory', () => {
  it('is seeded exactly as docs/ENVIRONMENT.md "Where state lives" lists', async () => {
    const t = await openTestAppliance();
    const groups = await t.call<{ name: string; gid: number }[]>(t.admin, 'group.query', [], {
      select: ['name', 'gid'],
    });
    // Then the image's 85 system groups (store/builtin-accounts.ts), after stor's own rows.
    expect(groups).toHaveLength(6 + 85);
    expect(groups.slice(0, 6)).toEqual([
      { name: 'builtin_administrators', gid: 544 },
      { name: 'builtin_users', gid: 545 },
      { name: 'builtin_guests', gid: 546 },
      { name: 'truenas_admin', gid: 950 },
      { name: 'truenas_readonly_administrators', gid: 951 },
      { name: 'truenas_sharing_administrators', gid: 952 },
    ]);
    const users = await t.call<{ username: string; uid: number; group: { bsdgrp_gid: number }; groups: number[] }[]>(
      t.admin,
      'user.query',
    );
    // user.query always ends with the synthetic container root (MW/plugins/account.py:444-452).
    // In between, the image's 53 system users (store/builtin-accounts.ts).
    expect(users).toHaveLength(2 + 53 + 1);
    expect([...users.slice(0, 2), users.at(-1)!].map((u) => [u.username, u.uid])).toEqual([
      ['root', 0],
      ['truenas_admin', 950],
      ['truenas_container_unpriv_root', 2147000001],
    ]);
    const admins = await t.call<{ users: number[] }>(t.admin, 'group.query', [['gid', '=', 544]], { get: true });
    expect(admins.users).toEqual(users.slice(0, 2).map((u) => (u as unknown as { id: number }).id));

    const raw = await t.call<(Record<string, unknown> & { local_groups: { gid: number }[] })[]>(
      t.admin,
      'privilege.query',
      [],
      {
        select: ['id', 'builtin_name', 'name', 'roles', 'web_shell', 'local_groups'],
      },
    );
    const privileges = raw.map(({ local_groups, ...p }) => ({ ...p, gid: local_groups.map((g) => g.gid)[0] }));
    expect(privileges).toEqual([
      {
        id: 1,
        builtin_name: 'LOCAL_ADMINISTRATOR',
        name: 'Local Administrator',
        roles: ['FULL_ADMIN'],
        web_shell: true,
        gid: 544,
      },
      {
        id: 2,
        builtin_name: 'READONLY_ADMINISTRATOR',
        name: 'Read-Only Administrator',
        roles: ['READONLY_ADMIN'],
        web_shell: false,
        gid: 951,
      },
      {
        id: 3,
        builtin_name: 'SHARING_ADMINISTRATOR',
        name: 'Sharing Administrator',
        roles: ['SHARING_ADMIN'],
        web_shell: false,
        gid: 952,
      },
    ]);

    expect(statSync(join(t.stateDir, 'mnt', 'tank')).isDirectory()).toBe(true);
    const keyFile = statSync(join(t.stateDir, 'admin.key'));
    expect(keyFile.mode & 0o777).toBe(0o600);
    expect(t.adminKey).toMatch(/^\d+-[A-Za-z0-9]{64}$/);
    expect(statSync(join(t.stateDir, 'stor.db')).mode & 0o777).toBe(0o600);
  });

  it('never stores an API key secret in clear', async () => {
    const t = await openTestAppliance();
    const created = await t.call<{ key: string }>(t.admin, 'api_key.create', {
      name: 'extra',
      username: 'truenas_admin',
    });
    const secrets = [t.adminKey, created.key].map((k) => k.slice(k.indexOf('-') + 1));
    t.appliance.close(); // checkpoint the WAL so every byte is in the files read below
    for (const file of readdirSync(t.stateDir).filter((f) => f.startsWith('stor.db'))) {
      const bytes = readFileSync(join(t.stateDir, file));
      for (const secret of secrets) {
        expect(bytes.includes(Buffer.from(secret))).toBe(false);
        expect(bytes.includes(Buffer.from(secret, 'utf16le'))).toBe(false);
      }
    }
  });

  it('keeps what was written across a reopen, and seeds only once', async () => {
    const t = await openTestAppliance();
    await t.call(t.admin, 'group.create', { name: 'ops', smb: false });
    const again = await t.reopen();
    expect(again.adminKey).toBe(t.adminKey);
    const groups = await again.call<string[]>(again.admin, 'group.query', [], { select: ['name'] });
    expect(groups).toHaveLength(7 + 85);
    expect(await again.call(again.admin, 'privilege.query', [], { count: true })).toBe(3);
  });
});

describe('accounts', () => {
  it('creates users with the next free uid from 3000, and refuses duplicates with EEXIST triples', async () => {
    const t = await openTestAppliance();
    const gid = await t.call<number>(t.admin, 'group.create', { name: 'ops', smb: false });
    const base = { full_name: 'A', group: gid, password_disabled: true, smb: false };
    const a = await t.call<{ uid: number; password: null }>(t.admin, 'user.create', { ...base, username: 'a' });
    const b = await t.call<{ uid: number }>(t.admin, 'user.create', { ...base, username: 'b' });
    expect([a.uid, b.uid]).toEqual([3000, 3001]);
    expect(a.password).toBeNull();
    const err = await t.callError(t.admin, 'user.create', { ...base, username: 'a', uid: 3001 });
    // common_validation checks the uid before the username (MW/plugins/account.py:1494-1516).
    expect(err.triples).toEqual([
      ['user_create.uid', 'Uid 3001 is already used (user b has it)', 17],
      ['user_create.username', 'The username "a" already exists.', 17],
    ]);
  });

  it('validates the group choice and the password rules', async () => {
    const t = await openTestAppliance();
    const err = await t.callError(t.admin, 'user.create', { username: 'x', full_name: 'X' });
    expect(err.triples).toEqual([
      ['user_create.group', 'Enter either a group name or create a new group to continue.', 22],
      ['user_create.password', 'Password is required', 22],
    ]);
    const smb = await t.callError(t.admin, 'user.create', {
      username: 'x',
      full_name: 'X',
      group_create: true,
      password_disabled: true,
    });
    expect(smb.triples).toEqual([
      ['user_create.password_disabled', 'Password authentication may not be disabled for SMB users.', 22],
    ]);
  });

  it('creates a group from group_create and adds SMB users to builtin_users', async () => {
    const t = await openTestAppliance();
    const u = await t.call<{ id: number; group: { bsdgrp_group: string; bsdgrp_gid: number }; groups: number[] }>(
      t.admin,
      'user.create',
      {
        username: 'sam',
        full_name: 'Sam',
        group_create: true,
        password: 'correct horse',
      },
    );
    expect(u.group).toMatchObject({ bsdgrp_group: 'sam', bsdgrp_gid: 3000 });
    const builtinUsers = await t.call<{ id: number; users: number[] }>(t.admin, 'group.query', [['gid', '=', 545]], {
      get: true,
    });
    expect(u.groups).toEqual([builtinUsers.id]);
    expect(builtinUsers.users).toContain(u.id);
  });

  it('refuses a group name or gid already taken', async () => {
    const t = await openTestAppliance();
    const err = await t.callError(t.admin, 'group.create', { name: 'truenas_admin', gid: 544 });
    expect(err.triples).toEqual([
      ['group_create.name', 'A Group with the name "truenas_admin" already exists.', 17],
      ['group_create.gid', 'Gid 544 is already used (group builtin_administrators has it)', 17],
      ['group_create.gid', "A privilege 'Local Administrator' already uses this group ID.", 22],
    ]);
  });

  it('creates, lists and deletes API keys; the key is shown once and users without a privilege get none', async () => {
    const t = await openTestAppliance();
    const created = await t.call<Record<string, unknown>>(t.admin, 'api_key.create', {
      name: 'ci',
      username: 'truenas_admin',
    });
    expect(created.key).toMatch(new RegExp(`^${created.id}-[A-Za-z0-9]{64}$`));
    expect(created.user_identifier).toBe('2');
    const listed = await t.call<Record<string, unknown>[]>(t.admin, 'api_key.query', [['name', '=', 'ci']]);
    expect(listed[0]).not.toHaveProperty('key');
    expect(listed[0]!.keyhash).toMatch(/^\$scrypt\$/);
    expect((await t.login(created.key as string)).ok).toBe(true);
    expect(await t.call(t.admin, 'api_key.delete', created.id)).toBe(true);
    expect((await t.login(created.key as string)).ok).toBe(false);

    const gid = await t.call<number>(t.admin, 'group.create', { name: 'nopriv', smb: false });
    await t.call(t.admin, 'user.create', {
      username: 'np',
      full_name: 'np',
      group: gid,
      password_disabled: true,
      smb: false,
    });
    const err = await t.callError(t.admin, 'api_key.create', { name: 'np', username: 'np' });
    expect(err.triples).toEqual([['api_key_create', 'User lacks privilege role membership.', 22]]);
  });
});
