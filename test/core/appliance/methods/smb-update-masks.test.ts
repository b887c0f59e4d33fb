/**
 * smb.update's filemask and dirmask are `UnixPerm | Literal['DEFAULT']` (MW/api/v25_10_1/smb.py:160-163):
 * `validate_unix_perm` reads the string with Python's `int(value, 8)` (MW/api/base/types/filesystem.py:11-20),
 * which takes a `0o` prefix and underscores between digits, and keeps the string as given.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { loggedInWs, startTestServer } from '../../../helpers/server.js';
import { errorOf } from '../../../conformance/harness.js';

async function session() {
  const server = await startTestServer(EMULATIONS['truenas-25.10.1']);
  return loggedInWs(server.rpcUrl, server.adminKey);
}

describe('smb.update filemask and dirmask (MW/api/base/types/filesystem.py:11-20)', () => {
  it('takes 0o644 and 7_5_5, as int(value, 8) reads them, and answers them as given', async () => {
    const ws = await session();
    const reply = await ws.call('smb.update', [{ filemask: '0o644', dirmask: '7_5_5' }]);
    expect(reply.error).toBeUndefined();
    expect(reply.result).toMatchObject({ filemask: '0o644', dirmask: '7_5_5' });
  });

  it('refuses 0o1777 as out of range and 0o8 as no integer, each member of the union in turn', async () => {
    const ws = await session();
    const extra = (reply: Awaited<ReturnType<typeof ws.call>>) => (errorOf(reply).data as { extra: unknown[] }).extra;
    const union = (field: string, message: string) => [
      [`smb_update.${field}.function-after[validate_unix_perm(), str]`, `Value error, ${message}`, 22],
      [`smb_update.${field}.literal['DEFAULT']`, "Input should be 'DEFAULT'", 22],
    ];
    expect(extra(await ws.call('smb.update', [{ filemask: '0o1777' }]))).toEqual(
      union('filemask', 'Please supply a value between 000 and 777'),
    );
    expect(extra(await ws.call('smb.update', [{ dirmask: '0o8' }]))).toEqual(
      union('dirmask', 'Not a valid integer. Must be between 000 and 777'),
    );
  });
});
