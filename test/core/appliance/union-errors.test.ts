/**
 * A union's members' errors, as each release's validate_model reports them. 25.10.1 lists every
 * member's under its tag (TS-25.10.1 MW/api/base/handler/accept.py:70-84). 26.0 keeps that for a
 * member whose tag has no `[` or `(` (`constrained-int`, `int`, `constrained-str`), and joins the
 * others' messages with " or " under the union's own location, after every other error (stable/26
 * and TS-26.0.0-BETA.3 MW/api/base/handler/accept.py:112-133).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../src/core/appliance/settings.js';
import { loggedInWs, startTestServer, type WsClient } from '../../helpers/server.js';
import { errorOf } from '../../conformance/harness.js';

const servers: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

async function session(release: '25.10.1' | '26.0'): Promise<WsClient> {
  const server = await startTestServer(EMULATIONS[`truenas-${release}`]);
  servers.push(server);
  return loggedInWs(server.rpcUrl, server.adminKey);
}

async function extra(ws: WsClient, method: string, params: unknown[]): Promise<unknown[]> {
  return (errorOf(await ws.call(method, params)).data as { extra: unknown[] }).extra;
}

describe('union errors on 26.0 (stable/26 MW/api/base/handler/accept.py:112-133)', () => {
  it('pool.dataset.create quota, `Annotated[int, Field(ge=1024 ** 3)] | Literal[0, None]` (stable/26 MW/api/v26_0_0/pool_dataset.py:374)', async () => {
    const ws = await session('26.0');
    expect(await extra(ws, 'pool.dataset.create', [{ name: 'tank/q', quota: 1024 }])).toEqual([
      ['data.FILESYSTEM.quota.constrained-int', 'Input should be greater than or equal to 1073741824', 22],
      ['data.FILESYSTEM.quota', 'Input should be 0 or None', 22],
    ]);
  });

  it('pool.dataset.create quota_warning and copies, `… | Literal["INHERIT"]` (stable/26 MW/api/v26_0_0/pool_dataset.py:268, 296)', async () => {
    const ws = await session('26.0');
    expect(await extra(ws, 'pool.dataset.create', [{ name: 'tank/q', quota_warning: 101, copies: 'x' }])).toEqual([
      ['data.FILESYSTEM.quota_warning.constrained-int', 'Input should be less than or equal to 100', 22],
      ['data.FILESYSTEM.copies.int', 'Input should be a valid integer', 22],
      ['data.FILESYSTEM.quota_warning', "Input should be 'INHERIT'", 22],
      ['data.FILESYSTEM.copies', "Input should be 'INHERIT'", 22],
    ]);
  });

  it("smb.update filemask, `UnixPerm | Literal['DEFAULT']` (stable/26 MW/api/v26_0_0/smb.py:229): both members joined, after the other errors", async () => {
    const ws = await session('26.0');
    expect(await extra(ws, 'smb.update', [{ filemask: '0o1777', ntlmv1_auth: 'x' }])).toEqual([
      ['smb_update.ntlmv1_auth', 'Input should be a valid boolean', 22],
      [
        'smb_update.filemask',
        "Value error, Please supply a value between 000 and 777 or Input should be 'DEFAULT'",
        22,
      ],
    ]);
  });
});

describe('union errors on 26.0, the other shapes', () => {
  it('pool.dataset.update quota and copies, two unions joined in the order they came (stable/26 MW/api/v26_0_0/pool_dataset.py:296, 374)', async () => {
    const ws = await session('26.0');
    expect(await extra(ws, 'pool.dataset.update', ['tank', { quota: 5, copies: 'x' }])).toEqual([
      ['data.copies.int', 'Input should be a valid integer', 22],
      ['data.quota.constrained-int', 'Input should be greater than or equal to 1073741824', 22],
      ['data.copies', "Input should be 'INHERIT'", 22],
      ['data.quota', 'Input should be 0 or None', 22],
    ]);
  });

  it("sharing.smb.create path, `NonEmptyString | Literal['EXTERNAL']` (stable/26 MW/api/v26_0_0/smb.py:987)", async () => {
    const ws = await session('26.0');
    expect(await extra(ws, 'sharing.smb.create', [{ name: 'x', path: '' }])).toEqual([
      ['data.path.constrained-str', 'String should have at least 1 character', 22],
      ['data.path', "Input should be 'EXTERNAL'", 22],
    ]);
  });
});

describe('union errors on 25.10.1 (TS-25.10.1 MW/api/base/handler/accept.py:70-84): every member under its tag', () => {
  it('pool.dataset.create quota and smb.update filemask', async () => {
    const ws = await session('25.10.1');
    expect(await extra(ws, 'smb.update', [{ filemask: '0o1777', ntlmv1_auth: 'x' }])).toEqual([
      [
        'smb_update.filemask.function-after[validate_unix_perm(), str]',
        'Value error, Please supply a value between 000 and 777',
        22,
      ],
      ["smb_update.filemask.literal['DEFAULT']", "Input should be 'DEFAULT'", 22],
      ['smb_update.ntlmv1_auth', 'Input should be a valid boolean', 22],
    ]);
    expect(await extra(ws, 'pool.dataset.create', [{ name: 'tank/q', type: 'FILESYSTEM', quota: 1024 }])).toEqual([
      [
        'data.PoolDatasetCreateFilesystem.quota.constrained-int',
        'Input should be greater than or equal to 1073741824',
        22,
      ],
      ['data.PoolDatasetCreateFilesystem.quota.literal[0,None]', 'Input should be 0 or None', 22],
      ['data.PoolDatasetCreateVolume.type', "Input should be 'VOLUME'", 22],
      ['data.PoolDatasetCreateVolume.volsize', 'Field required', 22],
      ['data.PoolDatasetCreateVolume.quota', 'Extra inputs are not permitted', 22],
    ]);
  });
});
