import { describe, expect, it } from 'vitest';
import { createUserWithKey, openTestAppliance } from '../../helpers/appliance.js';

describe('dispatcher errors', () => {
  it('answers an unauthenticated call with ENOTAUTHENTICATED (207)', async () => {
    const t = await openTestAppliance();
    const err = await t.callError(t.session(), 'privilege.query');
    expect(err.toJSON()).toMatchObject({
      code: -32001,
      message: 'Method call error',
      data: { error: 207, errname: 'ENOTAUTHENTICATED', reason: '[ENOTAUTHENTICATED] Not authenticated' },
    });
  });

  it('answers a call without the needed role with EACCES (13)', async () => {
    const t = await openTestAppliance();
    const { key } = await createUserWithKey(t, 'ro', { privilegeRoles: ['READONLY_ADMIN'] });
    const { session } = await t.login(key);
    await expect(t.call(session, 'privilege.query')).resolves.toHaveLength(4);
    const me = await t.call<{ privilege: { allowlist: unknown[] } }>(session, 'auth.me');
    expect(me.privilege.allowlist).toContainEqual({ method: 'CALL', resource: 'privilege.query' });
    const err = await t.callError(session, 'privilege.create', { name: 'x', web_shell: false });
    expect(err.toJSON()).toMatchObject({
      code: -32001,
      data: { error: 13, errname: 'EACCES', reason: '[EACCES] Not authorized' },
    });
  });

  it('answers an unknown method with -32601 before checking authentication', async () => {
    const t = await openTestAppliance();
    const err = await t.callError(t.session(), 'no.such_method');
    expect(err.toJSON()).toEqual({ code: -32601, message: 'Method does not exist' });
  });

  it('answers bad params with -32602 and pydantic-style extra triples, without coercion', async () => {
    const t = await openTestAppliance();
    const err = await t.callError(t.admin, 'privilege.create', {
      name: 'x',
      web_shell: 1,
      local_groups: ['544'],
      id: 3,
    });
    expect(err.code).toBe(-32602);
    expect(err.rpcMessage).toBe('Invalid params');
    expect(err.data?.errname).toBe('EINVAL');
    expect(err.triples).toEqual([
      ['privilege_create.web_shell', 'Input should be a valid boolean', 22],
      ['privilege_create.local_groups.0', 'Input should be a valid integer', 22],
      ['privilege_create.id', 'Extra inputs are not permitted', 22],
    ]);
    expect(err.data?.reason).toBe(
      '[EINVAL] privilege_create.web_shell: Input should be a valid boolean\n' +
        '[EINVAL] privilege_create.local_groups.0: Input should be a valid integer\n' +
        '[EINVAL] privilege_create.id: Extra inputs are not permitted\n',
    );
  });

  it('reports missing and surplus positional params', async () => {
    const t = await openTestAppliance();
    expect((await t.callError(t.admin, 'privilege.get_instance')).triples).toEqual([['id', 'Field required', 22]]);
    expect((await t.callError(t.admin, 'core.ping', 1)).triples).toEqual([
      ['', 'Too many arguments (expected 0, found 1)', 22],
    ]);
  });

  it('reports an unknown instance the way the appliance does (-32602, ENOENT inside)', async () => {
    const t = await openTestAppliance();
    const err = await t.callError(t.admin, 'privilege.get_instance', 42);
    expect(err.toJSON()).toMatchObject({
      code: -32602,
      data: {
        error: 22,
        errname: 'EINVAL',
        reason: '[ENOENT] None: Privilege 42 does not exist',
        extra: [[null, 'Privilege 42 does not exist', 2]],
      },
    });
  });
});

describe('JSON-RPC envelopes (MW/api/base/server/ws_handler/rpc.py:271-320)', () => {
  const cases: [string, string, object | null][] = [
    ['empty frame', '', { code: -32700, message: 'Expecting value: line 1 column 1 (char 0)' }],
    ['not JSON', '{"jsonrpc":', { code: -32700 }],
    [
      'a batch',
      '[{"jsonrpc":"2.0","id":1,"method":"core.ping"}]',
      { code: -32700, message: 'Batch messages are not supported at this time' },
    ],
    ['a bare number', '42', { code: -32700, message: 'Invalid Message Format' }],
    ['no jsonrpc', '{"id":1,"method":"core.ping"}', { code: -32600, message: "Missing 'jsonrpc' member" }],
    [
      'wrong jsonrpc',
      '{"jsonrpc":"1.0","id":1,"method":"core.ping"}',
      { code: -32600, message: "'jsonrpc' member must be of type string and must be exactly '2.0'" },
    ],
    [
      'a float id',
      '{"jsonrpc":"2.0","id":1.5,"method":"core.ping"}',
      { code: -32600, message: "'id' member must be of type null, string or number" },
    ],
    ['no method', '{"jsonrpc":"2.0","id":1}', { code: -32600, message: "Missing 'method' member" }],
    [
      'empty method',
      '{"jsonrpc":"2.0","id":1,"method":""}',
      { code: -32600, message: "'method' member must be of type string" },
    ],
    [
      'object params',
      '{"jsonrpc":"2.0","id":1,"method":"core.ping","params":{}}',
      { code: -32600, message: "'params' member must be of type array" },
    ],
  ];

  for (const [what, text, error] of cases) {
    it(`answers ${what}`, async () => {
      const t = await openTestAppliance();
      const reply = await t.dispatcher.handleText(t.session(), text);
      expect(reply).toMatchObject({ jsonrpc: '2.0', error: error! });
      expect((reply as { error: { data?: unknown } }).error.data).toBeUndefined();
    });
  }

  it('keeps the id, and answers a null id with id null', async () => {
    const t = await openTestAppliance();
    expect(await t.dispatcher.handleText(t.session(), '{"jsonrpc":"2.0","id":"a-b","method":"core.ping"}')).toEqual({
      jsonrpc: '2.0',
      result: 'pong',
      id: 'a-b',
    });
    expect(await t.dispatcher.handleText(t.session(), '{"jsonrpc":"2.0","id":null,"method":"core.ping"}')).toEqual({
      jsonrpc: '2.0',
      result: 'pong',
      id: null,
    });
  });

  it('sends nothing for a notification, not even an error, but still runs it', async () => {
    const t = await openTestAppliance();
    const s = t.session();
    expect(await t.dispatcher.handleText(s, '{"jsonrpc":"2.0","method":"no.such"}')).toBeNull();
    expect(await t.dispatcher.handleText(s, '{"jsonrpc":"2.0","method":"core.ping","params":{}}')).toBeNull();
    expect(
      await t.dispatcher.handleText(
        s,
        JSON.stringify({ jsonrpc: '2.0', method: 'auth.login_with_api_key', params: [t.adminKey] }),
      ),
    ).toBeNull();
    expect(s.authenticated).toBe(true);
  });
});
