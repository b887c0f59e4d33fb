import { describe, expect, it } from 'vitest';
import { applyQuery, matchesFilters, parseQueryArgs, query } from '../../../../src/core/appliance/query/index.js';
import { ERRNO, RpcError } from '../../../../src/core/errors.js';
import { PatternRefusal, pythonPatternException } from '../../../../src/core/appliance/query/python.js';

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

const JAN_2024 = Date.UTC(2024, 0, 1);
const JUN_2025 = Date.UTC(2025, 5, 1, 12, 30);

// Frozen: any mutation by the engine throws (ESM is strict mode).
const USERS = deepFreeze([
  {
    id: 1,
    username: 'root',
    uid: 0,
    email: null,
    builtin: true,
    groups: [1, 2],
    shell: '/usr/bin/zsh',
    tags: ['Admin', 'ops'],
    group: { id: 10, bsdgrp_group: 'wheel' },
    members: [{ name: 'a' }, { name: 'b' }],
    created: { $date: JAN_2024 },
  },
  {
    id: 2,
    username: 'truenas_admin',
    uid: 950,
    email: 'admin@example.com',
    builtin: false,
    groups: [2],
    shell: '/usr/bin/bash',
    tags: [],
    group: { id: 11, bsdgrp_group: 'truenas_admin' },
    members: [],
    created: { $date: JUN_2025 },
  },
  {
    id: 3,
    username: 'Bob',
    uid: 3000,
    email: null,
    builtin: false,
    groups: [],
    shell: '/usr/bin/zsh',
    tags: ['dev'],
    group: { id: 12, bsdgrp_group: 'Bob' },
    members: [{ name: 'c' }],
    created: { $date: JUN_2025 + 1000 },
  },
]);

function ids(filters: unknown, options: unknown = {}, items: readonly object[] = USERS): unknown[] {
  const out = query(items, filters, options);
  expect(Array.isArray(out)).toBe(true);
  return (out as { id: unknown }[]).map((x) => x.id);
}

function catchErr(fn: () => unknown): RpcError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RpcError);
    return err as RpcError;
  }
  throw new Error('expected an RpcError');
}

/** Asserts a -32602 ValidationErrors with exactly these [attribute, message] pairs (errno 22). */
function expectValidation(fn: () => unknown, pairs: [string, string][]): void {
  const err = catchErr(fn);
  expect(err.code).toBe(-32602);
  expect(err.rpcMessage).toBe('Invalid params');
  expect(err.data?.error).toBe(ERRNO.EINVAL);
  expect(err.data?.errname).toBe('EINVAL');
  expect(err.data?.extra).toEqual(pairs.map(([a, m]) => [a, m, 22]));
  expect(err.data?.reason).toBe(pairs.map(([a, m]) => `[EINVAL] ${a}: ${m}\n`).join(''));
}

function filterError(filters: unknown, message: string): void {
  expectValidation(() => query(USERS, filters, {}), [['filters', message]]);
}

function optionsError(options: unknown, pairs: [string, string][]): void {
  expectValidation(() => query(USERS, [], options), pairs);
}

describe('filters: operators', () => {
  it('= and != (null, missing keys, Python equality)', () => {
    expect(ids([['username', '=', 'root']])).toEqual([1]);
    expect(ids([['email', '=', null]])).toEqual([1, 3]);
    expect(ids([['groups', '=', [1, 2]]])).toEqual([1]);
    expect(ids([['group', '=', { bsdgrp_group: 'wheel', id: 10 }]])).toEqual([1]);
    expect(ids([['builtin', '=', 1]])).toEqual([1]); // Python: True == 1
    expect(ids([['uid', '!=', 0]])).toEqual([2, 3]);
    expect(ids([['email', '!=', null]])).toEqual([2]);
    // A missing key never matches, not even with !=.
    expect(ids([['nokey', '!=', 1]])).toEqual([]);
    expect(ids([['nokey', '=', null]])).toEqual([]);
    expect(ids([['group.nokey', '!=', 'x']])).toEqual([]);
  });

  it('> >= < <= (and mismatched / null types never match)', () => {
    expect(ids([['uid', '>', 0]])).toEqual([2, 3]);
    expect(ids([['uid', '>=', 950]])).toEqual([2, 3]);
    expect(ids([['uid', '<', 950]])).toEqual([1]);
    expect(ids([['uid', '<=', 950]])).toEqual([1, 2]);
    expect(ids([['username', '>=', 'bob']])).toEqual([1, 2]); // 'B' < 'b'
    expect(ids([['username', '<', 'r']])).toEqual([3]);
    expect(ids([['email', '>', 'a']])).toEqual([2]);
    expect(ids([['email', '<', 'zzz']])).toEqual([2]);
    expect(ids([['uid', '>', 'x']])).toEqual([]);
    expect(ids([['uid', '<', null]])).toEqual([]);
    expect(ids([['groups', '>', [1]]])).toEqual([1, 2]); // list ordering
  });

  it('~ is re.match: anchored at start, null field treated as ""', () => {
    expect(ids([['username', '~', 'tru']])).toEqual([2]);
    expect(ids([['username', '~', 'nas']])).toEqual([]);
    expect(ids([['username', '~', '.*nas']])).toEqual([2]);
    expect(ids([['username', '~', '(?P<x>B)ob']])).toEqual([3]);
    expect(ids([['email', '~', 'a?$']])).toEqual([1, 3]);
    expect(ids([['uid', '~', '9']])).toEqual([]); // non-string field
    expect(ids([['username', '~', '(?P<x>t)ru.*\\Z']])).toEqual([2]); // Python's \Z
  });

  it('~ reads what RE2 reads differently as Python does: `$` before a final newline, {,n}, [ in a set, comments, \\u', () => {
    // Python 3.11's re (Lib/re/_parser.py): `$` is AT_END, `{,n}` repeats from 0, `[[:digit:]]` is
    // a set of `[:digt` and then `]`, `(?#…)` a comment, `\\u0061` an `a`.
    const items = [
      { id: 1, name: 'x\n' },
      { id: 2, name: 'aab' },
      { id: 3, name: 'd]' },
      { id: 4, name: '3' },
      { id: 5, name: 'a' },
    ];
    expect(ids([['name', '~', 'x$']], {}, items)).toEqual([1]);
    expect(ids([['name', '~', 'x\\Z']], {}, items)).toEqual([]);
    expect(ids([['name', '~', 'a{,2}b']], {}, items)).toEqual([2]);
    expect(ids([['name', '~', '[[:digit:]]+']], {}, items)).toEqual([3]);
    expect(ids([['name', '~', '(?#c)\\u0061']], {}, items)).toEqual([2, 5]);
  });

  it('~ runs on a linear-time engine: a pattern that backtracks catastrophically in JavaScript answers at once', () => {
    const many = [{ id: 1, name: 'A'.repeat(5000) }];
    expect(ids([['name', '~', '([A-Z_]+)+x$']], {}, many)).toEqual([]);
  });

  it('~ refuses, with -32602, a pattern it cannot run in linear time', () => {
    for (const pattern of ['(a)\\1', '(?=a)', '(?<=a)b', 'a*+', '(?>a)', '(a)(?(1)a|b)', 'x{1001}']) {
      const err = catchErr(() => query(USERS, [['username', '~', pattern]], {}));
      expect(err.code).toBe(-32602);
      expect(err.triples[0]![0]).toBe('filters');
      expect(err.triples[0]![1]).toContain(`Value error, ${pattern}: regular expression not supported by the emulator`);
    }
  });

  it("~ with a pattern Python's re refuses raises its exception, in its words, once a filter reaches an item (test/fixtures/python-re/corpus.json)", () => {
    // re.match compiles the pattern when it runs on an item (TS-25.10.1 MW/utils/filter_list.py:153-157;
    // TS-26.0.0-BETA.3 MW/api/base/validators/filter_ops.py:29-32); the filter validators never
    // compile it (TS-25.10.1 filter_list.py:205-262, TS-26.0.0-BETA.3 validators/filters.py:12-70).
    const refused: [string, string][] = [
      ['(', 'missing ), unterminated subpattern at position 0'],
      [')', 'unbalanced parenthesis at position 0'],
      ['^*', 'nothing to repeat at position 1'],
      ['$?', 'nothing to repeat at position 1'],
      ['\\b+', 'nothing to repeat at position 2'],
      ['a**', 'multiple repeat at position 2'],
      ['(?P<1>x)', "bad character in group name '1' at position 4"],
      ['(?<=a+)', 'look-behind requires fixed-width pattern'],
      ['\\q', 'bad escape \\q at position 0'],
      ['a{2,1}', 'min repeat greater than max repeat at position 2'],
      ['a(?i)', 'global flags not at the start of the expression at position 1'],
      ['[\\d-z]', 'bad character range \\d-z at position 1'],
      ['\\400', 'octal escape value \\400 outside of range 0-0o377 at position 0'],
      ['(?<n>a)', 'unknown extension ?<n at position 1'],
    ];
    const refusal = (fn: () => unknown): PatternRefusal => {
      try {
        fn();
      } catch (err) {
        expect(err).toBeInstanceOf(PatternRefusal);
        return err as PatternRefusal;
      }
      throw new Error('expected a PatternRefusal');
    };
    for (const [pattern, text] of refused) {
      const err = refusal(() => query(USERS, [['username', '~', pattern]], {}));
      expect(err.answers).toEqual({ '3.11': text, '3.13': text });
      expect(pythonPatternException(err, '3.11').toJSON()).toMatchObject({
        code: -32001,
        data: { reason: text, trace: { class: 'error' } },
      });
      expect(pythonPatternException(err, '3.13').toJSON().data).toMatchObject({ trace: { class: 'PatternError' } });
      // No item, or none that reaches the filter: Python never compiles it, and the query answers.
      expect(query([], [['username', '~', pattern]], {})).toEqual([]);
      expect(
        query(
          USERS,
          [
            ['id', '=', -1],
            ['username', '~', pattern],
          ],
          {},
        ),
      ).toEqual([]);
      // A field that is no string still compiles the pattern first.
      refusal(() => query(USERS, [['uid', '~', pattern]], {}));
    }
    expect(
      pythonPatternException(
        refusal(() => query(USERS, [['username', '~', '(']], {})),
        '3.11',
      ).toJSON().data,
    ).toMatchObject({ trace: { repr: "error('missing ), unterminated subpattern at position 0')" } });
    // _parser.py's OverflowError for a repeat count past MAXREPEAT.
    const overflow = refusal(() => query(USERS, [['username', '~', 'x{4294967296}']], {}));
    expect(pythonPatternException(overflow, '3.13').toJSON().data).toMatchObject({
      reason: 'the repetition number is too large',
      trace: { class: 'OverflowError' },
    });
    // Where the two Pythons differ, each release's words (3.13 has no TEMPLATE flag).
    expect(refusal(() => query(USERS, [['username', '~', '(?t:a)']], {})).answers).toEqual({
      '3.11': 'bad inline flags: cannot turn on global flag at position 3',
      '3.13': 'unknown extension ?t at position 1',
    });
  });

  it("~ runs what Python's re reads and RE2 can: verbose, scoped flags, [\\b], any group name, global flags after a comment", () => {
    const items = [
      { id: 1, name: 'ab' },
      { id: 2, name: 'a b' },
      { id: 3, name: '\b' },
      { id: 4, name: 'Ab' },
    ];
    expect(ids([['name', '~', '(?x) a b  # a comment']], {}, items)).toEqual([1]);
    expect(ids([['name', '~', '(?x)a\\ b']], {}, items)).toEqual([2]);
    expect(ids([['name', '~', '(?x)a[ ]b']], {}, items)).toEqual([2]);
    expect(ids([['name', '~', '(?x:a b)']], {}, items)).toEqual([1]);
    expect(ids([['name', '~', '(?x)(?-x:a b)']], {}, items)).toEqual([2]);
    expect(ids([['name', '~', '(?i:a)b']], {}, items)).toEqual([1, 4]);
    expect(ids([['name', '~', '[\\b]']], {}, items)).toEqual([3]);
    expect(ids([['name', '~', '(?P<é>a)b']], {}, items)).toEqual([1]);
    expect(ids([['name', '~', '(?#c)(?i)(?s)ab']], {}, items)).toEqual([1, 4]);
  });

  it('in / nin', () => {
    expect(ids([['uid', 'in', [0, 3000]]])).toEqual([1, 3]);
    expect(ids([['username', 'in', 'xrootx']])).toEqual([1]);
    expect(ids([['email', 'in', [null]]])).toEqual([1, 3]);
    expect(ids([['uid', 'nin', [0]]])).toEqual([2, 3]);
    expect(ids([['email', 'nin', ['x']]])).toEqual([2]); // null field → false
  });

  it('rin / rnin', () => {
    expect(ids([['groups', 'rin', 2]])).toEqual([1, 2]);
    expect(ids([['tags', 'rin', 'dev']])).toEqual([3]);
    expect(ids([['username', 'rin', 'oo']])).toEqual([1]);
    expect(ids([['email', 'rin', 'admin']])).toEqual([2]); // null field → false
    expect(ids([['groups', 'rnin', 1]])).toEqual([2, 3]);
    expect(ids([['email', 'rnin', 'zzz']])).toEqual([2]); // null field → false
  });

  it('^ !^ $ !$ (null field → false)', () => {
    expect(ids([['username', '^', 'tru']])).toEqual([2]);
    expect(ids([['email', '^', 'adm']])).toEqual([2]);
    expect(ids([['username', '!^', 'r']])).toEqual([2, 3]);
    expect(ids([['email', '!^', 'x']])).toEqual([2]);
    expect(ids([['shell', '$', 'zsh']])).toEqual([1, 3]);
    expect(ids([['email', '$', '.com']])).toEqual([2]);
    expect(ids([['shell', '!$', 'zsh']])).toEqual([2]);
    expect(ids([['email', '!$', '.org']])).toEqual([2]);
    expect(ids([['uid', '^', '0']])).toEqual([]);
  });

  it('C-prefixed operators are case-insensitive', () => {
    expect(ids([['username', '=', 'BOB']])).toEqual([]);
    expect(ids([['username', 'C=', 'BOB']])).toEqual([3]);
    expect(ids([['username', 'C!=', 'bob']])).toEqual([1, 2]);
    expect(ids([['username', 'C>=', 'bob']])).toEqual([1, 2, 3]);
    expect(ids([['username', 'C<', 'c']])).toEqual([3]);
    expect(ids([['username', 'Cin', ['ROOT', 'bob']]])).toEqual([1, 3]);
    expect(ids([['username', 'Cnin', ['ROOT']]])).toEqual([2, 3]);
    expect(ids([['tags', 'Crin', 'admin']])).toEqual([1]);
    expect(ids([['tags', 'Crnin', 'ADMIN']])).toEqual([2, 3]);
    expect(ids([['username', 'C^', 'BO']])).toEqual([3]);
    expect(ids([['username', 'C!^', 'T']])).toEqual([1, 3]);
    expect(ids([['username', 'C$', 'ADMIN']])).toEqual([2]);
    expect(ids([['username', 'C!$', 'OB']])).toEqual([1, 2]);
    expect(ids([['email', 'C^', 'ADM']])).toEqual([2]); // null stays false
    const streets = [{ id: 'x', name: 'Straße' }];
    expect(ids([['name', 'C=', 'STRASSE']], {}, streets)).toEqual(['x']); // casefold, not lower()
    // str.casefold() per code point (MW/utils/filter_list.py:341-344): ẞ folds to ss, the dotless ı to itself.
    expect(ids([['name', 'C=', 'STRAẞE']], {}, streets)).toEqual(['x']);
    expect(ids([['name', 'C=', 'ı']], {}, [{ id: 'i', name: 'I' }])).toEqual([]);
  });
});

describe('filters: structure and paths', () => {
  it('ANDs top-level conditions', () => {
    expect(
      ids([
        ['builtin', '=', false],
        ['shell', '$', 'zsh'],
      ]),
    ).toEqual([3]);
    expect(ids([])).toEqual([1, 2, 3]);
  });

  it('OR with single-condition and AND-list branches', () => {
    const f = [
      [
        'OR',
        [
          ['uid', '=', 0],
          [
            ['builtin', '=', false],
            ['username', '^', 'B'],
          ],
        ],
      ],
    ];
    expect(ids(f)).toEqual([1, 3]);
    // An AND branch that fails on one condition does not match.
    expect(
      ids([
        [
          'OR',
          [
            [
              ['uid', '=', 950],
              ['builtin', '=', true],
            ],
          ],
        ],
      ]),
    ).toEqual([]);
    // OR combined with a top-level AND condition, and an OR nested in a branch.
    expect(
      ids([
        [
          'OR',
          [
            ['uid', '=', 0],
            ['uid', '=', 950],
          ],
        ],
        ['email', '!=', null],
      ]),
    ).toEqual([2]);
    expect(
      ids([
        [
          'OR',
          [
            [
              [
                'OR',
                [
                  ['uid', '=', 0],
                  ['uid', '=', 3000],
                ],
              ],
              ['shell', '$', 'zsh'],
            ],
          ],
        ],
      ]),
    ).toEqual([1, 3]);
  });

  it('allows OR nesting to depth 3 and rejects depth 4', () => {
    const nest = (n: number): unknown[] => (n === 1 ? ['OR', [['uid', '=', 0]]] : ['OR', [nest(n - 1)]]);
    expect(ids([nest(3)])).toEqual([1]);
    filterError([nest(4)], 'Value error, query-filters max recursion depth exceeded');
    // AND-list branches count as a level too.
    const andNest = (n: number): unknown[] => (n === 1 ? ['OR', [[['uid', '=', 0]]]] : ['OR', [[andNest(n - 1)]]]);
    expect(ids([andNest(3)])).toEqual([1]);
    filterError([andNest(4)], 'Value error, query-filters max recursion depth exceeded');
  });

  it('OR needs at least one branch', () => {
    filterError([['OR', []]], 'Value error, OR filter requires at least one branch.');
    filterError([['OR', null]], 'Value error, OR filter requires at least one branch.');
  });

  it('dot paths into objects and list indexes', () => {
    expect(ids([['group.bsdgrp_group', '=', 'wheel']])).toEqual([1]);
    expect(ids([['groups.0', '=', 2]])).toEqual([2]);
    expect(ids([['members.0.name', '=', 'c']])).toEqual([3]);
    // As upstream, an index past the end of a list reads as null.
    expect(ids([['groups.1', '=', null]])).toEqual([2, 3]);
  });

  it('* over a list matches if any element matches', () => {
    expect(ids([['tags.*', '=', 'dev']])).toEqual([3]);
    expect(ids([['members.*.name', '=', 'b']])).toEqual([1]);
    expect(ids([['members.*.name', 'in', ['a', 'c']]])).toEqual([1, 3]);
    expect(ids([['members.*.name', '!=', 'a']])).toEqual([1, 3]); // 'b' != 'a'; empty list never matches
    expect(ids([['tags.*', 'C=', 'ADMIN']])).toEqual([1]);
  });

  it('escaped dots address keys containing a dot', () => {
    const items = [
      { id: 1, 'a.b': 1, a: { b: 2 } },
      { id: 2, 'a.b': 2, a: { b: 1 } },
    ];
    expect(ids([['a\\.b', '=', 1]], {}, items)).toEqual([1]);
    expect(ids([['a.b', '=', 1]], {}, items)).toEqual([2]);
  });

  it('.$date fields compare against ISO-8601 strings', () => {
    expect(ids([['created.$date', '>', '2024-06-01T00:00:00']])).toEqual([2, 3]);
    expect(ids([['created.$date', '=', '2024-01-01T00:00:00Z']])).toEqual([1]);
    expect(ids([['created.$date', '=', '2024-01-01T01:00:00+01:00']])).toEqual([1]);
    expect(ids([['created.$date', '=', '2024-01-01']])).toEqual([1]);
    expect(ids([['created.$date', '!=', '2024-01-01T00:00:00']])).toEqual([2, 3]);
    expect(ids([['created.$date', '<=', '2025-06-01T12:30:00']])).toEqual([1, 2]);
    expect(ids([['created.$date', '<', '2025-06-01T12:30:00.000']])).toEqual([1]);
    expect(ids([['created.$date', '>=', '2025-06-01T12:30:01']])).toEqual([3]);
    filterError([['created.$date', 'in', ['2024-01-01']]], 'Value error, in: invalid timestamp operation.');
    filterError([['created.$date', '^', '2024']], 'Value error, ^: invalid timestamp operation.');
    filterError(
      [['created.$date', '>', 'yesterday']],
      'Value error, yesterday: must be an ISO-8601 formatted timestamp string',
    );
    filterError([['created.$date', '>', 5]], 'Value error, 5: must be an ISO-8601 formatted timestamp string');
  });

  it('rejects invalid filters and operations', () => {
    filterError([['a', '=', 1, 2]], "Value error, Invalid filter ['a', '=', 1, 2]");
    filterError([['a']], "Value error, Invalid filter ['a']");
    filterError(['a'], "Value error, Invalid filter 'a'");
    filterError([5], 'Value error, Invalid filter 5');
    filterError([['OR', [5]]], 'Value error, Invalid filter 5');
    filterError([['a', '=']], 'Value error, Invalid operation: a');
    filterError([['a', 'like', 1]], 'Value error, Invalid operation: like');
    filterError([['a', 'Cfoo', 1]], 'Value error, Invalid operation: Cfoo');
    filterError([['a', 'C~', 'x']], 'Value error, Invalid case-insensitive operation: C~');
    filterError(
      [
        [
          'OR',
          [
            ['a', '=', 1],
            ['b', '===', 1],
          ],
        ],
      ],
      'Value error, Invalid operation: ===',
    );
    filterError({}, 'Input should be a valid list');
    filterError(null, 'Input should be a valid list');
  });

  it('matchesFilters evaluates one item', () => {
    expect(matchesFilters(USERS[0]!, [['uid', '=', 0]])).toBe(true);
    expect(
      matchesFilters(USERS[0]!, [
        ['uid', '=', 0],
        ['builtin', '=', false],
      ]),
    ).toBe(false);
    expect(matchesFilters(USERS[1]!, [])).toBe(true);
  });
});

describe('options', () => {
  it('select: names, [field, alias] pairs, nested dot paths; input not mutated', () => {
    const out = query(USERS, [['uid', '<', 1000]], {
      select: ['username', ['uid', 'user_id'], 'group.bsdgrp_group', 'nokey', ['nokey', 'alias']],
    });
    expect(out).toEqual([
      { username: 'root', user_id: 0, group: { bsdgrp_group: 'wheel' } },
      { username: 'truenas_admin', user_id: 950, group: { bsdgrp_group: 'truenas_admin' } },
    ]);
    // Two paths into the same object merge; a whole object followed by a sub-path must not write into the item.
    expect(query(USERS, [['id', '=', 1]], { select: ['group.id', 'group.bsdgrp_group'] })).toEqual([
      { group: { id: 10, bsdgrp_group: 'wheel' } },
    ]);
    const merged = query(USERS, [['id', '=', 1]], { select: ['group', 'group.id'] }) as { group: object }[];
    expect(merged).toEqual([{ group: { id: 10, bsdgrp_group: 'wheel' } }]);
    expect(merged[0]!.group).not.toBe(USERS[0]!.group);
    // An alias is a flat key even with a dot in it.
    expect(query(USERS, [['id', '=', 2]], { select: [['group.id', 'group.id']] })).toEqual([{ 'group.id': 11 }]);
    // Without filters select still applies.
    expect(query(USERS, [], { select: ['id'] })).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
  });

  it('select through a list is an error (-32001 ValueError)', () => {
    const err = catchErr(() => query(USERS, [], { select: ['groups.0'] }));
    expect(err.code).toBe(-32001);
    expect(err.data?.reason).toBe('Selecting by list index is not supported');
    expect(err.data?.trace?.class).toBe('ValueError');
  });

  it('count returns the number of matches (after select, ignoring order/offset/limit)', () => {
    expect(query(USERS, [['builtin', '=', false]], { count: true })).toBe(2);
    expect(query(USERS, [], { count: true, limit: 1, offset: 1, order_by: ['-uid'] })).toBe(3);
    expect(query(USERS, [['uid', '>', 99999]], { count: true, select: ['id'] })).toBe(0);
  });

  it('order_by ascending, descending, strings, nulls smallest by default, stable', () => {
    expect(ids([], { order_by: ['-uid'] })).toEqual([3, 2, 1]);
    expect(ids([], { order_by: ['username'] })).toEqual([3, 1, 2]); // 'Bob' < 'root' < 'truenas_admin'
    expect(ids([], { order_by: ['email'] })).toEqual([1, 3, 2]);
    expect(ids([], { order_by: ['-email'] })).toEqual([2, 1, 3]);
    expect(ids([], { order_by: ['group.id'] })).toEqual([1, 2, 3]);
    expect(ids([], { order_by: ['-group.id'] })).toEqual([3, 2, 1]);
  });

  it('order_by nulls_first: / nulls_last: with and without -', () => {
    const items = [{ id: 1, v: 2 }, { id: 2, v: null }, { id: 3, v: 1 }, { id: 4 }, { id: 5, v: 3 }];
    expect(ids([], { order_by: ['nulls_first:v'] }, items)).toEqual([2, 4, 3, 1, 5]);
    expect(ids([], { order_by: ['nulls_last:v'] }, items)).toEqual([3, 1, 5, 2, 4]);
    expect(ids([], { order_by: ['nulls_first:-v'] }, items)).toEqual([2, 4, 5, 1, 3]);
    expect(ids([], { order_by: ['nulls_last:-v'] }, items)).toEqual([5, 1, 3, 2, 4]);
    expect(ids([], { order_by: ['v'] }, items)).toEqual([2, 4, 3, 1, 5]);
    expect(ids([], { order_by: ['-v'] }, items)).toEqual([5, 1, 3, 2, 4]);
  });

  it('nulls_first: / nulls_last: judge null by the top-level key only, as filter_list.py:492 does: a dotted path leaves the order as it was', () => {
    const items = [
      { id: 1, g: { n: 2 } },
      { id: 2, g: { n: null } },
      { id: 3, g: { n: 1 } },
      { id: 4, g: null },
    ];
    // `entry.get("g.n") is None` for every entry: all are "nulls", kept in their order.
    expect(ids([], { order_by: ['nulls_first:g.n'] }, items)).toEqual([1, 2, 3, 4]);
    expect(ids([], { order_by: ['nulls_last:-g.n'] }, items)).toEqual([1, 2, 3, 4]);
    // A plain dotted order_by still sorts by the path (nulls smallest).
    expect(ids([], { order_by: ['g.n'] }, items)).toEqual([2, 4, 3, 1]);
  });

  it('multiple order_by keys are applied in turn (the last one is the primary key)', () => {
    expect(ids([], { order_by: ['uid', 'builtin'] })).toEqual([2, 3, 1]);
    expect(ids([], { order_by: ['-uid', 'builtin'] })).toEqual([3, 2, 1]);
    expect(ids([], { order_by: ['-uid', 'shell'] })).toEqual([2, 3, 1]); // bash < zsh; ties keep -uid order
  });

  it('order_by sorts selected (aliased) output', () => {
    const out = query(USERS, [], { select: [['uid', 'n']], order_by: ['-n'] });
    expect(out).toEqual([{ n: 3000 }, { n: 950 }, { n: 0 }]);
  });

  it('get returns the first item after ordering', () => {
    expect(query(USERS, [['username', '=', 'Bob']], { get: true })).toBe(USERS[2]);
    expect(query(USERS, [], { get: true, order_by: ['-uid'] })).toBe(USERS[2]);
    expect(query(USERS, [['builtin', '=', false]], { get: true, order_by: ['uid'], limit: 1 })).toBe(USERS[1]);
    expect(query(USERS, [['id', '=', 1]], { get: true, select: ['username'] })).toEqual({ username: 'root' });
  });

  it('get with no match raises MatchNotFound', () => {
    for (const opts of [{ get: true }, { get: true, order_by: ['uid'] }]) {
      const err = catchErr(() => query(USERS, [['uid', '=', 12345]], opts));
      expect(err.code).toBe(-32001);
      expect(err.rpcMessage).toBe('Method call error');
      expect(err.data?.error).toBe(22);
      expect(err.data?.errname).toBe('EINVAL');
      expect(err.data?.reason).toBe('MatchNotFound()');
      expect(err.data?.extra).toBeNull();
      expect(err.data?.trace?.class).toBe('MatchNotFound');
    }
    expect(catchErr(() => query([], [], { get: true })).data?.reason).toBe('MatchNotFound()');
  });

  it('offset and limit (0 = no limit)', () => {
    expect(ids([], { order_by: ['uid'], offset: 1 })).toEqual([2, 3]);
    expect(ids([], { order_by: ['uid'], limit: 2 })).toEqual([1, 2]);
    expect(ids([], { order_by: ['uid'], offset: 1, limit: 1 })).toEqual([2]);
    expect(ids([], { order_by: ['uid'], offset: 5 })).toEqual([]);
    expect(ids([], { limit: 0 })).toEqual([1, 2, 3]);
    expect(ids([], { limit: 10000 })).toEqual([1, 2, 3]);
  });

  it('extra and force_sql_filters are accepted; parse returns typed options', () => {
    const parsed = parseQueryArgs([['id', '=', 1]], { extra: { search_dscache: true }, force_sql_filters: true });
    expect(parsed).toEqual({
      filters: [['id', '=', 1]],
      options: { extra: { search_dscache: true }, force_sql_filters: true },
    });
    expect(parseQueryArgs(undefined, undefined)).toEqual({ filters: [], options: {} });
    expect(ids([], { extra: {}, force_sql_filters: false })).toEqual([1, 2, 3]);
  });

  it('applyQuery returns a new list and leaves the input alone', () => {
    const items = [{ id: 2 }, { id: 1 }];
    const out = applyQuery(items, [], { order_by: ['id'] }) as object[];
    expect(out).toEqual([{ id: 1 }, { id: 2 }]);
    expect(out[0]).toBe(items[1]);
    expect(items).toEqual([{ id: 2 }, { id: 1 }]);
  });
});

describe('options validation', () => {
  it('rejects unknown keys', () => {
    optionsError({ foo: 1 }, [['options.foo', 'Extra inputs are not permitted']]);
    optionsError({ get: true, sort: ['x'], bar: null }, [
      ['options.sort', 'Extra inputs are not permitted'],
      ['options.bar', 'Extra inputs are not permitted'],
    ]);
  });

  it('booleans are strict', () => {
    optionsError({ count: 1 }, [['options.count', 'Input should be a valid boolean']]);
    optionsError({ get: 'true' }, [['options.get', 'Input should be a valid boolean']]);
    optionsError({ force_sql_filters: null }, [['options.force_sql_filters', 'Input should be a valid boolean']]);
  });

  it('integers are strict', () => {
    optionsError({ limit: '1' }, [['options.limit', 'Input should be a valid integer']]);
    optionsError({ limit: 1.5 }, [['options.limit', 'Input should be a valid integer']]);
    optionsError({ offset: true }, [['options.offset', 'Input should be a valid integer']]);
    optionsError({ offset: null }, [['options.offset', 'Input should be a valid integer']]);
  });

  it('extra, order_by and select types', () => {
    optionsError({ extra: [] }, [['options.extra', 'Input should be a valid dictionary']]);
    optionsError({ extra: null }, [['options.extra', 'Input should be a valid dictionary']]);
    optionsError({ order_by: 'uid' }, [['options.order_by', 'Input should be a valid list']]);
    optionsError({ order_by: ['uid', 1] }, [['options.order_by.1', 'Input should be a valid string']]);
    optionsError({ select: 'uid' }, [['options.select', 'Input should be a valid list']]);
    optionsError({ select: ['uid', 5] }, [
      ['options.select.1.str', 'Input should be a valid string'],
      ['options.select.1.list[any]', 'Input should be a valid list'],
    ]);
  });

  it('field errors are reported in field order, before extra keys', () => {
    optionsError({ zzz: 1, limit: 'x', count: 'y' }, [
      ['options.count', 'Input should be a valid boolean'],
      ['options.limit', 'Input should be a valid integer'],
      ['options.zzz', 'Extra inputs are not permitted'],
    ]);
  });

  it('select pairs must be two strings', () => {
    optionsError({ select: [['a']] }, [
      [
        'options',
        "Value error, ['a']: A select as list may only contain two parameters: the name of the parameter " +
          'being selected, and the name to which to assign it in resulting data.',
      ],
    ]);
    optionsError({ select: [['a', 1]] }, [['options', "Value error, ['a', 1]: second item must be a string."]]);
    optionsError({ select: [[null, 'b']] }, [['options', "Value error, [None, 'b']: first item must be a string."]]);
  });

  it('limit above 10000', () => {
    optionsError({ limit: 10001 }, [['options', 'Value error, Options limit must be between 1 and 10000']]);
  });

  it('get implies a single result', () => {
    const msg = 'Value error, Invalid options combination. `get` implies a single result.';
    optionsError({ get: true, limit: 2 }, [['options', msg]]);
    optionsError({ get: true, offset: 1 }, [['options', msg]]);
    expect(query(USERS, [], { get: true, limit: 1, offset: 0 })).toBe(USERS[0]);
    expect(ids([], { get: false, offset: 1, limit: 5 })).toEqual([2, 3]);
  });

  it('options must be an object', () => {
    optionsError([], [['options', 'Input should be a valid dictionary or instance of QueryOptions']]);
    optionsError(null, [['options', 'Input should be a valid dictionary or instance of QueryOptions']]);
  });

  it('filters and options errors are reported together', () => {
    expectValidation(
      () => query(USERS, [['a', 'bad', 1]], { limit: 'x' }),
      [
        ['filters', 'Value error, Invalid operation: bad'],
        ['options.limit', 'Input should be a valid integer'],
      ],
    );
  });
});
