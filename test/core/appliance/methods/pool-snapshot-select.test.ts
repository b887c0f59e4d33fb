/**
 * pool.snapshot.query applies `select` itself, after filter_list and the retention annotation: it
 * keeps an entry's top-level keys that `select` names (`{k: v for k, v in item.items() if k in
 * select}`, MW/plugins/zfs_/snapshot.py:121-134 at TS-25.10.1; stable/26
 * MW/plugins/pool_/snapshot.py:273-288), so a dotted name or an alias keeps nothing, where the
 * other queries' filter_list would reach inside or rename.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { openTestAppliance } from '../../../helpers/appliance.js';

for (const release of ['25.10.1', '26.0'] as const) {
  describe(`pool.snapshot.query's select on ${release}`, () => {
    it('keeps top-level keys only: a dotted name or an alias keeps nothing', async () => {
      const t = await openTestAppliance({ ...EMULATIONS[`truenas-${release}`], keyLogin: 'plain' });
      await t.call(t.admin, 'pool.dataset.create', { name: 'tank/data' });
      await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/data', name: 'one' });
      const query = (select: unknown[], extra: Record<string, unknown> = {}) =>
        t.call(t.admin, 'pool.snapshot.query', [['id', '=', 'tank/data@one']], { select, extra });
      expect(await query(['id', 'properties.name', ['snapshot_name', 'short']])).toEqual([{ id: 'tank/data@one' }]);
      expect(await query(['properties.name'], { retention: true })).toEqual([{}]);
      expect(await query(['name'])).toEqual([{ name: 'tank/data@one' }]);
    });
  });
}
