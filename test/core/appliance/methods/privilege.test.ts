/**
 * privilege.*, system.version* and stor.emulation of `stor serve --emulate truenas-25.10.1`, driven
 * with raw JSON-RPC frames: answers against the contract (MW/api/v25_10_1/privilege.py) and errors
 * against the literal texts of MW/plugins/account_/privilege.py.
 */
import { describe, expect, it } from 'vitest';
import { createUserWithKey } from '../../../helpers/appliance.js';
import { connectWs, loggedInWs, type RpcReply } from '../../../helpers/server.js';
import { adminSession, conforming } from '../../../conformance/harness.js';

function validation(reply: RpcReply): unknown {
  expect(reply.error).toMatchObject({
    code: -32602,
    message: 'Invalid params',
    data: { error: 22, errname: 'EINVAL' },
  });
  return reply.error!.data!.extra;
}

function callError(reply: RpcReply, errno: number, errname: string, text: string): void {
  expect(reply.error).toMatchObject({
    code: -32001,
    message: 'Method call error',
    data: { error: errno, errname, reason: `[${errname}] ${text}` },
  });
}

describe('privilege.query / get_instance (MW/plugins/account_/privilege.py:59-63, 226-239; built-ins: MW/alembic/versions/22.12/2022-08-17_13-37_privilege.py:48, 24.04/2023-10-30_21-02_readonly_privilege.py:22, 24.04/2023-11-03_11-35_sharing_manager_privilege.py:22)', () => {
  it('lists the three built-in privileges with local_groups as GroupEntry objects', async () => {
    const { ws } = await adminSession();
    const all = await conforming(ws, 'privilege.query');
    expect(
      all.map((p: { id: number; builtin_name: string; roles: string[] }) => [p.id, p.builtin_name, p.roles]),
    ).toEqual([
      [1, 'LOCAL_ADMINISTRATOR', ['FULL_ADMIN']],
      [2, 'READONLY_ADMINISTRATOR', ['READONLY_ADMIN']],
      [3, 'SHARING_ADMINISTRATOR', ['SHARING_ADMIN']],
    ]);
    expect(all[0].local_groups[0]).toMatchObject({
      gid: 544,
      name: 'builtin_administrators',
      group: 'builtin_administrators',
    });
    expect(await conforming(ws, 'privilege.query', [[['id', '=', 2]], { get: true }])).toMatchObject({
      name: 'Read-Only Administrator',
    });
    expect(await conforming(ws, 'privilege.query', [[], { count: true }])).toBe(3);
    expect(await conforming(ws, 'privilege.get_instance', [3])).toMatchObject({
      name: 'Sharing Administrator',
      web_shell: false,
    });
  });

  it('an unknown id is InstanceNotFound: [ENOENT] None: Privilege 99 does not exist', async () => {
    const { ws } = await adminSession();
    for (const method of ['privilege.get_instance', 'privilege.delete']) {
      expect(validation(await ws.call(method, [99]))).toEqual([[null, 'Privilege 99 does not exist', 2]]);
      expect((await ws.call(method, [99])).error?.data?.reason).toBe('[ENOENT] None: Privilege 99 does not exist');
    }
    expect(validation(await ws.call('privilege.update', [99, { web_shell: false }]))).toEqual([
      [null, 'Privilege 99 does not exist', 2],
    ]);
  });

  it('needs PRIVILEGE_READ: a session without it gets [EACCES] Not authorized; no session gets ENOTAUTHENTICATED', async () => {
    const { server } = await adminSession();
    const { key } = await createUserWithKey(server.testAppliance, 'pat', {
      group: 'pool-readers',
      privilegeRoles: ['POOL_READ'],
    });
    callError(await (await loggedInWs(server.rpcUrl, key)).call('privilege.query'), 13, 'EACCES', 'Not authorized');
    callError(
      await (await connectWs(server.rpcUrl)).call('privilege.query'),
      207,
      'ENOTAUTHENTICATED',
      'Not authenticated',
    );
  });
});

describe('privilege.create / update / delete (MW/plugins/account_/privilege.py:65-212)', () => {
  it('creates, updates and deletes; the answers are PrivilegeEntry', async () => {
    const { ws } = await adminSession();
    const gid = (
      await ws.result<{ gid: number }>('group.get_instance', [
        await ws.result<number>('group.create', [{ name: 'ops', smb: false }]),
      ])
    ).gid;
    const created = await conforming(ws, 'privilege.create', [
      { name: 'ops', web_shell: false, local_groups: [gid], roles: ['PRIVILEGE_WRITE', 'POOL_READ'] },
    ]);
    // 25.10.1 accepts self-including roles at save time (MW/plugins/account_/privilege.py:208-210); they fail
    // at login (MW/role.py:62, 231, 354-365).
    expect(created).toMatchObject({
      builtin_name: null,
      name: 'ops',
      roles: ['PRIVILEGE_WRITE', 'POOL_READ'],
      ds_groups: [],
    });
    const updated = await conforming(ws, 'privilege.update', [created.id, { roles: ['POOL_READ'], web_shell: true }]);
    expect(updated).toMatchObject({ id: created.id, roles: ['POOL_READ'], web_shell: true });
    expect(await conforming(ws, 'privilege.delete', [created.id])).toBe(true);
  });

  it('refuses with the literal attribute and text of each documented error', async () => {
    const { ws } = await adminSession();
    expect(validation(await ws.call('privilege.create', [{ name: 'Local Administrator', web_shell: false }]))).toEqual([
      ['privilege_create.name', 'Object with this name already exists', 22],
    ]);
    expect(
      validation(await ws.call('privilege.create', [{ name: 'x', web_shell: false, local_groups: [4242] }])),
    ).toEqual([
      [
        'privilege_create.local_groups.0',
        '4242: local group does not exist. This error may be addressed by either re-creating the missing group with the specified group id or removing this entry from the privilege.',
        22,
      ],
    ]);
    expect(
      validation(await ws.call('privilege.create', [{ name: 'x', web_shell: false, roles: ['POOL_READ', 'NOPE'] }])),
    ).toEqual([['privilege_create.roles.1', 'Invalid role', 22]]);
    expect(validation(await ws.call('privilege.create', [{ web_shell: false }]))).toEqual([
      ['privilege_create.name', 'Field required', 22],
    ]);
    expect(validation(await ws.call('privilege.create', [{ name: 'x', web_shell: false, id: 9 }]))).toEqual([
      ['privilege_create.id', 'Extra inputs are not permitted', 22],
    ]);
    expect(validation(await ws.call('privilege.create', [{ name: 'x', web_shell: 'yes' }]))).toEqual([
      ['privilege_create.web_shell', 'Input should be a valid boolean', 22],
    ]);
  });

  it('guards the built-in privileges', async () => {
    const { ws, server } = await adminSession();
    expect(validation(await ws.call('privilege.update', [1, { name: 'Boss', roles: ['READONLY_ADMIN'] }]))).toEqual([
      ['privilege_update.name', 'This field is read-only for built-in privileges', 22],
      ['privilege_update.roles', 'This field is read-only for built-in privileges', 22],
    ]);
    // Both checks of MW/plugins/account_/privilege.py:118-131: 951 has no password-enabled member either.
    const noPassword =
      'None of the members of these groups has password login enabled. At least one grantee of the "Local Administrator" privilege must have password login enabled.';
    expect(validation(await ws.call('privilege.update', [1, { local_groups: [951] }]))).toEqual([
      [
        'privilege_update.local_groups',
        'The group builtin_administrators must be among grantees of the "Local Administrator" privilege.',
        22,
      ],
      ['privilege_update.local_groups', noPassword, 22],
    ]);
    // The seeded truenas_admin has a password, as after an install: an update that keeps 544 passes.
    await conforming(ws, 'privilege.update', [1, { web_shell: true }]);
    expect(validation(await ws.call('privilege.update', [2, { web_shell: true }]))).toEqual([
      [
        'privilege_update.web_shell',
        'Web shell access may not be enabled for the built-in group for read-only administrators.',
        22,
      ],
    ]);
    callError(await ws.call('privilege.delete', [2]), 1, 'EPERM', 'Unable to delete built-in privilege');
    // Locked, it no longer counts (builtin_administrator.py:40-41), and any update of the privilege is refused (:126-131).
    const [admin] = await conforming<{ id: number }[]>(ws, 'user.query', [[['username', '=', 'truenas_admin']]]);
    const { key } = await createUserWithKey(server.testAppliance, 'ops', { privilegeRoles: ['FULL_ADMIN'] });
    const ops = await loggedInWs(server.rpcUrl, key);
    await conforming(ops, 'user.update', [admin!.id, { locked: true }]);
    expect(validation(await ops.call('privilege.update', [1, { web_shell: true }]))).toEqual([
      ['privilege_update.local_groups', noPassword, 22],
    ]);
  });
});

describe('privilege.roles (MW/plugins/account_/privilege_roles.py:15-42, MW/role.py:23-260)', () => {
  it('answers the 141-role catalogue, title = name, 12 roles with stig null, READONLY_ADMIN including the 66 *_READ roles', async () => {
    const { ws } = await adminSession();
    const roles = await conforming(ws, 'privilege.roles');
    expect(roles).toHaveLength(141);
    expect(roles.every((r: { name: string; title: string }) => r.title === r.name)).toBe(true);
    expect(roles.filter((r: { stig: number | null }) => r.stig === null)).toHaveLength(12);
    const readonly = roles.find((r: { name: string }) => r.name === 'READONLY_ADMIN');
    expect(readonly.includes).toHaveLength(66);
    expect(roles.find((r: { name: string }) => r.name === 'PRIVILEGE_WRITE').includes).toEqual(['PRIVILEGE_WRITE']);
    expect(await conforming(ws, 'privilege.roles', [[['name', '^', 'POOL_']], { count: true }])).toBeGreaterThan(0);
  });
});

describe('system.version_short, system.version and stor.emulation', () => {
  it('answer the release after a login, and need no role (MW/plugins/system/product.py:75-80, 109-113)', async () => {
    const { server, ws } = await adminSession();
    expect(await conforming(ws, 'system.version_short')).toBe('25.10.1');
    expect(await conforming(ws, 'system.version')).toBe('TrueNAS-25.10.1');
    callError(
      await (await connectWs(server.rpcUrl)).call('system.version_short'),
      207,
      'ENOTAUTHENTICATED',
      'Not authenticated',
    );
    const { key } = await createUserWithKey(server.testAppliance, 'pat', {
      group: 'pool-readers',
      privilegeRoles: ['POOL_READ'],
    });
    expect((await (await loggedInWs(server.rpcUrl, key)).call('system.version')).result).toBe('TrueNAS-25.10.1');
  });

  it('stor.emulation (stor only) names the preset and every setting, without a login', async () => {
    const { server } = await adminSession();
    const anonymous = await connectWs(server.rpcUrl);
    expect(await conforming(anonymous, 'stor.emulation')).toEqual({
      emulator: 'stor',
      release: '25.10.1',
      settings: {
        roleExpansion: 'truenas-25.10.1',
        roleLists: 'accept',
        uploadGate: 'full-admin',
        sysAdmin: 'admin-uids',
        httpRpc: 'refused',
        keyLogin: 'plain',
        release: '25.10.1',
      },
      emulate: 'truenas-25.10.1',
      lockout_rule: 'self-including',
    });
  });
});
