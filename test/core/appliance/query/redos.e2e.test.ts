import { describe, expect, it } from 'vitest';
import { createUserWithKey, openTestAppliance, type TestAppliance } from '../../../helpers/appliance.js';
import { connectWs, loggedInWs, startTestServer, type RpcReply, type WsClient } from '../../../helpers/server.js';
import { spawnServe } from '../../../helpers/serve-process.js';

/**
 * `stor serve` in a process of its own on the state `t` set up: a pattern that held its event loop
 * then holds only that process, and this test's calls fail on their safety net (SAFETY_MS) rather
 * than freezing the test runner with it.
 */
async function serveState(t: TestAppliance): Promise<{ rpcUrl: string }> {
  t.appliance.close();
  return spawnServe(t.stateDir);
}

/** Pings from `pinger`, one after another, until `work` is answered (at least once, at most 500 times); each must be answered. */
async function pingsWhile(pinger: WsClient, work: Promise<RpcReply>): Promise<{ reply: RpcReply; pings: number }> {
  let answered = false;
  const done = work.then((reply) => {
    answered = true;
    return reply;
  });
  let pings = 0;
  do {
    expect((await pinger.call('core.ping')).result).toBe('pong');
    pings++;
  } while (!answered && pings < 500);
  return { reply: await done, pings };
}

/** Answered with a result or refused with -32602; nothing else. */
const answeredOrRefused = (reply: RpcReply) =>
  reply.error === undefined
    ? 'answered'
    : reply.error.code === -32602
      ? 'refused'
      : `error ${reply.error.code}: ${reply.error.message}`;

// Classic catastrophic-backtracking patterns; `~` runs them on a linear-time engine. On a
// backtracking one, several would hold the server for minutes (over 20,000 characters, for ever).
// That each is answered and the bystander with it is what is asserted; how long the answer takes
// against a harmless pattern's is measured by bench/run.mjs (guards).
const HOSTILE = [
  '([A-Z_]+)+x$',
  '(a+)+$',
  '(a|aa)+$',
  '(.*a){20}$',
  '(\\w+\\s?)+$',
  '^(([a-z])+.)+[A-Z]([a-z])+$',
  '((((a*)*)*)*)*b',
];

describe('a catastrophic regular expression in `~` freezes nobody', () => {
  it('privilege.roles from a user with no roles: each is answered, and so is another client meanwhile', async () => {
    const t = await openTestAppliance();
    // Bound to a privilege that grants no role: it may log in (MW/plugins/auth_/authenticate.py:118-125) but call nothing that needs one.
    const group = await t.call<number>(t.admin, 'group.create', { name: 'noroles', smb: false });
    const [{ gid }] = (await t.call<{ gid: number }[]>(t.admin, 'group.query', [['id', '=', group]])) as [
      { gid: number },
    ];
    await t.call(t.admin, 'privilege.create', { name: 'noroles', local_groups: [gid], roles: [], web_shell: false });
    await t.call(t.admin, 'user.create', {
      username: 'noroles',
      full_name: 'No Roles',
      group,
      password: 'correct horse battery',
      smb: false,
    });
    const server = await serveState(t);
    const attacker = await connectWs(server.rpcUrl);
    const login = await attacker.result<{ response_type: string }>('auth.login_ex', [
      { mechanism: 'PASSWORD_PLAIN', username: 'noroles', password: 'correct horse battery' },
    ]);
    expect(login.response_type).toBe('SUCCESS');
    expect(await attacker.result('auth.me')).toMatchObject({ privilege: { roles: { $set: [] } } });
    const bystander = await loggedInWs(server.rpcUrl, t.adminKey);
    for (const pattern of HOSTILE) {
      const { reply } = await pingsWhile(
        bystander,
        attacker.call('privilege.roles', [[['name', '~', pattern]], { count: true }]),
      );
      expect({ pattern, outcome: answeredOrRefused(reply) }).toMatchObject({
        pattern,
        outcome: expect.stringMatching(/^(answered|refused)$/),
      });
    }
  });

  it('user.query over a long full_name: the same', async () => {
    const t = await openTestAppliance();
    await t.call(t.admin, 'user.create', {
      username: 'longname',
      full_name: 'A'.repeat(20_000),
      group_create: true,
      password_disabled: true,
      smb: false,
    });
    const { key } = await createUserWithKey(t, 'reader', { privilegeRoles: ['READONLY_ADMIN'] });
    const server = await serveState(t);
    const attacker = await loggedInWs(server.rpcUrl, key);
    const bystander = await loggedInWs(server.rpcUrl, t.adminKey);
    for (const pattern of HOSTILE) {
      const { reply } = await pingsWhile(
        bystander,
        attacker.call('user.query', [[['full_name', '~', pattern]], { count: true }]),
      );
      expect({ pattern, outcome: answeredOrRefused(reply) }).toEqual({ pattern, outcome: 'answered' });
    }
    // The engine still matches: the long name is found by a pattern that fits it.
    expect((await attacker.call('user.query', [[['full_name', '~', 'A+$']], { count: true }])).result).toBe(1);
  });
});

describe('a query cannot be made arbitrarily deep or wide', () => {
  const leaf = ['name', '=', 'x'];
  const cases: { name: string; filters: unknown[]; options: Record<string, unknown>; cap: string }[] = [
    {
      name: 'OR nested past MAX_FILTERS_DEPTH (3)',
      filters: [['OR', [['OR', [['OR', [['OR', [leaf, leaf]], leaf]], leaf]], leaf]]],
      options: {},
      cap: 'query-filters max recursion depth exceeded',
    },
    { name: '257 filters', filters: Array.from({ length: 257 }, () => leaf), options: {}, cap: 'at most 256 filters' },
    {
      name: '257 filters spread over OR branches',
      filters: [['OR', Array.from({ length: 256 }, () => leaf)]],
      options: {},
      cap: 'at most 256 filters',
    },
    {
      name: '257 select entries',
      filters: [],
      options: { select: Array.from({ length: 257 }, (_, i) => `f${i}`) },
      cap: 'select may hold at most 256 entries',
    },
    {
      name: '257 order_by entries',
      filters: [],
      options: { order_by: Array.from({ length: 257 }, (_, i) => `f${i}`) },
      cap: 'order_by may hold at most 256 entries',
    },
  ];

  it('refuses each past its cap with -32602 naming the cap; at the cap it is answered', async () => {
    const server = await startTestServer();
    const client = await loggedInWs(server.rpcUrl, server.adminKey);
    for (const c of cases) {
      const reply = await client.call('privilege.roles', [c.filters, c.options]);
      expect({ case: c.name, code: reply.error?.code }).toEqual({ case: c.name, code: -32602 });
      expect(JSON.stringify(reply.error), c.name).toContain(c.cap);
    }
    const atCap = [
      [Array.from({ length: 256 }, () => ['name', '!=', 'x']), { count: true }],
      [
        [],
        {
          select: Array.from({ length: 256 }, () => 'name'),
          order_by: Array.from({ length: 256 }, () => 'name'),
          limit: 1,
        },
      ],
    ];
    for (const params of atCap) {
      const reply = await client.call('privilege.roles', params);
      expect(reply.error, JSON.stringify(params).slice(0, 80)).toBeUndefined();
    }
  });
});

describe('a `~` pattern that is cheap to write but huge to compile is refused before it is compiled', () => {
  // `\pL{1000}` 260 times (2340 characters) once compiled to 260,000 instructions: the
  // server stalled for seconds and grew by more than a gigabyte. It is refused as any filter is.
  // `\w` stands for `\pL` here: Python's re refuses `\p` (bad escape), and so does `~` now.
  const HUGE = ['\\w{1000}'.repeat(260), '(?:\\w{1000})'.repeat(180), '(a{1000}){1000}', '(?:(?:x{30}){30}){30}'];

  it('a FILESYSTEM_ATTRS_READ user gets -32602 naming the size, and the same pattern at a sane size is answered', async () => {
    const server = await startTestServer();
    const { key } = await createUserWithKey(server.testAppliance, 'attrs', {
      privilegeRoles: ['FILESYSTEM_ATTRS_READ'],
    });
    const client = await loggedInWs(server.rpcUrl, key);
    const mount = (await client.result<{ path: string }[]>('filesystem.listdir', ['/mnt']))[0]!.path;
    for (const pattern of HUGE) {
      const reply = await client.call('filesystem.listdir', [mount, [['name', '~', pattern]], { count: true }]);
      expect({ pattern: pattern.slice(0, 20), code: reply.error?.code }).toEqual({
        pattern: pattern.slice(0, 20),
        code: -32602,
      });
      expect(JSON.stringify(reply.error)).toContain('regular expression too large');
    }
    const sane = await client.call('filesystem.listdir', [
      mount,
      [['name', '~', '\\w{1000}'.repeat(2)]],
      { count: true },
    ]);
    expect(sane.error).toBeUndefined();
  });
});

describe('`~` patterns each under the size cap cannot add up past it in one query', () => {
  // Attack on §10's fix: the cap was per pattern, so one query of 256 distinct `~` filters, each
  // just under it, compiled 2.5 M instructions (25 s of a blocked event loop, measured); and past
  // the compiled-pattern cache's room, evaluation recompiled each pattern for each item.
  const PART = '\\w{1000}'.repeat(2);

  it('six patterns of 2,000 instructions in one query get -32602 naming the size; four are answered', async () => {
    const server = await startTestServer();
    const { key } = await createUserWithKey(server.testAppliance, 'attrs', {
      privilegeRoles: ['FILESYSTEM_ATTRS_READ'],
    });
    const client = await loggedInWs(server.rpcUrl, key);
    const mount = (await client.result<{ path: string }[]>('filesystem.listdir', ['/mnt']))[0]!.path;
    const filters = (n: number, salt: string) =>
      Array.from({ length: n }, (_, i) => [
        'OR',
        [
          ['name', '~', `${PART}${salt}${i}`],
          ['name', '!=', ''],
        ],
      ]);
    const tooMuch = await client.call('filesystem.listdir', [mount, filters(6, 'a'), { count: true }]);
    expect(tooMuch.error?.code).toBe(-32602);
    expect(JSON.stringify(tooMuch.error)).toContain('regular expression too large');
    const sane = await client.call('filesystem.listdir', [mount, filters(4, 'b'), { count: true }]);
    expect(sane.error).toBeUndefined();
  });
});
