/**
 * api_key.* of `stor serve --emulate truenas-25.10.1`, driven with raw JSON-RPC frames: every
 * answer checked against the contract (MW/api/v25_10_1/api_key.py) and every error against the
 * literal texts and codes of MW/plugins/api_key.py.
 */
import { describe, expect, it } from 'vitest';
import { createUserWithKey } from '../../../helpers/appliance.js';
import { connectWs, loggedInWs } from '../../../helpers/server.js';
import { server25, conforming, errorOf, validation } from '../../../conformance/harness.js';

const instanceNotFound = (id: number) => ({
  code: -32602,
  message: 'Invalid params',
  data: {
    error: 22,
    errname: 'EINVAL',
    reason: `[ENOENT] None: ApiKey ${id} does not exist`,
    extra: [[null, `ApiKey ${id} does not exist`, 2]],
  },
  traceClass: 'InstanceNotFound',
});

const othersKeys = (caller: string) => ({
  code: -32001,
  message: 'Method call error',
  data: {
    error: 13,
    errname: 'EACCES',
    reason: `[EACCES] ${caller}: authenticated user lacks privileges to create or modify API keys of other users.`,
    extra: null,
  },
  traceClass: 'CallError',
});

const NOT_AUTHORIZED = {
  code: -32001,
  message: 'Method call error',
  data: { error: 13, errname: 'EACCES', reason: '[EACCES] Not authorized', extra: null },
  traceClass: 'CallError',
};
const KEY = /^\d+-[A-Za-z0-9]{64}$/;
const HOUR = 3_600_000;

type Entry = Record<string, any>;

describe('api_key.* as 25.10.1 (MW/plugins/api_key.py)', () => {
  it('api_key.query, get_instance and my_keys answer ApiKeyEntry; an unknown id is InstanceNotFound', async () => {
    const server = await server25();
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    const [first] = await conforming<Entry[]>(admin, 'api_key.query');
    expect(first).toMatchObject({ username: 'truenas_admin', local: true, revoked: false, revoked_reason: null });
    expect(first!.keyhash).not.toBe('********');
    expect(await conforming(admin, 'api_key.query', [[], { count: true }])).toBe(1);
    expect(await conforming(admin, 'api_key.get_instance', [first!.id])).toEqual(first);
    expect(errorOf(await admin.call('api_key.get_instance', [999]))).toEqual(instanceNotFound(999));
    expect(await conforming(admin, 'api_key.my_keys')).toEqual([first]);
  });

  it('my_keys lists the caller’s keys only, hashes redacted for a READONLY_ADMIN; it needs READONLY_ADMIN or API_KEY_READ (MW/plugins/api_key.py:396-405)', async () => {
    const server = await server25();
    const { key } = await createUserWithKey(server.testAppliance, 'reader', { privilegeRoles: ['READONLY_ADMIN'] });
    const reader = await loggedInWs(server.rpcUrl, key);
    const mine = await conforming<Entry[]>(reader, 'api_key.my_keys');
    expect(mine.map((k) => [k.username, k.keyhash])).toEqual([['reader', '********']]);
    const { key: otherKey } = await createUserWithKey(server.testAppliance, 'other', {
      privilegeRoles: ['DATASET_READ'],
    });
    const other = await loggedInWs(server.rpcUrl, otherKey);
    expect(errorOf(await other.call('api_key.my_keys'))).toEqual(NOT_AUTHORIZED);
  });

  it('api_key.create answers the entry and the key once; user_identifier is a string there (MW/plugins/api_key.py:203-231)', async () => {
    const server = await server25();
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    const expires = Date.now() + HOUR;
    const created = await conforming<Entry>(admin, 'api_key.create', [
      { name: 'ci', username: 'truenas_admin', expires_at: { $date: expires } },
    ]);
    expect(created).toMatchObject({
      name: 'ci',
      username: 'truenas_admin',
      user_identifier: expect.any(String),
      expires_at: { $date: expires },
      revoked: false,
    });
    expect(created.key).toMatch(KEY);
    expect(created.key.startsWith(`${created.id}-`)).toBe(true);
    const [stored] = await conforming<Entry[]>(admin, 'api_key.query', [[['id', '=', created.id]]]);
    expect(stored).not.toHaveProperty('key');
    expect(stored!.user_identifier).toBe(Number(created.user_identifier));
    expect(await (await connectWs(server.rpcUrl)).result('auth.login_with_api_key', [created.key])).toBe(true);
  });

  it('api_key.create errors: name and expiry first, then the user, under api_key_create (MW/plugins/api_key.py:169-202, 315-324)', async () => {
    const server = await server25();
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    const [existing] = await admin.result<Entry[]>('api_key.query');
    expect(
      errorOf(
        await admin.call('api_key.create', [
          { name: existing!.name, username: 'ghost', expires_at: { $date: Date.now() - HOUR } },
        ]),
      ),
    ).toEqual(
      validation(
        ['api_key_create', 'name must be unique'],
        ['api_key_create', 'Expiration date is in the past'],
        ['api_key_create', 'User does not exist.'],
      ),
    );
    expect(errorOf(await admin.call('api_key.create', [{ name: 'x', username: 'truenas_admin', id: 5 }]))).toEqual(
      validation(['api_key_create.id', 'Extra inputs are not permitted']),
    );
    expect(errorOf(await admin.call('api_key.create', [{ name: '', username: 'truenas_admin' }]))).toEqual(
      validation(['api_key_create.name', 'String should have at least 1 character']),
    );
  });

  it('api_key.create: a user whose privileges grant no role lacks privilege role membership (MW/plugins/api_key.py:192-193)', async () => {
    const server = await server25();
    const t = server.testAppliance;
    const groupId = await t.call<number>(t.admin, 'group.create', { name: 'empty', smb: false });
    const [group] = await t.call<{ gid: number }[]>(t.admin, 'group.query', [['id', '=', groupId]]);
    await t.call(t.admin, 'user.create', {
      username: 'empty',
      full_name: 'empty',
      group: groupId,
      password_disabled: true,
      smb: false,
    });
    await t.call(t.admin, 'privilege.create', {
      name: 'no roles',
      local_groups: [group!.gid],
      roles: [],
      web_shell: false,
    });
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    expect(errorOf(await admin.call('api_key.create', [{ name: 'k', username: 'empty' }]))).toEqual(
      validation(['api_key_create', 'User lacks privilege role membership.']),
    );
  });

  it('api_key.create: at most 10 keys per user, under api_key_create.username (PAM_TDB_MAX_KEYS)', async () => {
    const server = await server25();
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    // The seed holds one key of truenas_admin.
    for (let i = 2; i <= 10; i++) await admin.result('api_key.create', [{ name: `k${i}`, username: 'truenas_admin' }]);
    expect(errorOf(await admin.call('api_key.create', [{ name: 'k11', username: 'truenas_admin' }]))).toEqual(
      validation(['api_key_create.username', 'User already meets or exceeds maximum per-user API key limit of 10']),
    );
  });

  it('a READONLY_ADMIN may create its own key (hash redacted) but not another user’s; EACCES comes before validation (MW/plugins/api_key.py:326-344)', async () => {
    const server = await server25();
    const { key } = await createUserWithKey(server.testAppliance, 'ro', { privilegeRoles: ['READONLY_ADMIN'] });
    const ro = await loggedInWs(server.rpcUrl, key);
    const own = await conforming<Entry>(ro, 'api_key.create', [{ name: 'ro-2', username: 'ro' }]);
    expect(own.keyhash).toBe('********');
    expect(errorOf(await ro.call('api_key.create', [{ name: 'ro-2', username: 'truenas_admin' }]))).toEqual(
      othersKeys('ro'),
    );
    const { key: dsKey } = await createUserWithKey(server.testAppliance, 'ds', { privilegeRoles: ['DATASET_WRITE'] });
    expect(
      errorOf(
        await (await loggedInWs(server.rpcUrl, dsKey)).call('api_key.create', [{ name: 'ds-2', username: 'ds' }]),
      ),
    ).toEqual(NOT_AUTHORIZED);
  });

  it('api_key.update: rename and expiry answer the entry; reset answers a new key, the old one stops working (MW/plugins/api_key.py:242-285)', async () => {
    const server = await server25();
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    const created = await admin.result<Entry>('api_key.create', [{ name: 'u1', username: 'truenas_admin' }]);
    const renamed = await conforming<Entry>(admin, 'api_key.update', [
      created.id,
      { name: 'u1-renamed', expires_at: { $date: Date.now() + HOUR } },
    ]);
    expect(renamed).toMatchObject({ id: created.id, name: 'u1-renamed', user_identifier: expect.any(Number) });
    expect(renamed).not.toHaveProperty('key');
    const reset = await conforming<Entry>(admin, 'api_key.update', [created.id, { reset: true }]);
    expect(reset.key).toMatch(KEY);
    expect(reset.keyhash).not.toBe(created.keyhash);
    const client = await connectWs(server.rpcUrl);
    expect(await client.result('auth.login_with_api_key', [created.key])).toBe(false);
    expect(await client.result('auth.login_with_api_key', [reset.key])).toBe(true);
  });

  it('api_key.update reset clears revocation; the reason stays, as `compress` leaves it (MW/plugins/api_key.py:136-160, 266-275)', async () => {
    const server = await server25();
    const t = server.testAppliance;
    const created = await t.call<Entry>(t.admin, 'api_key.create', { name: 'leaked', username: 'truenas_admin' });
    // Used in clear over an insecure transport: revoked (MW/plugins/auth.py:936-944).
    expect((await t.login(created.key, false)).ok).toBe(false);
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    const revoked = await admin.result<Entry>('api_key.get_instance', [created.id]);
    expect(revoked).toMatchObject({ revoked: true, revoked_reason: 'Attempt to use over an insecure transport' });
    const renamed = await conforming<Entry>(admin, 'api_key.update', [created.id, { name: 'still-revoked' }]);
    expect(renamed.revoked).toBe(true);
    const reset = await conforming<Entry>(admin, 'api_key.update', [created.id, { reset: true }]);
    expect(reset).toMatchObject({ revoked: false, revoked_reason: 'Attempt to use over an insecure transport' });
    expect(await (await connectWs(server.rpcUrl)).result('auth.login_with_api_key', [reset.key])).toBe(true);
  });

  it('api_key.update errors: MatchNotFound() for an unknown id, api_key_update validation, EACCES for others’ keys (MW/plugins/api_key.py:256-266, 326-343)', async () => {
    const server = await server25();
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    expect(errorOf(await admin.call('api_key.update', [999, { name: 'x' }]))).toEqual({
      code: -32001,
      message: 'Method call error',
      data: { error: 22, errname: 'EINVAL', reason: 'MatchNotFound()', extra: null },
      traceClass: 'MatchNotFound',
    });
    const a = await admin.result<Entry>('api_key.create', [{ name: 'a', username: 'truenas_admin' }]);
    await admin.result('api_key.create', [{ name: 'b', username: 'truenas_admin' }]);
    expect(
      errorOf(await admin.call('api_key.update', [a.id, { name: 'b', expires_at: { $date: Date.now() - HOUR } }])),
    ).toEqual(
      validation(['api_key_update', 'name must be unique'], ['api_key_update', 'Expiration date is in the past']),
    );
    expect(errorOf(await admin.call('api_key.update', [a.id, { username: 'ro' }]))).toEqual(
      validation(['api_key_update.username', 'Extra inputs are not permitted']),
    );
    const { key } = await createUserWithKey(server.testAppliance, 'ro', { privilegeRoles: ['READONLY_ADMIN'] });
    const ro = await loggedInWs(server.rpcUrl, key);
    expect(errorOf(await ro.call('api_key.update', [a.id, { name: 'mine' }]))).toEqual(othersKeys('ro'));
  });

  it('api_key.delete answers true; an unknown id is InstanceNotFound; others’ keys are EACCES (MW/plugins/api_key.py:287-313, MW/service/crud_service.py:228-242)', async () => {
    const server = await server25();
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    const created = await admin.result<Entry>('api_key.create', [{ name: 'gone', username: 'truenas_admin' }]);
    const { key } = await createUserWithKey(server.testAppliance, 'ro', { privilegeRoles: ['READONLY_ADMIN'] });
    const ro = await loggedInWs(server.rpcUrl, key);
    expect(errorOf(await ro.call('api_key.delete', [created.id]))).toEqual(othersKeys('ro'));
    expect(await conforming(admin, 'api_key.delete', [created.id])).toBe(true);
    expect(errorOf(await admin.call('api_key.delete', [created.id]))).toEqual(instanceNotFound(created.id));
    const [own] = await ro.result<Entry[]>('api_key.my_keys');
    expect(await conforming(ro, 'api_key.delete', [own!.id])).toBe(true);
  });
});
