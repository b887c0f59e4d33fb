/**
 * NetBIOS names as `validate_netbios_name` / `validate_netbios_domain` read them
 * (MW/utils/netbios.py:4-70): `re.match` with a pattern ending in `$`, which in Python also
 * matches before one trailing newline, so `nas1\n` passes the pattern; the length is checked
 * after, with len(), so a 15-character name and a newline is "may not exceed 15 characters".
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { loggedInWs, startTestServer } from '../../../helpers/server.js';
import { errorOf } from '../../../conformance/harness.js';

async function session() {
  const server = await startTestServer(EMULATIONS['truenas-25.10.1']);
  return loggedInWs(server.rpcUrl, server.adminKey);
}

describe('smb.update NetBIOS names (MW/utils/netbios.py:44-69)', () => {
  it('takes a name with one trailing newline, as the pattern’s $ lets through', async () => {
    const ws = await session();
    const reply = await ws.call('smb.update', [{ netbiosname: 'nas1\n', workgroup: 'HOME\n' }]);
    expect(reply.error).toBeUndefined();
    expect(reply.result).toMatchObject({ netbiosname: 'nas1\n', workgroup: 'HOME\n' });
  });

  it('refuses 15 characters and a newline by the length, and digits and a newline by the pattern', async () => {
    const ws = await session();
    const extra = async (params: unknown) =>
      (errorOf(await ws.call('smb.update', [params])).data as { extra: unknown }).extra;
    expect(await extra({ netbiosname: 'abcdefghijklmno\n' })).toEqual([
      ['smb_update.netbiosname', 'Value error, NetBIOS names may not exceed 15 characters.', 22],
    ]);
    expect(await extra({ netbiosname: '123\n' })).toEqual([
      [
        'smb_update.netbiosname',
        'Value error, Invalid NetBIOS name. NetBIOS names must be between 1 and 15 characters in length and may not contain the following characters: \\/:*?"<>|.',
        22,
      ],
    ]);
  });
});
