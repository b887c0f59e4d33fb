import { describe, expect, it } from 'vitest';
import { writeSetting } from '../../../../src/core/store/settings.js';
import { createUserWithKey, openTestAppliance } from '../../../helpers/appliance.js';

interface Me {
  pw_name: string;
  pw_uid: number;
  account_attributes: string[];
  privilege: { roles: { $set: string[] }; allowlist: unknown[]; web_shell: boolean; webui_access: boolean };
}

describe('login and role composition', () => {
  it('logs the seeded administrator in with 141 roles and LOCAL, API_KEY, SYS_ADMIN', async () => {
    const t = await openTestAppliance();
    const me = await t.call<Me>(t.admin, 'auth.me');
    expect(me.pw_name).toBe('truenas_admin');
    expect(me.pw_uid).toBe(950);
    expect(me.account_attributes).toEqual(['LOCAL', 'API_KEY', 'SYS_ADMIN']);
    expect(me.privilege.roles.$set).toHaveLength(141);
    expect(me.privilege.allowlist).toEqual([{ method: '*', resource: '*' }]);
    expect(me.privilege.web_shell).toBe(true);
  });

  it('returns false for a wrong, malformed or unknown key', async () => {
    const t = await openTestAppliance();
    const [id] = t.adminKey.split('-');
    for (const key of [`${id}-${'x'.repeat(64)}`, 'not-a-key', '999-abc', '']) {
      expect((await t.login(key)).ok).toBe(false);
    }
  });

  it('refuses login to a user whose groups match no privilege', async () => {
    const t = await openTestAppliance();
    const { key, gid } = await createUserWithKey(t, 'carol', { privilegeRoles: ['READONLY_ADMIN'] });
    // Take the privilege away again: the key stays, the user now holds no privilege.
    const [priv] = await t.call<{ id: number }[]>(t.admin, 'privilege.query', [['local_groups.*.gid', '=', gid]]);
    await t.call(t.admin, 'privilege.delete', priv!.id);
    const { ok, session } = await t.login(key);
    expect(ok).toBe(false);
    expect(session.authenticated).toBe(false);
  });

  it('composes the union of every privilege bound to the user groups, without SYS_ADMIN', async () => {
    const t = await openTestAppliance();
    const { key, gid } = await createUserWithKey(t, 'dave', { privilegeRoles: ['REPLICATION_ADMIN'] });
    await t.call(t.admin, 'privilege.create', {
      name: 'dave-fs',
      local_groups: [gid],
      roles: ['FILESYSTEM_FULL_CONTROL'],
      web_shell: true,
    });
    const { session, ok } = await t.login(key);
    expect(ok).toBe(true);
    const me = await t.call<Me>(session, 'auth.me');
    expect(me.account_attributes).toEqual(['LOCAL', 'API_KEY']);
    expect(me.privilege.roles.$set).toHaveLength(11 + 5);
    expect(me.privilege.web_shell).toBe(true);
    // No wildcard without FULL_ADMIN: explicit CALL (methods) and SUBSCRIBE (events) entries only
    // (MW/role.py:367-381), and none for what the roles do not grant.
    expect(me.privilege.allowlist.every((e) => ['CALL', 'SUBSCRIBE'].includes((e as { method: string }).method))).toBe(
      true,
    );
    expect(me.privilege.allowlist).not.toContainEqual({ method: 'CALL', resource: 'privilege.query' });
    expect(me.privilege.allowlist).not.toContainEqual({ method: 'SUBSCRIBE', resource: 'privilege.query' });
  });

  it('auth.login_ex with API_KEY_PLAIN answers SUCCESS with user_info, AUTH_ERR for the wrong username', async () => {
    const t = await openTestAppliance();
    const s = t.session();
    const ok = await t.call<{ response_type: string; user_info: Me; authenticator: string }>(s, 'auth.login_ex', {
      mechanism: 'API_KEY_PLAIN',
      username: 'truenas_admin',
      api_key: t.adminKey,
    });
    expect(ok.response_type).toBe('SUCCESS');
    expect(ok.authenticator).toBe('LEVEL_1');
    expect(ok.user_info.pw_name).toBe('truenas_admin');
    const wrong = await t.call(t.session(), 'auth.login_ex', {
      mechanism: 'API_KEY_PLAIN',
      username: 'root',
      api_key: t.adminKey,
    });
    expect(wrong).toEqual({ response_type: 'AUTH_ERR' });
  });

  it('revokes a valid key presented over an insecure transport, as 25.10.1 does', async () => {
    const t = await openTestAppliance();
    const { key } = await createUserWithKey(t, 'erin', { privilegeRoles: ['READONLY_ADMIN'] });
    expect((await t.login(key, false)).ok).toBe(false);
    const [entry] = await t.call<{ revoked: boolean; revoked_reason: string }[]>(t.admin, 'api_key.query', [
      ['name', '=', 'erin-key'],
    ]);
    expect(entry).toMatchObject({ revoked: true, revoked_reason: 'Attempt to use over an insecure transport' });
    expect((await t.login(key, true)).ok).toBe(false);
  });

  it('auth.logout leaves the session unauthenticated', async () => {
    const t = await openTestAppliance();
    const { session } = await t.login(t.adminKey);
    expect(await t.call(session, 'auth.logout')).toBe(true);
    expect((await t.callError(session, 'auth.me')).errno).toBe(207);
  });
});

describe('the 25.10.1 login defect (roleExpansion as-reported)', () => {
  const cases: [string, string[]][] = [
    ['a meta-role with one of its included roles', ['FILESYSTEM_FULL_CONTROL', 'FILESYSTEM_DATA_WRITE']],
    ['a self-including role', ['PRIVILEGE_WRITE']],
  ];

  for (const [what, roles] of cases) {
    it(`fails login with the RecursionError 25.10.1 answers for ${what}, and the default expansion logs in`, async () => {
      const broken = await openTestAppliance({ roleExpansion: 'as-reported' });
      const { key } = await createUserWithKey(broken, 'alice', { group: 'ops', privilegeRoles: roles });
      const err = await broken.callError(broken.session(), 'auth.login_with_api_key', key);
      expect(err.toJSON()).toMatchObject({
        code: -32001,
        message: 'Method call error',
        data: {
          error: 22,
          errname: 'EINVAL',
          reason: 'maximum recursion depth exceeded',
          trace: { class: 'RecursionError' },
          extra: null,
        },
      });

      // Same state, default expansion: the same user logs in with the union of the listed closures.
      const fixed = await broken.reopen({ roleExpansion: 'terminating' });
      const { ok, session } = await fixed.login(key);
      expect(ok).toBe(true);
      const me = await fixed.call<Me>(session, 'auth.me');
      const expected = roles.includes('PRIVILEGE_WRITE')
        ? ['PRIVILEGE_WRITE']
        : [
            'FILESYSTEM_ATTRS_READ',
            'FILESYSTEM_ATTRS_WRITE',
            'FILESYSTEM_DATA_READ',
            'FILESYSTEM_DATA_WRITE',
            'FILESYSTEM_FULL_CONTROL',
          ];
      expect(me.privilege.roles.$set).toEqual(expected);
    });
  }

  it('keeps failing across a restart, and the administrator (not bound to it) still logs in', async () => {
    const t = await openTestAppliance({ roleExpansion: 'as-reported' });
    const { key } = await createUserWithKey(t, 'alice', { group: 'ops', privilegeRoles: ['FULL_ADMIN', 'POOL_READ'] });
    const again = await t.reopen();
    expect(again.appliance.settings.roleExpansion).toBe('as-reported');
    expect((await again.callError(again.session(), 'auth.login_with_api_key', key)).data?.trace?.class).toBe(
      'RecursionError',
    );
    expect((await again.login(again.adminKey)).ok).toBe(true);
  });
});

describe('roleExpansion truenas-25.10.1: as the real code (MW/role.py roles_for_role recurses only on a self-including role)', () => {
  it('logs in a meta-role listed with a role it includes, with the 5 roles of the union', async () => {
    const t = await openTestAppliance({ roleExpansion: 'truenas-25.10.1' });
    const { key } = await createUserWithKey(t, 'olga', {
      group: 'ops',
      privilegeRoles: ['FILESYSTEM_FULL_CONTROL', 'FILESYSTEM_DATA_WRITE'],
    });
    const { ok, session } = await t.login(key);
    expect(ok).toBe(true);
    expect((await t.call<Me>(session, 'auth.me')).privilege.roles.$set).toHaveLength(5);
  });

  for (const role of ['PRIVILEGE_WRITE', 'SYSTEM_PRODUCT_WRITE']) {
    it(`refuses login with RecursionError for ${role} (MW/role.py: it includes itself)`, async () => {
      const t = await openTestAppliance({ roleExpansion: 'truenas-25.10.1' });
      const { key } = await createUserWithKey(t, 'sam', { group: 'ops', privilegeRoles: [role, 'POOL_READ'] });
      const err = await t.callError(t.session(), 'auth.login_with_api_key', key);
      expect(err.data).toMatchObject({
        error: 22,
        errname: 'EINVAL',
        reason: 'maximum recursion depth exceeded',
        trace: { class: 'RecursionError' },
      });
    });
  }

  it('reads a state stored with the old name release-25.10.1 as as-reported', async () => {
    const t = await openTestAppliance();
    t.appliance.store.write(() => writeSetting(t.appliance.store.db, 'roleExpansion', 'release-25.10.1'));
    expect((await t.reopen()).appliance.settings.roleExpansion).toBe('as-reported');
  });
});

describe('what the emulator tells a client about itself', () => {
  it('system.version_short and system.version need a login but no role (MW/plugins/system/product.py:75-80, authorization_required=False)', async () => {
    const t = await openTestAppliance();
    expect((await t.callError(t.session(), 'system.version_short')).data?.errname).toBe('ENOTAUTHENTICATED');
    expect(await t.call(t.admin, 'system.version_short')).toBe('25.10.1');
    expect(await t.call(t.admin, 'system.version')).toBe('TrueNAS-25.10.1');
  });

  it('stor.emulation names the role expansion and the login rule it follows', async () => {
    for (const [roleExpansion, rule] of [
      ['terminating', 'none'],
      ['as-reported', 'as-reported'],
      ['truenas-25.10.1', 'self-including'],
    ] as const) {
      const t = await openTestAppliance({ roleExpansion });
      expect(await t.call(t.session(), 'stor.emulation')).toMatchObject({
        emulator: 'stor',
        release: '25.10.1',
        settings: { roleExpansion },
        lockout_rule: rule,
      });
    }
  });
});
