/**
 * auth.sessions and its `auth.sessions` events on `stor serve --emulate truenas-25.10.1`, with raw
 * frames (MW/plugins/auth.py:119-214, 252-300, 1343; MW/api/v25_10_1/auth.py:56-91).
 */
import { describe, expect, it } from 'vitest';
import { createUserWithKey } from '../../../helpers/appliance.js';
import { loggedInWs, type Message } from '../../../helpers/server.js';
import { conforming, server25 } from '../../../conformance/harness.js';

/** AuthSessionsEntry's fields in model order. */
const FIELDS = [
  'id',
  'current',
  'internal',
  'origin',
  'credentials',
  'credentials_data',
  'created_at',
  'secure_transport',
];

describe('auth.sessions', () => {
  it("lists logged-in connections in login order, the caller's marked current, each with its API key and origin", async () => {
    const server = await server25();
    const first = await loggedInWs(server.rpcUrl, server.adminKey);
    const second = await loggedInWs(server.rpcUrl, server.adminKey);
    const all = await conforming<Record<string, any>[]>(second, 'auth.sessions');
    // The test server's own in-process administrator session (test/helpers/server.ts) is listed first, as the embedded target's.
    expect(all[0]!.origin).toMatch(/^UNIX socket \(pid=\d+ uid=\d+ gid=\d+\)$/);
    const sessions = all.slice(1);
    expect(sessions).toHaveLength(2);
    for (const s of sessions) expect(Object.keys(s)).toEqual(FIELDS);
    expect(sessions.map((s) => s.current)).toEqual([false, true]);
    expect(sessions[0]).toMatchObject({
      internal: false,
      credentials: 'API_KEY',
      secure_transport: true,
      credentials_data: { username: 'truenas_admin', api_key: { id: 1 } },
    });
    // str(app.origin) of a TCP peer: `addr:port` (MW/utils/origin.py:82-86).
    expect(sessions[0]!.origin).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(Object.keys(sessions[0]!.credentials_data)).toEqual(['username', 'login_id', 'login_at', 'api_key']);
    // Filters as every query's: the other connections only.
    expect(
      await conforming(first, 'auth.sessions', [
        [
          ['current', '=', false],
          ['origin', '^', '127.'],
        ],
        { select: ['current'] },
      ]),
    ).toEqual([{ current: false }]);
    // A connection that logs out is no longer listed (MW/plugins/auth.py:164-171).
    await first.result('auth.logout');
    expect(await second.result('auth.sessions', [[['origin', '^', '127.']], { count: true }])).toBe(1);
  });

  it('invalid arguments -32602; AUTH_SESSIONS_READ needed (auth.py:252)', async () => {
    const server = await server25();
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    expect((await admin.call('auth.sessions', ['all'])).error).toMatchObject({ code: -32602 });
    const { key } = await createUserWithKey(server.testAppliance, 'reader', { privilegeRoles: ['DATASET_READ'] });
    expect((await (await loggedInWs(server.rpcUrl, key)).call('auth.sessions')).error?.data).toMatchObject({
      errname: 'EACCES',
    });
    const { key: auditor } = await createUserWithKey(server.testAppliance, 'auditor', {
      privilegeRoles: ['AUTH_SESSIONS_READ'],
    });
    expect(await conforming(await loggedInWs(server.rpcUrl, auditor), 'auth.sessions', [[], { count: true }])).toBe(4);
  });

  it("a FULL_ADMIN subscriber hears ADDED with the session's dump at a login and REMOVED with its id at a close (auth.py:158, 179)", async () => {
    const server = await server25();
    const watcher = await loggedInWs(server.rpcUrl, server.adminKey);
    await watcher.result('core.subscribe', ['auth.sessions']);
    const other = await loggedInWs(server.rpcUrl, server.adminKey);
    const [mine] = await other.result<{ id: string }[]>('auth.sessions', [[['current', '=', true]]]);
    const event = (msg: string) => (m: Message) =>
      m.method === 'collection_update' && m.params?.collection === 'auth.sessions' && m.params?.msg === msg;
    const added = await watcher.waitFor(event('added'), 'ADDED');
    // fields=dict(id=…, **session.dump()): no `current` or `internal`, no top-level id.
    expect(added.params).toEqual({
      msg: 'added',
      collection: 'auth.sessions',
      fields: {
        id: mine!.id,
        origin: expect.any(String),
        credentials: 'API_KEY',
        credentials_data: expect.any(Object),
        created_at: { $date: expect.any(Number) },
        secure_transport: true,
      },
    });
    other.close();
    const removed = await watcher.waitFor(event('removed'), 'REMOVED');
    // send_event's `fields` of a REMOVED stays among the other keywords (MW/api/base/server/ws_handler/rpc.py:168-180).
    expect(removed.params).toEqual({
      msg: 'removed',
      collection: 'auth.sessions',
      extra: { fields: { id: mine!.id } },
    });
  });
});
