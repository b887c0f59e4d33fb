/**
 * sharing.smb.create's share names as 25.10.1 counts and compares them: `len(name) > 80`
 * (MW/utils/smb.py:124-125) counts code points, not UTF-16 units; the unique-name check
 * `[['name', 'C=', name]]` (MW/plugins/smb.py:1253-1254) compares `str.casefold()`s
 * (MW/utils/filter_list.py:341-344), where `ẞ` folds to `ss` and the dotless `ı` stays itself.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { loggedInWs, startTestServer } from '../../../helpers/server.js';
import { errorOf, validation } from '../../../conformance/harness.js';

async function session() {
  const server = await startTestServer(EMULATIONS['truenas-25.10.1']);
  const ws = await loggedInWs(server.rpcUrl, server.adminKey);
  const created = await ws.call('pool.dataset.create', [{ name: 'tank/docs' }]);
  expect(created.error).toBeUndefined();
  const create = (name: string) => ws.call('sharing.smb.create', [{ name, path: '/mnt/tank/docs' }]);
  return { create };
}

describe('sharing.smb.create share names (MW/utils/smb.py:114-136, MW/plugins/smb.py:1253-1254)', () => {
  it('takes a name of 80 characters outside the BMP, which Python counts as 80', async () => {
    const { create } = await session();
    const name = '😀'.repeat(80);
    const reply = await create(name);
    expect(reply.error).toBeUndefined();
    expect((reply.result as { name: string }).name).toBe(name);
  });

  it('refuses a name of 81 such characters with the length words', async () => {
    const { create } = await session();
    const name = '😀'.repeat(81);
    const reply = await create(name);
    expect(errorOf(reply)).toMatchObject({
      code: -32602,
      data: { extra: [['data.name', `Value error, ${name}: share name must not exceed 80 characters in length`, 22]] },
    });
  });

  it('refuses `ss` beside `ẞ`, which casefolds to it', async () => {
    const { create } = await session();
    expect((await create('ẞ')).error).toBeUndefined();
    expect(errorOf(await create('ss'))).toEqual(
      validation(['sharingsmb_create.name', 'Share names are case-insensitive and must be unique']),
    );
  });

  it('takes `i` beside the dotless `ı`, whose casefold is itself', async () => {
    const { create } = await session();
    expect((await create('ı')).error).toBeUndefined();
    expect((await create('i')).error).toBeUndefined();
  });
});
