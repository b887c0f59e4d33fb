import { describe, expect, it } from 'vitest';
import {
  desiredFromFlags,
  parseSize,
  planChanges,
  predictCreateRefusal,
  predictUpdateRefusal,
  updateParams,
} from '../../../src/commands/dataset/update-plan.js';
import type { PoolDatasetEntry } from '../../../src/core/contract/pool-dataset.js';

const GiB = 1024 ** 3;
const p = (value: string | null, parsed: unknown, source = 'DEFAULT', source_info: string | null = null) => ({
  parsed,
  rawvalue: String(parsed),
  value,
  source,
  source_info,
});

/** A filesystem entry as 25.10.1 shows one (the fields the plan reads). */
const entry = (more: Partial<PoolDatasetEntry> = {}): PoolDatasetEntry & { id: string } => ({
  id: 'tank/a',
  type: 'FILESYSTEM',
  compression: p('LZ4', 'lz4', 'INHERITED', 'tank'),
  recordsize: p('128K', 131072),
  quota: p(null, null),
  used: p('2 GiB', 2 * GiB, 'NONE'),
  usedbydataset: p('2 GiB', 2 * GiB, 'NONE'),
  user_properties: { comments: p('hi', 'hi', 'LOCAL') },
  ...more,
});

describe('dataset update-plan', () => {
  it('reads sizes in binary units; none and 0 are 0; anything else is a usage error', () => {
    expect([
      parseSize('10G'),
      parseSize('512M'),
      parseSize('1.5T'),
      parseSize('4096'),
      parseSize('2GiB'),
      parseSize('none'),
      parseSize('0'),
    ]).toEqual([10 * GiB, 512 * 1024 ** 2, 1.5 * 1024 * GiB, 4096, 2 * GiB, 0, 0]);
    expect(() => parseSize('10X')).toThrow(/not a size/);
  });

  it('plans only what differs: equal values, an inherit of what is not local, a 512B recordsize against 512 are no change', () => {
    const same = desiredFromFlags({ comments: 'hi', compression: 'lz4', quota: 'none' });
    expect(planChanges(entry(), same)).toEqual([]);
    expect(planChanges(entry(), desiredFromFlags({ inherit: ['compression'] }))).toEqual([]);
    expect(
      planChanges(entry({ recordsize: p('512', 512, 'LOCAL') }), desiredFromFlags({ recordsize: '512b' })),
    ).toEqual([]);
    const changes = planChanges(
      entry({ compression: p('GZIP', 'gzip', 'LOCAL') }),
      desiredFromFlags({ quota: '3G', inherit: ['compression', 'ns:k'], set: ['ns:x=1'] }),
    );
    expect(changes).toEqual([
      { property: 'quota', old: 0, new: 3 * GiB },
      { property: 'compression', old: 'GZIP', new: 'INHERIT' },
      { property: 'ns:x', old: null, new: '1' },
    ]);
    expect(updateParams(changes)).toEqual({
      quota: 3 * GiB,
      compression: 'INHERIT',
      user_properties_update: [{ key: 'ns:x', value: '1' }],
    });
  });

  it('refuses on the command line what cannot be inherited, or is both set and inherited', () => {
    expect(() => desiredFromFlags({ inherit: ['quota'] })).toThrow(/--quota none/);
    expect(() => desiredFromFlags({ compression: 'lz4', inherit: ['compression'] })).toThrow(/both set and inherited/);
    expect(() => desiredFromFlags({ set: ['novalue'] })).toThrow(/key=value/);
    // The list option split `--set ns:tags=a,b --set ns:x=1` at the comma: the piece goes back into its value.
    expect(desiredFromFlags({ set: ['ns:tags=a', 'b', 'ns:x=1'] }).user).toEqual({ 'ns:tags': 'a,b', 'ns:x': '1' });
  });

  it("predicts 25.10.1's refusals in its order: the model, the plugin, then ZFS", () => {
    const triples = (data: Record<string, unknown>, e = entry()) => predictUpdateRefusal(e, data)?.triples;
    expect(triples({ compression: 'FOO' })?.[0]?.[0]).toBe('data.compression');
    expect(triples({ quota: 1024 })?.every((t) => String(t[0]).startsWith('data.quota.'))).toBe(true);
    expect(triples({ recordsize: '100K' })).toEqual([
      ['pool_dataset_update.recordsize', "'100K' is an invalid recordsize.", 22],
    ]);
    expect(triples({ atime: 'OFF', recordsize: '1M' }, entry({ type: 'VOLUME' }))).toEqual([
      ['pool_dataset_update.atime', 'This field is not valid for VOLUME', 22],
      ['pool_dataset_update.recordsize', 'This field is not valid for VOLUME', 22],
    ]);
    expect(predictUpdateRefusal(entry(), { quota: GiB })?.message).toContain(
      `ZFSException("cannot set property for 'tank/a': size is less than current used or reserved space")`,
    );
    expect(predictUpdateRefusal(entry(), { quota: 3 * GiB, recordsize: '1M' })).toBeNull();
  });

  it("predicts what libzfs and ZFS refuse as the emulator judges it: copies outside 1-3, a reservation above the quota, in zfs.dataset.update's order", () => {
    const cannotSet = (cause: string) =>
      `Failed to update properties: ZFSException("cannot set property for 'tank/a': ${cause}")`;
    expect(predictUpdateRefusal(entry(), { copies: 9 })?.message).toContain(
      cannotSet("'copies' must be one of '1 | 2 | 3'"),
    );
    expect(predictUpdateRefusal(entry(), { copies: 3 })).toBeNull();
    const quoted = entry({ quota: p('3 GiB', 3 * GiB, 'LOCAL'), refquota: p('3 GiB', 3 * GiB, 'LOCAL') });
    for (const data of [
      { reservation: 4 * GiB },
      { refreservation: 4 * GiB },
      { quota: 5 * GiB, reservation: 6 * GiB },
    ]) {
      expect(predictUpdateRefusal(quoted, data)?.message, JSON.stringify(data)).toContain(
        cannotSet('size is greater than available space'),
      );
    }
    expect(predictUpdateRefusal(quoted, { reservation: 3 * GiB })).toBeNull();
    // A refused size is tried again after the rest (zfs_set_prop_nvlist): raising the quota with the reservation passes.
    expect(predictUpdateRefusal(quoted, { quota: 5 * GiB, reservation: 4 * GiB })).toBeNull();
    // Reservations are set first: a lower quota with a lower reservation passes.
    expect(
      predictUpdateRefusal(entry({ ...quoted, used: p('0', 0, 'NONE'), reservation: p('3 GiB', 3 * GiB, 'LOCAL') }), {
        quota: 2 * GiB,
        reservation: GiB,
      }),
    ).toBeNull();
  });

  it("predicts a create's refusals: the model, the plugin's recordsize, libzfs's copies", () => {
    expect(predictCreateRefusal({ name: 'tank/n', recordsize: '3K' })?.triples).toEqual([
      ['pool_dataset_create.recordsize', "'3K' is an invalid recordsize.", 22],
    ]);
    expect(predictCreateRefusal({ name: 'tank/n', copies: 4 })?.message).toContain(
      "Failed to create dataset: cannot create 'tank/n': 'copies' must be one of '1 | 2 | 3'",
    );
    expect(predictCreateRefusal({ name: 'tank/n', compression: 'FOO' })?.triples?.[0]?.[0]).toMatch(/compression/);
    expect(predictCreateRefusal({ name: 'tank/n', recordsize: '1M', copies: 2, quota: 10 * GiB })).toBeNull();
  });
});
