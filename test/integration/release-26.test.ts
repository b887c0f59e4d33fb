/**
 * The 26.0 emulator over raw WebSocket frames: 26.0's entries where its models changed
 * (src/core/contract/v26_0_0/), 25.10.1's elsewhere, the release's version and roles.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../src/core/appliance/settings.js';
import { loggedInWs, startTestServer } from '../helpers/server.js';

type Entry = Record<string, unknown>;

describe('stor serve --emulate truenas-26.0 (raw frames)', () => {
  it('user entries carry webshare (MW/api/v26_0_0/user.py:105-111) and user.create takes it; 25.10.1 refuses it as an extra input', async () => {
    const next = await startTestServer(EMULATIONS['truenas-26.0']);
    const client = await loggedInWs(next.rpcUrl, next.adminKey);
    const admins = await client.result<Entry[]>('user.query', [[['username', '=', 'truenas_admin']]]);
    expect(admins.map((u) => u['webshare'])).toEqual([false]);
    const created = await client.result<Entry>('user.create', [{ username: 'web', full_name: 'Web', group_create: true, password_disabled: true, smb: false, webshare: true }]);
    expect(created).toMatchObject({ username: 'web', webshare: false });
    expect(await client.result('system.version_short')).toBe('26.0.0-RC.1');
    expect(await client.result('system.version')).toBe('TrueNAS-26.0.0-RC.1');
    const roles = await client.result<{ name: string; includes: string[] }[]>('privilege.roles');
    expect(roles).toHaveLength(146);
    expect(roles.find((r) => r.name === 'PRIVILEGE_WRITE')!.includes).toEqual(['PRIVILEGE_READ']);

    const old = await startTestServer(EMULATIONS['truenas-25.10.1']);
    const oldClient = await loggedInWs(old.rpcUrl, old.adminKey);
    const refused = await oldClient.call('user.create', [{ username: 'web', full_name: 'Web', group_create: true, password_disabled: true, smb: false, webshare: true }]);
    expect(refused.error?.data?.['extra']).toEqual([['user_create.webshare', 'Extra inputs are not permitted', 22]]);
    expect((await oldClient.result<Entry[]>('user.query', [[['username', '=', 'truenas_admin']]]))[0]).not.toHaveProperty('webshare');
  });
});
