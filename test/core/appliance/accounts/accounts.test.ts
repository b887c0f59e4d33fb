/**
 * user.* and group.* of `stor serve --emulate truenas-25.10.1`, driven with raw JSON-RPC frames:
 * every answer checked against the contract (MW/api/v25_10_1/user.py, group.py) and every error
 * against the literal texts and codes of the 25.10.1 source (MW/plugins/account.py,
 * MW/plugins/account_/privilege.py).
 */
import { describe, expect, it } from 'vitest';
import { createUserWithKey } from '../../../helpers/appliance.js';
import { loggedInWs, type RpcReply, type WsClient } from '../../../helpers/server.js';
import { server25, conforming } from '../../../conformance/harness.js';

type Entry = Record<string, any>;

async function admin(): Promise<{ ws: WsClient; server: Awaited<ReturnType<typeof server25>> }> {
  const server = await server25();
  return { ws: await loggedInWs(server.rpcUrl, server.adminKey), server };
}

/** A ValidationErrors answer: -32602, errno 22 outside, the triples in `extra`. */
async function validationError(
  client: WsClient,
  method: string,
  params: unknown[],
): Promise<[string, string, number][]> {
  const reply = await client.call(method, params);
  expect(reply.error?.code).toBe(-32602);
  expect(reply.error?.data).toMatchObject({ error: 22, errname: 'EINVAL' });
  return reply.error!.data!.extra as [string, string, number][];
}

/** A CallError answer: -32001 with the errno, its name and `[ERRNAME] text`. */
function expectCallError(reply: RpcReply, errno: number, errname: string, text: string): void {
  expect(reply.error?.code).toBe(-32001);
  expect(reply.error?.data).toMatchObject({ error: errno, errname, reason: `[${errname}] ${text}`, extra: null });
}

const userIdOf = async (ws: WsClient, username: string) =>
  (await ws.result<Entry[]>('user.query', [[['username', '=', username]]]))[0]!.id as number;
const groupIdOf = async (ws: WsClient, name: string) =>
  (await ws.result<Entry[]>('group.query', [[['name', '=', name]]]))[0]!.id as number;

/** A password-less, non-SMB user in a new group of its own; returns [user id, group id]. */
async function plainUser(ws: WsClient, username: string): Promise<[number, number]> {
  const user = await ws.result<Entry>('user.create', [
    { username, full_name: username, group_create: true, password_disabled: true, smb: false },
  ]);
  return [user.id, user.group.id];
}

describe('user.query / user.get_instance (MW/api/v25_10_1/user.py UserEntry)', () => {
  it('lists the local users and then the synthetic truenas_container_unpriv_root (MW/plugins/account.py:444-452, MW/plugins/idmap.py:426-463)', async () => {
    const { ws } = await admin();
    const users = await conforming<Entry[]>(ws, 'user.query');
    // Between them, the image's system users, built in (builtin-accounts.test.ts).
    expect([...users.slice(0, 2), users.at(-1)!].map((u) => u.username)).toEqual([
      'root',
      'truenas_admin',
      'truenas_container_unpriv_root',
    ]);
    expect(users.slice(2, -1).every((u) => u.builtin)).toBe(true);
    expect(users.at(-1)).toEqual({
      id: 2247000001,
      uid: 2147000001,
      username: 'truenas_container_unpriv_root',
      unixhash: null,
      smbhash: null,
      home: '/var/empty',
      shell: '/usr/sbin/nologin',
      full_name: 'Unprivileged root user for containers',
      builtin: true,
      smb: false,
      userns_idmap: null,
      group: {},
      groups: [],
      password_disabled: false,
      ssh_password_enabled: false,
      sshpubkey: null,
      locked: true,
      sudo_commands: [],
      sudo_commands_nopasswd: [],
      email: null,
      local: true,
      immutable: true,
      twofactor_auth_configured: false,
      sid: null,
      last_password_change: null,
      password_age: null,
      password_history: null,
      password_change_required: false,
      roles: [],
      api_keys: [],
    });
    const admin950 = users[1]!;
    expect(admin950).toMatchObject({
      immutable: true,
      builtin: false,
      local: true,
      password_history: [],
      roles: ['FULL_ADMIN'],
    });
    expect(admin950.group).toMatchObject({ bsdgrp_gid: 950, bsdgrp_group: 'truenas_admin', bsdgrp_userns_idmap: 0 });
  });

  it('user.get_instance answers the entry, and `User <id> does not exist` (ENOENT) for an unknown id (MW/service/crud_service.py:242)', async () => {
    const { ws } = await admin();
    const entry = await conforming<Entry>(ws, 'user.get_instance', [await userIdOf(ws, 'truenas_admin')]);
    expect(entry.username).toBe('truenas_admin');
    expect(await conforming(ws, 'user.get_instance', [2247000001])).toMatchObject({
      username: 'truenas_container_unpriv_root',
    });
    const reply = await ws.call('user.get_instance', [999]);
    expect(reply.error?.code).toBe(-32602);
    expect(reply.error?.data).toMatchObject({
      reason: '[ENOENT] None: User 999 does not exist',
      extra: [[null, 'User 999 does not exist', 2]],
    });
  });

  it('shows Secret fields as ******** to a caller without FULL_ADMIN or ACCOUNT_WRITE (MW/main.py:834-845)', async () => {
    const server = await server25();
    const { key } = await createUserWithKey(server.testAppliance, 'reader', { privilegeRoles: ['READONLY_ADMIN'] });
    const ws = await loggedInWs(server.rpcUrl, key);
    const users = await conforming<Entry[]>(ws, 'user.query', [[['username', '=', 'reader']]]);
    expect(users[0]).toMatchObject({ unixhash: '********', smbhash: '********', password_history: '********' });
  });
});

describe('user.create (MW/plugins/account.py:612-764)', () => {
  it('answers the entry plus a 20-character random password, in builtin_users when smb (MW/plugins/account.py:684-688)', async () => {
    const { ws } = await admin();
    const created = await conforming<Entry>(ws, 'user.create', [
      { username: 'alice', full_name: 'Alice', group_create: true, random_password: true, email: 'alice@example.com' },
    ]);
    expect(created.password).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(created).toMatchObject({
      uid: 3000,
      smb: true,
      email: 'alice@example.com',
      password_age: 0,
      local: true,
      immutable: false,
    });
    expect(created.sid).toMatch(/^S-1-5-21-\d+-\d+-\d+-\d+$/);
    expect(created.groups).toEqual([await groupIdOf(ws, 'builtin_users')]);
  });

  it('defaults home to /var/empty and shell to /usr/bin/zsh (MW/plugins/account_/constants.py:12, MW/api/v25_10_1/user.py UserEntry); group_create takes an existing group named like the user (MW/plugins/account.py:650-655)', async () => {
    const { ws } = await admin();
    const made = await ws.result<number>('group.create', [{ name: 'carol', smb: false }]);
    const created = await conforming<Entry>(ws, 'user.create', [
      { username: 'carol', full_name: 'Carol', group_create: true, password_disabled: true, smb: false },
    ]);
    expect(created).toMatchObject({ home: '/var/empty', shell: '/usr/bin/zsh', password: null });
    expect(created.group.id).toBe(made);
    expect((await ws.result<Entry[]>('group.query', [[['name', '=', 'carol']]])).length).toBe(1);
  });

  it('refuses an unknown primary group with `Group <id> not found` (ENOENT) once the rest passed (MW/plugins/account.py:670-673)', async () => {
    const { ws } = await admin();
    const triples = await validationError(ws, 'user.create', [
      { username: 'bob', full_name: 'Bob', group: 999, password_disabled: true, smb: false },
    ]);
    expect(triples).toEqual([['user_create.group', 'Group 999 not found', 2]]);
  });

  it('refuses random_password together with a password (MW/plugins/account.py:1464-1469)', async () => {
    const { ws } = await admin();
    const triples = await validationError(ws, 'user.create', [
      { username: 'bob', full_name: 'Bob', group_create: true, password: 'pw', random_password: true },
    ]);
    expect(triples).toEqual([
      [
        'user_create.random_password',
        'Requesting a randomized password while simultaneously supplying an explicit password is not permitted.',
        22,
      ],
    ]);
  });

  it('validates email as EmailStr (MW/api/v25_10_1/user.py UserCreate.email)', async () => {
    const { ws } = await admin();
    const triples = await validationError(ws, 'user.create', [
      { username: 'bob', full_name: 'Bob', group_create: true, password: 'pw', email: 'not-an-address' },
    ]);
    expect(triples).toEqual([
      ['user_create.email', 'value is not a valid email address: An email address must have an @-sign.', 22],
    ]);
  });

  it('refuses a taken username and uid with EEXIST, uid first (MW/plugins/account.py:1494-1516)', async () => {
    const { ws } = await admin();
    const triples = await validationError(ws, 'user.create', [
      { username: 'root', full_name: 'R', uid: 950, group_create: true, password_disabled: true, smb: false },
    ]);
    expect(triples).toEqual([
      ['user_create.uid', 'Uid 950 is already used (user truenas_admin has it)', 17],
      ['user_create.username', 'The username "root" already exists.', 17],
    ]);
  });

  it('refuses a closed builtin group among `groups`, but not as the primary group (MW/plugins/account.py:1620-1630 checks only `groups`)', async () => {
    const { ws } = await admin();
    const guests = await groupIdOf(ws, 'builtin_guests');
    const base = { full_name: 'C', password_disabled: true, smb: false };
    const triples = await validationError(ws, 'user.create', [
      { ...base, username: 'carol', group_create: true, groups: [guests] },
    ]);
    expect(triples).toEqual([
      ['user_create.groups.0', 'builtin_guests: membership of this builtin group may not be altered.', 22],
    ]);
    const created = await conforming<Entry>(ws, 'user.create', [{ ...base, username: 'carol', group: guests }]);
    expect(created.group).toMatchObject({ id: guests, bsdgrp_gid: 546 });
  });

  it('checks the username as LocalUsername (MW/api/base/types/user.py validate_name)', async () => {
    const { ws } = await admin();
    const triples = await validationError(ws, 'user.create', [
      { username: '-x', full_name: 'X', group_create: true, password_disabled: true, smb: false },
    ]);
    expect(triples).toEqual([['user_create.username', `Value error, Cannot start with "'-'"`, 22]]);
  });
});

describe('user.update (MW/plugins/account.py:772-975)', () => {
  it('answers the entry plus `password`', async () => {
    const { ws } = await admin();
    const [id] = await plainUser(ws, 'dave');
    const updated = await conforming<Entry>(ws, 'user.update', [id, { full_name: 'Dave D', locked: true }]);
    expect(updated).toMatchObject({ id, full_name: 'Dave D', locked: true, password: null });
  });

  it('refuses a null or unknown primary group (MW/plugins/account.py:808-820)', async () => {
    const { ws } = await admin();
    const [id] = await plainUser(ws, 'dave');
    expect(await validationError(ws, 'user.update', [id, { group: null }])).toEqual([
      ['user_update.group', 'User must have a primary group', 22],
    ]);
    expect(await validationError(ws, 'user.update', [id, { group: 999 }])).toEqual([
      ['user_update.group', 'Group 999 not found', 2],
    ]);
  });

  it('keeps the identity of immutable accounts: any `group` counts as a change (MW/plugins/account.py:875-882)', async () => {
    const { ws } = await admin();
    const id = await userIdOf(ws, 'truenas_admin');
    const own = (await ws.result<Entry>('user.get_instance', [id])).group.id;
    expect(await validationError(ws, 'user.update', [id, { group: own, username: 'boss' }])).toEqual([
      ['user_update.group', 'This attribute cannot be changed', 22],
      ['user_update.username', 'This attribute cannot be changed', 22],
    ]);
  });

  it('refuses directory-service ids with EPERM (MW/plugins/account.py:777-786)', async () => {
    const { ws } = await admin();
    expectCallError(
      await ws.call('user.update', [2247000001, {}]),
      1,
      'EPERM',
      'Users provided by a directory service must be modified through the identity provider (LDAP server or domain controller).',
    );
  });
});

describe('user.delete (MW/plugins/account.py:1024-1110)', () => {
  it('answers the id and deletes the primary group nothing else uses, unless delete_group is false', async () => {
    const { ws } = await admin();
    const [a, aGroup] = await plainUser(ws, 'erin');
    const [b, bGroup] = await plainUser(ws, 'frank');
    expect(await conforming(ws, 'user.delete', [a])).toBe(a);
    expect(await conforming(ws, 'user.delete', [b, { delete_group: false }])).toBe(b);
    const left = (await ws.result<Entry[]>('group.query', [[['id', 'in', [aGroup, bGroup]]]])).map((g) => g.id);
    expect(left).toEqual([bGroup]);
    expect((await ws.call('user.get_instance', [a])).error?.data?.reason).toBe(
      `[ENOENT] None: User ${a} does not exist`,
    );
  });

  it('refuses the active user, built-in and immutable users with EINVAL (MW/plugins/account.py:1046-1058)', async () => {
    const server = await server25();
    const ws = await loggedInWs(server.rpcUrl, server.adminKey);
    expectCallError(
      await ws.call('user.delete', [await userIdOf(ws, 'truenas_admin')]),
      22,
      'EINVAL',
      'Cannot delete the currently active user',
    );
    const { key } = await createUserWithKey(server.testAppliance, 'ops', {
      privilegeRoles: ['ACCOUNT_WRITE', 'ACCOUNT_READ'],
    });
    const ops = await loggedInWs(server.rpcUrl, key);
    expectCallError(
      await ops.call('user.delete', [await userIdOf(ws, 'root')]),
      22,
      'EINVAL',
      'Cannot delete a built-in user',
    );
    expectCallError(
      await ops.call('user.delete', [await userIdOf(ws, 'truenas_admin')]),
      22,
      'EINVAL',
      'Cannot delete an immutable user',
    );
  });

  it('refuses any delete after which no unlocked, password-enabled Local Administrator grantee remains, with EACCES (MW/plugins/account_/privilege.py:305-320)', async () => {
    const { ws: seeded, server } = await admin();
    // Another full administrator (a privilege of its own, not Local Administrator), since the
    // seeded one's session ends when it is locked below.
    const { key } = await createUserWithKey(server.testAppliance, 'ops', { privilegeRoles: ['FULL_ADMIN'] });
    const ws = await loggedInWs(server.rpcUrl, key);
    expect(seeded).toBeDefined();
    const admins = await groupIdOf(ws, 'builtin_administrators');
    const text = "After deleting this user no local user will have built-in privilege 'Local Administrator'.";
    // The seeded truenas_admin has a password (as an install sets one): another admin may go.
    const boss = await ws.result<Entry>('user.create', [
      { username: 'boss', full_name: 'Boss', group_create: true, groups: [admins], password: 'pw', smb: false },
    ]);
    const clerk = await ws.result<Entry>('user.create', [
      { username: 'clerk', full_name: 'Clerk', group_create: true, password: 'pw', smb: false },
    ]);
    expect((await ws.call('user.delete', [boss.id])).error).toBeUndefined();
    // With truenas_admin locked (builtin_administrator.py:40-41) none is left: even a user who was
    // never an administrator cannot be deleted, as 25.10.1 checks `exclude_user_ids` only (:315-316).
    await ws.result('user.update', [await userIdOf(ws, 'truenas_admin'), { locked: true }]);
    expectCallError(await ws.call('user.delete', [clerk.id]), 13, 'EACCES', text);
  });

  it('refuses directory-service ids with EPERM and unknown ids with ENOENT (MW/plugins/account.py:1032-1044)', async () => {
    const { ws } = await admin();
    expectCallError(
      await ws.call('user.delete', [2247000001]),
      1,
      'EPERM',
      'Users provided by a directory service must be deleted from the identity provider (LDAP server or domain controller).',
    );
    expect((await ws.call('user.delete', [999])).error?.data?.reason).toBe('[ENOENT] None: User 999 does not exist');
  });
});

describe('user.renew_2fa_secret / user.unset_2fa_secret (MW/plugins/account_/2fa.py)', () => {
  it('renew answers the entry with twofactor_config; unset answers null; an unknown user is ENOENT', async () => {
    const { ws } = await admin();
    const renewed = await conforming<Entry>(ws, 'user.renew_2fa_secret', ['truenas_admin', {}]);
    expect(renewed).toMatchObject({
      username: 'truenas_admin',
      twofactor_auth_configured: true,
      twofactor_config: { secret_configured: true },
    });
    expect(await conforming(ws, 'user.unset_2fa_secret', ['truenas_admin'])).toBeNull();
    expectCallError(
      await ws.call('user.unset_2fa_secret', ['nosuchuser']),
      2,
      'ENOENT',
      "User 'nosuchuser' does not exist",
    );
  });
});

describe('group.query / group.get_instance (MW/api/v25_10_1/group.py GroupEntry)', () => {
  it('answers entries with sid, roles and members (primary ones included) as group_extend has them (MW/plugins/account.py:1925-1960)', async () => {
    const { ws } = await admin();
    const groups = await conforming<Entry[]>(ws, 'group.query');
    const admins = groups.find((g) => g.name === 'builtin_administrators')!;
    expect(admins).toMatchObject({
      gid: 544,
      builtin: true,
      immutable: false,
      local: true,
      roles: ['FULL_ADMIN'],
      group: 'builtin_administrators',
    });
    expect(admins.sid).toMatch(/^S-1-5-21-\d+-\d+-\d+-512$/);
    expect(groups.find((g) => g.name === 'builtin_guests')).toMatchObject({ immutable: true });
    const entry = await conforming<Entry>(ws, 'group.get_instance', [admins.id]);
    expect(entry).toEqual(admins);
    expect((await ws.call('group.get_instance', [999])).error?.data?.reason).toBe(
      '[ENOENT] None: Group 999 does not exist',
    );
  });
});

describe('group.create (MW/plugins/account.py:2014-2049)', () => {
  it('answers the new id', async () => {
    const { ws } = await admin();
    const [userId] = await plainUser(ws, 'gina');
    const id = await conforming<number>(ws, 'group.create', [{ name: 'crew', users: [userId] }]);
    expect(await ws.result('group.get_instance', [id])).toMatchObject({
      name: 'crew',
      gid: 3001,
      smb: true,
      users: [userId],
    });
  });

  it('refuses unknown users with `group_create.users: Following users do not exist: …` (MW/plugins/account.py:2405-2417)', async () => {
    const { ws } = await admin();
    expect(await validationError(ws, 'group.create', [{ name: 'crew', users: [999, 998] }])).toEqual([
      ['group_create.users', 'Following users do not exist: 998, 999', 22],
    ]);
  });

  it('refuses a taken name and a gid used by a group or a privilege (MW/plugins/account.py:2366-2393)', async () => {
    const { ws } = await admin();
    expect(await validationError(ws, 'group.create', [{ name: 'truenas_admin', gid: 951, smb: false }])).toEqual([
      ['group_create.name', 'A Group with the name "truenas_admin" already exists.', 17],
      ['group_create.gid', 'Gid 951 is already used (group truenas_readonly_administrators has it)', 17],
      ['group_create.gid', "A privilege 'Read-Only Administrator' already uses this group ID.", 22],
    ]);
  });
});

describe('group.update (MW/plugins/account.py:2055-2125)', () => {
  it('answers the id; members are the given users plus the primary ones', async () => {
    const { ws } = await admin();
    const [userId, groupId] = await plainUser(ws, 'hank');
    const [other] = await plainUser(ws, 'ivy');
    expect(await conforming(ws, 'group.update', [groupId, { name: 'hanks', users: [userId, other] }])).toBe(groupId);
    expect(await ws.result('group.get_instance', [groupId])).toMatchObject({ name: 'hanks', users: [userId, other] });
  });

  it('refuses changes to immutable and builtin groups, removing primary members, and `gid`', async () => {
    const { ws } = await admin();
    expect(
      await validationError(ws, 'group.update', [await groupIdOf(ws, 'builtin_guests'), { sudo_commands: [] }]),
    ).toEqual([['group_update.id', 'Immutable groups cannot be changed', 22]]);
    expect(
      await validationError(ws, 'group.update', [await groupIdOf(ws, 'builtin_users'), { name: 'everyone' }]),
    ).toEqual([['group_update.name', 'This configuration parameter may not be changed for builtin groups.', 22]]);
    const [, groupId] = await plainUser(ws, 'jay');
    expect(await validationError(ws, 'group.update', [groupId, { users: [] }])).toEqual([
      ['group_update.users', "This group is primary for the following users: jay. You can't remove them.", 22],
    ]);
    expect(await validationError(ws, 'group.update', [groupId, { gid: 4000 }])).toEqual([
      ['group_update.gid', 'Extra inputs are not permitted', 22],
    ]);
    expectCallError(
      await ws.call('group.update', [100000544, {}]),
      1,
      'EPERM',
      'Groups provided by a directory service must be modified through the identity provider (LDAP server or domain controller).',
    );
  });
});

describe('group.delete (MW/plugins/account.py:2127-2195)', () => {
  it('answers the id; primary members move to nogroup, or go with delete_users', async () => {
    const { ws } = await admin();
    const [kim, kimGroup] = await plainUser(ws, 'kim');
    const [lee, leeGroup] = await plainUser(ws, 'lee');
    expect(await conforming(ws, 'group.delete', [kimGroup])).toBe(kimGroup);
    expect((await ws.result<Entry>('user.get_instance', [kim])).group).toMatchObject({
      bsdgrp_group: 'nogroup',
      bsdgrp_gid: 65534,
    });
    expect(await conforming(ws, 'group.delete', [leeGroup, { delete_users: true }])).toBe(leeGroup);
    expect((await ws.call('user.get_instance', [lee])).error?.data?.reason).toBe(
      `[ENOENT] None: User ${lee} does not exist`,
    );
  });

  it("refuses a group a privilege uses with EACCES `This group is used by privilege '<name>'…` (MW/plugins/account_/privilege.py:323-331)", async () => {
    const { ws } = await admin();
    const id = await ws.result<number>('group.create', [{ name: 'ops', smb: false }]);
    const { gid } = await ws.result<Entry>('group.get_instance', [id]);
    await ws.result('privilege.create', [
      { name: 'Ops', local_groups: [gid], roles: ['READONLY_ADMIN'], web_shell: false },
    ]);
    expectCallError(
      await ws.call('group.delete', [id]),
      13,
      'EACCES',
      "This group is used by privilege 'Ops'. Please remove it from that privilege first, then delete the group.",
    );
  });

  it('refuses built-in groups with EACCES, directory-service ids with EPERM, unknown ids with ENOENT (MW/plugins/account.py:2140-2160)', async () => {
    const { ws } = await admin();
    expectCallError(
      await ws.call('group.delete', [await groupIdOf(ws, 'builtin_users')]),
      13,
      'EACCES',
      'A built-in group cannot be deleted.',
    );
    expectCallError(
      await ws.call('group.delete', [100000544]),
      1,
      'EPERM',
      'Groups provided by a directory service must be deleted from the identity provider (LDAP server or domain controller).',
    );
    expect((await ws.call('group.delete', [999])).error?.data?.reason).toBe('[ENOENT] None: Group 999 does not exist');
  });
});
