/**
 * filesystem.statfs of `stor serve --emulate truenas-25.10.1` with raw frames
 * (MW/plugins/filesystem.py:575-625, MW/api/v25_10_1/filesystem.py:283-348).
 */
import { describe, expect, it } from 'vitest';
import { createUserWithKey } from '../../../helpers/appliance.js';
import { loggedInWs } from '../../../helpers/server.js';
import { adminSession, conforming, errorOf, server25 } from '../../../conformance/harness.js';

/** FilesystemStatfsData's fields in model order, the order the answer is serialized in (MW/api/base/handler/result.py:4-17). */
const FIELDS = [
  'flags',
  'fsid',
  'fstype',
  'source',
  'dest',
  'blocksize',
  'total_blocks',
  'free_blocks',
  'avail_blocks',
  'total_blocks_str',
  'free_blocks_str',
  'avail_blocks_str',
  'files',
  'free_files',
  'name_max',
  'total_bytes',
  'free_bytes',
  'avail_bytes',
  'total_bytes_str',
  'free_bytes_str',
  'avail_bytes_str',
];

/** A CallError: -32001, the errno and `[ERRNAME] text`. */
const callError = (errno: number, errname: string, text: string) => ({
  code: -32001,
  message: 'Method call error',
  data: { error: errno, errname, reason: `[${errname}] ${text}`, extra: null },
});

describe('filesystem.statfs', () => {
  it('the dataset a path lies in is the mount: source its name, dest its mountpoint, counts as text too (filesystem.py:599-624)', async () => {
    const { ws } = await adminSession();
    await ws.result('pool.dataset.create', [{ name: 'tank/a' }]);
    await ws.result('filesystem.mkdir', [{ path: '/mnt/tank/a/dir' }]);
    const a = await conforming<Record<string, any>>(ws, 'filesystem.statfs', ['/mnt/tank/a/dir']);
    expect(Object.keys(a)).toEqual(FIELDS);
    expect(a).toMatchObject({ fstype: 'zfs', source: 'tank/a', dest: '/mnt/tank/a', name_max: 255 });
    expect(a.total_bytes).toBe(a.total_blocks * a.blocksize);
    expect(a.avail_bytes_str).toBe(String(a.avail_bytes));
    const root = await conforming<Record<string, any>>(ws, 'filesystem.statfs', ['/mnt/tank']);
    expect(root).toMatchObject({ source: 'tank', dest: '/mnt/tank' });
    // Each dataset is its own file system.
    expect(root.fsid).not.toBe(a.fsid);
  });

  it("refusals in 25.10.1's words: outside /mnt/, /mnt/ itself, a missing path ENOENT (filesystem.py:583-597), an empty path -32602", async () => {
    const server = await server25();
    const ws = await loggedInWs(server.rpcUrl, server.adminKey);
    // CallError's default errno is EFAULT.
    expect(errorOf(await ws.call('filesystem.statfs', ['/etc']))).toMatchObject({
      ...callError(14, 'EFAULT', 'Path must start with "/mnt/"'),
      traceClass: 'CallError',
    });
    expect(errorOf(await ws.call('filesystem.statfs', ['/mnt/']))).toMatchObject(
      callError(14, 'EFAULT', 'Path must include more than "/mnt/"'),
    );
    expect(errorOf(await ws.call('filesystem.statfs', ['/mnt/tank/nope']))).toMatchObject(
      callError(2, 'ENOENT', 'Path not found.'),
    );
    expect((await ws.call('filesystem.statfs', [''])).error).toMatchObject({
      code: -32602,
      data: { extra: [['path', 'String should have at least 1 character', 22]] },
    });
    const { key } = await createUserWithKey(server.testAppliance, 'nofiles', { privilegeRoles: ['DATASET_READ'] });
    expect(
      (await (await loggedInWs(server.rpcUrl, key)).call('filesystem.statfs', ['/mnt/tank'])).error?.data,
    ).toMatchObject({ errname: 'EACCES' });
  });
});
