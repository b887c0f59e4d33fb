import { describe, expect, it } from 'vitest';
import { queryPages } from '../../../src/core/contract/query-pages.js';
import type { Transport } from '../../../src/core/transport/transport.js';
import { openTestAppliance, type TestAppliance } from '../../helpers/appliance.js';

/** The test appliance's admin session as a transport; `rewrite` changes the params a call sends. */
function adminTransport(
  t: TestAppliance,
  rewrite: (params: readonly unknown[]) => readonly unknown[] = (p) => p,
): Pick<Transport, 'call'> {
  return {
    call: <T>(method: string, params: readonly unknown[] = []) => t.call<T>(t.admin, method, ...rewrite(params)),
  };
}

describe('queryPages', () => {
  it('asks page after page and answers every item once, in order, as one whole query would', async () => {
    const t = await openTestAppliance();
    for (const name of ['tank/a/b', 'tank/a/c', 'tank/d', 'tank/e/f'])
      await t.call(t.admin, 'pool.dataset.create', { name, create_ancestors: true });
    const options = { order_by: ['-id'], select: ['id', 'name', 'pool'] };
    const whole = await t.call<{ id: string }[]>(t.admin, 'pool.dataset.query', [], options);
    const pages: number[] = [];
    const t2 = adminTransport(t);
    const found = await queryPages(t2, 'pool.dataset.query', ['id'], [], options, (p) => pages.push(p.length), 3);
    expect(found).toEqual(whole);
    // 7 datasets (tank, tank/a, tank/a/b, tank/a/c, tank/d, tank/e, tank/e/f): a short page is the last.
    expect(pages).toEqual([3, 3, 1]);
  });

  it('lists more shares than one page holds, each once, and asks one more page when the last is full', async () => {
    const t = await openTestAppliance();
    for (let i = 0; i < 4; i++) await t.call(t.admin, 'sharing.smb.create', { name: `s${i}`, path: '/mnt/tank' });
    const pages: number[] = [];
    const found = await queryPages(
      adminTransport(t),
      'sharing.smb.query',
      ['id', 'name'],
      [],
      { order_by: ['id'] },
      (p) => pages.push(p.length),
      2,
    );
    expect(found.map((s) => s.name)).toEqual(['s0', 's1', 's2', 's3']);
    expect(pages).toEqual([2, 2, 0]);
  });

  it('stops when a target answers the same page again (one that ignores offset)', async () => {
    const t = await openTestAppliance();
    for (let i = 0; i < 3; i++) await t.call(t.admin, 'sharing.smb.create', { name: `s${i}`, path: '/mnt/tank' });
    const noOffset = adminTransport(t, ([filters, options]) => [filters, { ...(options as object), offset: 0 }]);
    const found = await queryPages(
      noOffset,
      'sharing.smb.query',
      ['id', 'name'],
      [],
      { order_by: ['name'] },
      undefined,
      2,
    );
    expect(found.map((s) => s.name)).toEqual(['s0', 's1']);
  });

  it('stops when a target answers the same page again (one that ignores the filter past the last id)', async () => {
    const t = await openTestAppliance();
    for (let i = 0; i < 3; i++) await t.call(t.admin, 'sharing.smb.create', { name: `s${i}`, path: '/mnt/tank' });
    const noFilter = adminTransport(t, ([, options]) => [[], options]);
    const found = await queryPages(
      noFilter,
      'sharing.smb.query',
      ['id', 'name'],
      [],
      { order_by: ['id'] },
      undefined,
      2,
    );
    expect(found.map((s) => s.name)).toEqual(['s0', 's1']);
  });

  it('ordered by id, lists every item after one on an earlier page is removed between two pages', async () => {
    const t = await openTestAppliance();
    for (const name of ['tank/a', 'tank/b', 'tank/c', 'tank/d', 'tank/e'])
      await t.call(t.admin, 'pool.dataset.create', { name });
    let calls = 0;
    const changing: Pick<Transport, 'call'> = {
      call: async <T>(method: string, params: readonly unknown[] = []) => {
        if (calls++ === 1) await t.call(t.admin, 'pool.dataset.delete', 'tank/a');
        return t.call<T>(t.admin, method, ...params);
      },
    };
    const found = await queryPages(
      changing,
      'pool.dataset.query',
      ['id'],
      [],
      { order_by: ['id'], select: ['id'] },
      undefined,
      3,
    );
    // The first page holds tank, tank/a and tank/b. By offset, the second page (from the fourth of
    // tank, tank/b, tank/c, …) would have started at tank/d: tank/c never listed.
    expect(found.map((d) => d.id)).toEqual(['tank', 'tank/a', 'tank/b', 'tank/c', 'tank/d', 'tank/e']);
  });
});
