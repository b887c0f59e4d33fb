/**
 * Paging a query gives the rows the whole query gives, sliced: for every `*.query` a list verb
 * pages, on each release, with more rows than a page. `filter_list` (MW/utils/filter_list.py:528-566
 * at TS-25.10.1) orders the whole list, then takes `rv[offset:]`, then `rv[:limit]`, Python slices:
 * a negative offset counts from the end, a negative limit drops that many from the end, zero is
 * "not given", past the end is empty. `pool.dataset.query` does the same after its own ordering
 * (MW/plugins/pool_/dataset_query_utils.py:1106-1124). An emulator that slices before it builds or
 * orders the rows must still answer exactly this.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { openTestAppliance, type TestAppliance } from '../../../helpers/appliance.js';
import { fillWithManyRows } from '../../../helpers/many-rows.js';

type Row = Record<string, unknown>;

/** Rows of each kind: more than two pages of 100, with a window that starts at 200. */
const ROWS = 260;

/** `rv[offset:]` then `rv[:limit]` when each is non-zero, as filter_list:560-564; JS slices are Python's here. */
function pySlice<T>(rows: readonly T[], offset: number, limit: number): T[] {
  let rv = [...rows];
  if (offset) rv = rv.slice(offset);
  if (limit) rv = rv.slice(0, limit);
  return rv;
}

const WINDOWS = (n: number): [offset: number, limit: number][] => [
  [0, 0],
  [0, 1],
  [200, 100],
  [n - 1, 10],
  [n + 5, 10],
  [-5, 3],
  [0, -3],
  [-10, -3],
];

interface Case {
  method: string;
  /** Unique, so an independent sort gives one answer. */
  key: string;
  orders: string[][];
  select: string[];
  filter: unknown[];
}

const CASES: Case[] = [
  {
    method: 'pool.dataset.query',
    key: 'id',
    // `atime` and `recordsize` are absent on volumes; `mountpoint` is null on them.
    orders: [['-name'], ['nulls_last:mountpoint', 'id'], ['atime', '-id']],
    // As `stor dataset list` asks it, and more.
    select: ['id', 'name', 'mountpoint', 'user_properties', 'used', 'compression', 'creation', 'quota'],
    filter: [['id', '^', 'tank/bulk/d0']],
  },
  {
    method: 'user.query',
    key: 'username',
    // email is null on most rows; the synthetic accounts' `group` is {}, so `group.bsdgrp_gid` is absent there.
    orders: [['-uid'], ['nulls_last:email', 'username'], ['group.bsdgrp_gid', 'id']],
    select: ['id', 'uid', 'username', 'email'],
    filter: [['builtin', '=', false]],
  },
  {
    method: 'group.query',
    key: 'name',
    orders: [['-gid'], ['nulls_first:sid', '-name'], ['smb', 'id']],
    select: ['id', 'gid', 'name'],
    filter: [['name', '^', 'bulkgroup0']],
  },
  {
    method: 'pool.snapshot.query',
    key: 'id',
    orders: [[], ['properties.referenced.parsed', 'id'], ['-createtxg']],
    select: ['id', 'name', 'dataset'],
    filter: [['dataset', '=', 'tank/bulk/d0003']],
  },
];

/**
 * A dataset's `available` is the host's free space under the state directory (statfs, as ZFS's is
 * the pool's), which other processes on the machine change between two calls; every other field
 * is the state's. It is taken out before comparing, and nothing here orders by it.
 */
function stable(answer: unknown): unknown {
  const strip = (row: unknown): unknown => {
    if (typeof row !== 'object' || row === null || !('available' in row)) return row;
    const { available: _available, children, ...rest } = row as Row;
    return { ...rest, ...(Array.isArray(children) ? { children: children.map(strip) } : {}) };
  };
  return Array.isArray(answer) ? answer.map(strip) : strip(answer);
}

/**
 * `expect(actual, message).toEqual(expected)`, asked only when node's strict deep equality finds a
 * difference: equal under it (same keys, same prototypes, Object.is on every leaf) is equal under
 * toEqual too, so the outcome is toEqual's, and its message when it fails. The pages are compared
 * some two hundred times a release, and vitest's equality was a fifth of this file's time.
 */
function expectSame(actual: unknown, expected: unknown, message?: string): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual, message).toEqual(expected);
}

const byKey = (key: string) => (a: Row, b: Row) => {
  const x = a[key] as string;
  const y = b[key] as string;
  return x < y ? -1 : x > y ? 1 : 0;
};

for (const release of ['25.10.1', '26.0'] as const) {
  describe(`paged queries answer the whole query sliced (${release}, more rows than a page)`, () => {
    let t: TestAppliance;
    const q = async <T = Row[]>(method: string, filters: readonly unknown[], options: Row): Promise<T> =>
      stable(await t.call<T>(t.admin, method, filters, options)) as T;
    // One filled appliance for the release's tests: they only query it, and each test filled a
    // fresh one before (16 fills of 260 rows of each kind for two).
    beforeAll(async () => {
      const stateDir = mkdtempSync(join(tmpdir(), 'stor-paging-'));
      afterAll(() => rmSync(stateDir, { recursive: true, force: true }));
      t = await openTestAppliance(
        { ...EMULATIONS[`truenas-${release}`], keyLogin: 'plain' },
        stateDir,
        undefined,
        afterAll,
      );
      await fillWithManyRows(t, ROWS);
    });

    for (const c of CASES) {
      it(`${c.method}: every order_by × offset × limit window, with and without select and filters, equals the unpaged answer sliced`, async () => {
        const whole = await q(c.method, [], {});
        expect(whole.length).toBeGreaterThan(ROWS);
        // The order asked for is the order of the whole list, not of each page: an independent sort agrees.
        expect((await q(c.method, [], { order_by: [c.key] })).map((r) => r[c.key])).toEqual(
          [...whole].sort(byKey(c.key)).map((r) => r[c.key]),
        );
        expect((await q(c.method, [], { order_by: [`-${c.key}`] })).map((r) => r[c.key])).toEqual(
          [...whole]
            .sort(byKey(c.key))
            .reverse()
            .map((r) => r[c.key]),
        );
        for (const [filters, select] of [
          [[], undefined],
          [[], c.select],
          [c.filter, undefined],
        ] as const) {
          {
            for (const order_by of c.orders) {
              const base: Row = { order_by, ...(select ? { select } : {}) };
              const unpaged = await q(c.method, filters, base);
              if (filters.length > 0) expect(unpaged.length).toBeGreaterThan(0);
              for (const [offset, limit] of WINDOWS(unpaged.length)) {
                const paged = await q(c.method, filters, { ...base, offset, limit });
                expectSame(
                  paged,
                  pySlice(unpaged, offset, limit),
                  `${JSON.stringify({ filters, ...base, offset, limit })}`,
                );
              }
              // Pages of 100 put back together are the whole answer, each row once.
              const pages: Row[] = [];
              for (let offset = 0; offset < unpaged.length; offset += 100)
                pages.push(...(await q(c.method, filters, { ...base, offset, limit: 100 })));
              expectSame(pages, unpaged);
            }
          }
        }
      }, 600_000);

      it(`${c.method}: count and get ignore offset and limit as filter_list does`, async () => {
        const whole = await q(c.method, [], {});
        const filtered = await q(c.method, c.filter, {});
        // count is taken before ordering and slicing (filter_list:552-553). pool.dataset.query counts
        // every dataset walked whatever the filters (dataset_query_utils.py:1082-1083).
        const counted = c.method === 'pool.dataset.query' ? whole.length : filtered.length;
        for (const options of [
          { count: true },
          { count: true, offset: 7, limit: 3 },
          { count: true, order_by: ['-id'] },
        ])
          expect(await q<number>(c.method, c.filter, options)).toBe(counted);
        expect(await q<number>(c.method, [], { count: true, limit: 5 })).toBe(whole.length);
        // get is the first of the ordered list (filter_list:557-558), before offset and limit.
        const ordered = await q(c.method, [], { order_by: [`-${c.key}`] });
        expect(await q<Row>(c.method, [], { order_by: [`-${c.key}`], get: true })).toEqual(ordered[0]);
        expect(await q<Row>(c.method, [], { order_by: [`-${c.key}`], get: true, limit: 1 })).toEqual(ordered[0]);
        expect(await q<Row>(c.method, c.filter, { get: true })).toEqual(filtered[0]);
        expect(await q<Row>(c.method, [], { get: true, select: c.select, order_by: [c.key] })).toEqual(
          (await q(c.method, [], { select: c.select, order_by: [c.key] }))[0],
        );
        // Nothing matched: get is MatchNotFound, a page is empty, count is 0 (or every dataset).
        const none = [[c.key, '=', 'no-such-row']];
        expect((await t.callError(t.admin, c.method, none, { get: true })).message).toMatch(/MatchNotFound|not found/i);
        expect(await q(c.method, none, { offset: 0, limit: 500 })).toEqual([]);
        expect(await q<number>(c.method, none, { count: true })).toBe(
          c.method === 'pool.dataset.query' ? whole.length : 0,
        );
      }, 600_000);
    }
  });
}
