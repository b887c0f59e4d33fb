import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openTestAppliance } from '../../../helpers/appliance.js';

/*
 * pool.dataset.query decides filters and order_by that name only id, name, pool or type before it
 * builds any entry, and builds only the rows it answers. A filter on another field (`children`,
 * which every entry has and which never equals 'x') makes it build every entry first, as
 * 25.10.1's generic_query does (MW/plugins/pool_/dataset_query_utils.py:1106-1124: filter, order,
 * select, get, offset, limit). The two must answer the same rows.
 */
const EVERY_ENTRY: unknown[] = ['children', '!=', 'x'];

const keyFilter = fc.constantFrom<unknown[]>(
  ['id', '^', 'tank/a'],
  ['id', '=', 'tank/z'],
  ['id', '!=', ''],
  ['type', '=', 'VOLUME'],
  ['type', '!=', 'VOLUME'],
  ['name', 'in', ['tank/a/b', 'tank/q', 'tank/vol']],
  ['pool', '=', 'tank'],
  ['name', 'C$', '/B'],
  [
    'OR',
    [
      ['id', '=', 'tank/q/in'],
      ['id', '^', 'tank/a/'],
    ],
  ],
  [
    'OR',
    [
      [
        ['type', '=', 'FILESYSTEM'],
        ['id', '$', 'b'],
      ],
      ['name', '=', 'tank'],
    ],
  ],
);
const orderEntry = fc.constantFrom(
  'id',
  '-id',
  'name',
  '-name',
  'type',
  '-type',
  'pool',
  'nulls_first:type',
  'nulls_last:-id',
  // Not a key's: the query builds every entry first, and answers the same.
  'used',
  '-mountpoint',
);
const extraOf = fc.constantFrom<Record<string, unknown>>(
  {},
  { flat: false },
  { retrieve_children: false },
  { properties: ['used', 'volsize'] },
  { retrieve_user_props: false, snapshots_count: true },
);
/**
 * The answer with every `available` that the host's free space decides (more than the 1 GiB quota
 * of tank/q allows) replaced: other processes write to the same disk between two queries.
 */
function steady(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(steady);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => {
      const parsed = (v as { parsed?: unknown } | null)?.parsed;
      return [k, k === 'available' && typeof parsed === 'number' && parsed > 2 ** 30 ? 'host free space' : steady(v)];
    }),
  );
}

const selectOf = fc.constantFrom<string[] | undefined>(
  undefined,
  ['id', 'type'],
  ['name', 'used', 'children'],
  // As `stor dataset list` asks it.
  ['id', 'name', 'pool', 'mountpoint', 'used', 'available', 'compression', 'user_properties'],
  // A field no entry has, one `extra` adds. (No dotted path or alias: the tests' result check
  // refuses a partial property or a field the contract has not; the query narrows what it builds
  // by the first name of each path, and doSelect picks from that as it did from the whole entry.)
  ['used', 'compression', 'no_such_field', 'snapshot_count', 'quota'],
  ['usedbydataset', 'usedbychildren', 'volsize', 'volblocksize', 'recordsize', 'creation', 'xattr', 'origin'],
  ['encrypted', 'encryption_root', 'key_loaded', 'locked', 'key_format', 'pbkdf2iters', 'encryption_algorithm'],
);

describe('pool.dataset.query pages', () => {
  it('a page asked with order_by, offset and limit holds the rows of the whole answer sliced there', async () => {
    const t = await openTestAppliance();
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/a/b/c', create_ancestors: true });
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/a/B2' });
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/z' });
    await t.call(t.admin, 'pool.dataset.create', {
      name: 'tank/vol',
      type: 'VOLUME',
      volsize: 16 * 1024 * 1024,
      sparse: true,
    });
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/q', quota: 1024 * 1024 * 1024 });
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/q/in' });
    await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/a', name: 's1' });
    await t.call(t.admin, 'pool.dataset.create', {
      name: 'tank/a/enc',
      encryption: true,
      inherit_encryption: false,
      encryption_options: { generate_key: true },
    });
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/a/enc/in', compression: 'ZSTD', comments: 'inside' });
    writeFileSync(join(t.stateDir, 'mnt/tank/q/one.bin'), Buffer.alloc(3000));
    writeFileSync(join(t.stateDir, 'mnt/tank/a/b/two.bin'), Buffer.alloc(700));

    await fc.assert(
      fc.asyncProperty(
        fc.array(keyFilter, { maxLength: 2 }),
        fc.array(orderEntry, { maxLength: 3 }),
        extraOf,
        selectOf,
        fc.nat({ max: 12 }),
        fc.option(fc.nat({ max: 12 }), { nil: undefined }),
        fc.boolean(),
        async (keyFilters, orderBy, extra, select, offset, limit, get) => {
          // Filters make the answer flat and walk every dataset (:994-997, :1106): EVERY_ENTRY must
          // change nothing else, so under a non-default shape the page has a key filter too.
          const filters = keyFilters.length === 0 && Object.keys(extra).length > 0 ? [['id', '!=', '']] : keyFilters;
          const shape = { order_by: orderBy, extra, ...(select ? { select } : {}) };
          const whole = await t.call<unknown[]>(t.admin, 'pool.dataset.query', [...filters, EVERY_ENTRY], shape);
          if (get) {
            if (whole.length === 0) {
              const err = await t.callError(t.admin, 'pool.dataset.query', filters, { ...shape, get: true });
              const full = await t.callError(t.admin, 'pool.dataset.query', [...filters, EVERY_ENTRY], {
                ...shape,
                get: true,
              });
              expect([err.code, err.reason]).toEqual([full.code, full.reason]);
            } else {
              const one = await t.call(t.admin, 'pool.dataset.query', filters, { ...shape, get: true });
              expect(steady(one)).toEqual(steady(whole[0]));
            }
            return;
          }
          const page = await t.call<unknown[]>(t.admin, 'pool.dataset.query', filters, {
            ...shape,
            offset,
            ...(limit === undefined ? {} : { limit }),
          });
          const sliced = whole.slice(offset);
          expect(steady(page)).toEqual(steady(limit ? sliced.slice(0, limit) : sliced));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a select of any one field answers what the whole entries selected answer', async () => {
    const t = await openTestAppliance();
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/a/b', create_ancestors: true, comments: 'c' });
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/a/b/q', quota: 1024 * 1024 * 1024 });
    await t.call(t.admin, 'pool.dataset.create', {
      name: 'tank/vol',
      type: 'VOLUME',
      volsize: 16 * 1024 * 1024,
    });
    await t.call(t.admin, 'pool.dataset.create', {
      name: 'tank/enc',
      encryption: true,
      inherit_encryption: false,
      encryption_options: { generate_key: true },
    });
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/enc/x', atime: 'OFF' });
    writeFileSync(join(t.stateDir, 'mnt/tank/a/b/q/f.bin'), Buffer.alloc(1234));
    const entries = await t.call<Record<string, unknown>[]>(t.admin, 'pool.dataset.query', [], {});
    const fields = [...new Set(entries.flatMap((e) => Object.keys(e)))];
    // Every field an entry has, a property of each type's only, and the ones `extra` adds.
    for (const f of ['children', 'volsize', 'atime', 'xattr', 'volblocksize', 'encryption_algorithm'])
      expect(fields).toContain(f);
    for (const field of [...fields, 'snapshot_count', 'snapshots']) {
      for (const select of [[field], ['id', field, 'name']]) {
        const options = { order_by: ['id'], select, extra: { snapshots_count: true, snapshots: true } };
        const whole = await t.call(t.admin, 'pool.dataset.query', [EVERY_ENTRY], options);
        const page = await t.call(t.admin, 'pool.dataset.query', [], options);
        expect(steady(page), JSON.stringify(select)).toEqual(steady(whole));
        const tail = await t.call(t.admin, 'pool.dataset.query', [], { ...options, offset: 3, limit: 2 });
        expect(steady(tail), JSON.stringify(select)).toEqual(steady((whole as unknown[]).slice(3, 5)));
      }
    }
  });

  it('pages of 2 by id, one after another, list every dataset once, with its measured bytes', async () => {
    const t = await openTestAppliance();
    for (const name of ['tank/a/b', 'tank/a/c', 'tank/d', 'tank/e/f'])
      await t.call(t.admin, 'pool.dataset.create', { name, create_ancestors: true });
    writeFileSync(join(t.stateDir, 'mnt/tank/a/b/x.bin'), Buffer.alloc(500));
    type Row = { id: string; used: { parsed: number } };
    const all = await t.call<Row[]>(t.admin, 'pool.dataset.query', [], { order_by: ['id'], select: ['id', 'used'] });
    const paged: Row[] = [];
    for (let offset = 0; offset < all.length; offset += 2)
      paged.push(
        ...(await t.call<Row[]>(t.admin, 'pool.dataset.query', [], {
          order_by: ['id'],
          select: ['id', 'used'],
          offset,
          limit: 2,
        })),
      );
    expect(paged).toEqual(all);
    expect(paged.find((r) => r.id === 'tank/a')?.used.parsed).toBe(500);
    expect(paged.find((r) => r.id === 'tank')?.used.parsed).toBeGreaterThanOrEqual(500);
  });
});
