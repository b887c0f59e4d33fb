/**
 * `collection_update` events of `stor serve --emulate truenas-25.10.1` as 25.10.1 sends them, heard
 * by a raw WebSocket subscriber while `stor` (its `run()`, the same the binary calls) or another
 * connection makes the change. The sources followed (MW = src/middlewared/middlewared at TS-25.10.1):
 * - who sends: CRUDService's wrapper, MW/service/crud_service.py:204-216 (`event_send`, default
 *   true, MW/service/base.py:20); the plugins' own `send_event`, MW/plugins/pool_/snapshot.py:71,
 *   82-87 and MW/plugins/pool_/dataset.py:663, 800;
 * - the frame: `RpcWebSocketApp.send_event`, MW/api/base/server/ws_handler/rpc.py:158-200;
 * - who may subscribe: `can_subscribe`, MW/main.py:926-939; the events' roles,
 *   MW/service/crud_service.py:115-133 with MW/role.py:333-334, 367-381.
 */
import { describe, expect, it } from 'vitest';
import { contractViolations } from '../../../src/core/contract/conformance.js';
import { CONTRACT, type MethodName } from '../../../src/core/contract/index.js';
import { createUserWithKey } from '../../helpers/appliance.js';
import { runStor } from '../../helpers/run-stor.js';
import { loggedInWs, type Message, type TestServer } from '../../helpers/server.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { conforming, errorOf, server25 } from '../../conformance/harness.js';

const PASSWORD = 'Corr3ct horse-battery';

/** `stor` against the server, as its administrator. */
function storAgainst(server: TestServer) {
  const env = {
    STOR_HOME: tempDir(),
    STOR_URL: server.rpcUrl.replace(/\/api\/current$/, ''),
    STOR_API_KEY: server.adminKey,
  };
  return async (args: string[], stdin?: string) => {
    const r = await runStor(args, { env, ...(stdin !== undefined ? { stdin } : {}) });
    expect(r.code, `stor ${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r.stdout;
  };
}

/**
 * A subscriber to `collections`, and what it has heard of them. Events of a call are sent before
 * its answer (inside the call, MW/service/crud_service.py:213-217); a ping answered on the
 * subscriber's own connection after that answer comes after them on the wire.
 */
async function subscriber(server: TestServer, key: string, collections: string[]) {
  const ws = await loggedInWs(server.rpcUrl, key);
  for (const c of collections) await ws.result('core.subscribe', [c]);
  const heard = async (collection?: string): Promise<Message['params'][]> => {
    await ws.result('core.ping');
    return ws.messages
      .filter(
        (m) => m.method === 'collection_update' && (collection === undefined || m.params.collection === collection),
      )
      .map((m) => m.params);
  };
  return { ws, heard };
}

/** The fields of an event match the result of the method whose answer they are. */
function expectFieldsOf(method: MethodName, fields: unknown) {
  expect(contractViolations(CONTRACT[method].result, fields)).toEqual([]);
}

describe('collection_update events as 25.10.1 sends them', () => {
  it('user.query: ADDED, CHANGED, REMOVED for stor user create / update / delete, fields the entry plus `password` (crud_service.py:204-216, account.py:762, 993, 1110; rpc.py:168-181)', async () => {
    const server = await server25();
    const { ws, heard } = await subscriber(server, server.adminKey, ['user.query']);
    const stor = storAgainst(server);
    await stor(['user', 'create', 'alice', '--full-name', 'Alice A', '--password-stdin', '--json'], `${PASSWORD}\n`);
    await stor(['user', 'update', 'alice', '--full-name', 'Alice B', '--json']);
    const [alice] = await conforming<{ id: number }[]>(ws, 'user.query', [[['username', '=', 'alice']]]);
    await stor(['user', 'delete', 'alice', '--yes', '--json']);

    const events = await heard();
    expect(events.map((e) => e.msg)).toEqual(['added', 'changed', 'removed']);
    const [added, changed, removed] = events;
    // The frame: `jsonrpc`, `method`, `params` only (rpc.py:195-200); params in send_event's order.
    const frame = ws.messages.find((m) => m.method === 'collection_update')!;
    expect(Object.keys(frame)).toEqual(['jsonrpc', 'method', 'params']);
    expect(Object.keys(added)).toEqual(['msg', 'collection', 'id', 'fields']);
    expect(added).toMatchObject({
      collection: 'user.query',
      id: alice!.id,
      fields: { id: alice!.id, username: 'alice', full_name: 'Alice A' },
    });
    // `| {'password': password}` (account.py:762): the password as given, in the event too.
    expect(added.fields.password).toBe(PASSWORD);
    expectFieldsOf('user.create', added.fields);
    // update: the id is the argument's (crud_service.py:207); no new password, so null (account.py:980, 993).
    expect(changed).toMatchObject({
      collection: 'user.query',
      id: alice!.id,
      fields: { full_name: 'Alice B', password: null },
    });
    expectFieldsOf('user.update', changed.fields);
    // delete answers the id, not a dict: no fields (crud_service.py:208-209; rpc.py:175-177).
    expect(removed).toEqual({ msg: 'removed', collection: 'user.query', id: alice!.id });
  });

  it('group.query: create and update answer the bare id and send nothing; delete sends REMOVED, also the primary group user.delete removes (crud_service.py:206; account.py:2048, 2127, 2188, 1071-1072)', async () => {
    const server = await server25();
    const { heard } = await subscriber(server, server.adminKey, ['group.query']);
    const stor = storAgainst(server);
    await stor(['group', 'create', 'ops', '--json']);
    await stor(['group', 'update', 'ops', '--name', 'ops2', '--json']);
    expect(await heard()).toEqual([]);
    const ops = JSON.parse(await stor(['group', 'show', 'ops2', '--json'])) as { id: number };
    await stor(['group', 'delete', 'ops2', '--yes', '--json']);
    expect(await heard()).toEqual([{ msg: 'removed', collection: 'group.query', id: ops.id }]);

    // user.delete {delete_group: true} deletes the primary group through group.delete.
    await stor(['user', 'create', 'bob', '--password-stdin', '--json'], `${PASSWORD}\n`);
    const bobGroup = JSON.parse(await stor(['group', 'show', 'bob', '--json'])) as { id: number };
    await stor(['user', 'delete', 'bob', '--delete-group', '--yes', '--json']);
    expect((await heard()).slice(1)).toEqual([{ msg: 'removed', collection: 'group.query', id: bobGroup.id }]);
  });

  it('privilege.query: ADDED, CHANGED with the entry, REMOVED without fields (crud_service.py:204-216; account_/privilege.py:89, 153, 172)', async () => {
    const server = await server25();
    const { heard } = await subscriber(server, server.adminKey, ['privilege.query']);
    const stor = storAgainst(server);
    await stor(['group', 'create', 'ops', '--json']);
    const made = JSON.parse(
      await stor(['privilege', 'create', 'ops', '--groups', 'ops', '--roles', 'READONLY_ADMIN', '--json']),
    ) as { id: number };
    await stor(['privilege', 'update', 'ops', '--roles', 'SHARING_ADMIN', '--json']);
    await stor(['privilege', 'delete', 'ops', '--yes', '--json']);
    const [added, changed, removed, ...rest] = await heard();
    expect(rest).toEqual([]);
    expect(added).toMatchObject({
      msg: 'added',
      collection: 'privilege.query',
      id: made.id,
      fields: { id: made.id, name: 'ops', roles: ['READONLY_ADMIN'] },
    });
    expectFieldsOf('privilege.create', added.fields);
    expect(changed).toMatchObject({
      msg: 'changed',
      collection: 'privilege.query',
      id: made.id,
      fields: { roles: ['SHARING_ADMIN'] },
    });
    expectFieldsOf('privilege.update', changed.fields);
    expect(removed).toEqual({ msg: 'removed', collection: 'privilege.query', id: made.id });
  });

  it('api_key.query: ADDED with the key, CHANGED on update, REMOVED on stor api-key revoke (api_key.py:232, 281-285, 312; crud_service.py:204-216)', async () => {
    const server = await server25();
    const { ws, heard } = await subscriber(server, server.adminKey, ['api_key.query']);
    const stor = storAgainst(server);
    await stor(['api-key', 'create', 'ci', '--user', 'truenas_admin', '--json']);
    const [ci] = await conforming<{ id: number }[]>(ws, 'api_key.query', [[['name', '=', 'ci']]]);
    await conforming(ws, 'api_key.update', [ci!.id, { name: 'ci2' }]);
    await stor(['api-key', 'revoke', 'ci2', '--yes', '--json']);
    const [added, changed, removed, ...rest] = await heard();
    expect(rest).toEqual([]);
    // `dict(data, key=...)` (api_key.py:232): every subscriber hears the new key.
    expect(added).toMatchObject({
      msg: 'added',
      collection: 'api_key.query',
      id: ci!.id,
      fields: { name: 'ci', key: expect.stringMatching(new RegExp(`^${ci!.id}-`)) },
    });
    expectFieldsOf('api_key.create', added.fields);
    expect(changed).toMatchObject({ msg: 'changed', collection: 'api_key.query', id: ci!.id, fields: { name: 'ci2' } });
    expect(changed.fields).not.toHaveProperty('key');
    expectFieldsOf('api_key.update', changed.fields);
    expect(removed).toEqual({ msg: 'removed', collection: 'api_key.query', id: ci!.id });
  });

  it('pool.snapshot.query: ADDED with the entry on stor snapshot create, REMOVED with extra.recursive on delete (pool_/snapshot.py:19, 71, 82-87; rpc.py:178-179)', async () => {
    const server = await server25();
    const { ws, heard } = await subscriber(server, server.adminKey, ['pool.snapshot.query']);
    const stor = storAgainst(server);
    await conforming(ws, 'pool.dataset.create', [{ name: 'tank/a' }]);
    await stor(['snapshot', 'create', 'tank/a@one', '--json']);
    const made = await conforming<Record<string, unknown>>(ws, 'pool.snapshot.get_instance', ['tank/a@one']);
    await stor(['snapshot', 'delete', 'tank/a@one', '--yes', '--json']);
    const [added, removed, ...rest] = await heard();
    expect(rest).toEqual([]);
    expect(added).toEqual({ msg: 'added', collection: 'pool.snapshot.query', id: 'tank/a@one', fields: made });
    expectFieldsOf('pool.snapshot.create', added.fields);
    expect(removed).toEqual({
      msg: 'removed',
      collection: 'pool.snapshot.query',
      id: 'tank/a@one',
      extra: { recursive: false },
    });
  });

  it('pool.dataset.query: ADDED on create, CHANGED on update, each with the entry (pool_/dataset.py:40, 663, 800)', async () => {
    const server = await server25();
    const { ws, heard } = await subscriber(server, server.adminKey, ['pool.dataset.query']);
    const created = await conforming<Record<string, unknown>>(ws, 'pool.dataset.create', [{ name: 'tank/b' }]);
    const updated = await conforming<Record<string, unknown>>(ws, 'pool.dataset.update', [
      'tank/b',
      { comments: 'hello' },
    ]);
    expect(await heard()).toEqual([
      { msg: 'added', collection: 'pool.dataset.query', id: 'tank/b', fields: created },
      { msg: 'changed', collection: 'pool.dataset.query', id: 'tank/b', fields: updated },
    ]);
  });

  it('a connection hears the collections it subscribed to (`*`: all), each event once however many subscriptions match; another connection nothing else (rpc.py:158-166)', async () => {
    const server = await server25();
    const { heard } = await subscriber(server, server.adminKey, ['privilege.query', 'user.query', '*', 'user.query']);
    const stor = storAgainst(server);
    await stor(['group', 'create', 'ops', '--json']);
    await stor(['group', 'delete', 'ops', '--yes', '--json']);
    await stor(['user', 'create', 'carol', '--password-stdin', '--json'], `${PASSWORD}\n`);
    // `*` also hears each stor run's login and logout (auth.sessions, MW/plugins/auth.py:158, 179).
    const events = await heard();
    // Each run's ADDED is heard before its calls' events; its REMOVED when the server has seen the close.
    expect(events.filter((e) => e.collection === 'auth.sessions' && e.msg === 'added')).toHaveLength(3);
    expect(events.filter((e) => e.collection !== 'auth.sessions').map((e) => [e.msg, e.collection])).toEqual([
      ['removed', 'group.query'],
      ['added', 'user.query'],
    ]);
    const other = await subscriber(server, server.adminKey, ['privilege.query']);
    await stor(['user', 'delete', 'carol', '--yes', '--json']);
    expect(await other.heard()).toEqual([]);
  });

  it('roles: ACCOUNT_READ (through READONLY_ADMIN) may subscribe to user.query and hears it; a session without it is refused EACCES "Not authorized" (core_service.py:708-710; main.py:926-939; crud_service.py:115-133)', async () => {
    const server = await server25();
    const { key: roKey } = await createUserWithKey(server.testAppliance, 'ro', { privilegeRoles: ['READONLY_ADMIN'] });
    const { key: snapKey } = await createUserWithKey(server.testAppliance, 'snap', {
      privilegeRoles: ['SNAPSHOT_READ'],
    });
    const ro = await subscriber(server, roKey, ['user.query']);
    const me = await conforming<{ privilege: { allowlist: unknown[] } }>(ro.ws, 'auth.me');
    // allowlist_for_role: the event's SUBSCRIBE entry beside the methods' CALL entries (role.py:367-381).
    expect(me.privilege.allowlist).toContainEqual({ method: 'SUBSCRIBE', resource: 'user.query' });
    expect(me.privilege.allowlist).toContainEqual({ method: 'CALL', resource: 'user.query' });

    const snap = await loggedInWs(server.rpcUrl, snapKey);
    for (const event of ['user.query', 'group.query', 'privilege.query', '*']) {
      expect(errorOf(await snap.call('core.subscribe', [event]))).toMatchObject({
        code: -32001,
        message: 'Method call error',
        data: { error: 13, errname: 'EACCES', reason: '[EACCES] Not authorized' },
      });
    }
    expect(typeof (await snap.result('core.subscribe', ['pool.snapshot.query']))).toBe('string');

    const stor = storAgainst(server);
    await stor(['user', 'create', 'dave', '--password-stdin', '--json'], `${PASSWORD}\n`);
    const [added, ...rest] = await ro.heard();
    expect(rest).toEqual([]);
    // The fields are sent as the plugin returned them, to every subscriber alike (main.py:1130-1147).
    expect(added).toMatchObject({
      msg: 'added',
      collection: 'user.query',
      fields: { username: 'dave', password: PASSWORD },
    });
    await snap.result('core.ping');
    expect(snap.messages.some((m) => m.method === 'collection_update')).toBe(false);
  });
});
