/**
 * `alert.list` and its event as `stor serve --emulate truenas-25.10.1` serves them: the method
 * (MW/plugins/alert.py:373-393, ALERT_LIST_READ; AlertListResult, MW/api/v25_10_1/alert.py:112-114)
 * answers the emulator's alerts, none; the event `alert.list` (MW/plugins/alert.py:234-246) may be
 * subscribed to with ALERT_LIST_READ, which READONLY_ADMIN includes as every `*_READ` role
 * (MW/role.py:260), and stays silent.
 */
import { describe, expect, it } from 'vitest';
import { createUserWithKey } from '../../../helpers/appliance.js';
import { loggedInWs } from '../../../helpers/server.js';
import { adminSession, conforming, errorOf } from '../../../conformance/harness.js';

describe('alert.list (MW/plugins/alert.py:234-246, 373-393)', () => {
  it('answers no alerts, to a read-only administrator too', async () => {
    const { server, ws } = await adminSession();
    expect(await conforming(ws, 'alert.list')).toEqual([]);
    const { key } = await createUserWithKey(server.testAppliance, 'ro', { privilegeRoles: ['READONLY_ADMIN'] });
    const ro = await loggedInWs(server.rpcUrl, key);
    expect(await conforming(ro, 'alert.list')).toEqual([]);
  });

  it('its event: READONLY_ADMIN (through ALERT_LIST_READ) may subscribe; a session without the role is refused EACCES', async () => {
    const { server } = await adminSession();
    const { key: roKey } = await createUserWithKey(server.testAppliance, 'ro', { privilegeRoles: ['READONLY_ADMIN'] });
    const { key: snapKey } = await createUserWithKey(server.testAppliance, 'snap', {
      privilegeRoles: ['SNAPSHOT_READ'],
    });
    const ro = await loggedInWs(server.rpcUrl, roKey);
    expect(typeof (await ro.result('core.subscribe', ['alert.list']))).toBe('string');
    const snap = await loggedInWs(server.rpcUrl, snapKey);
    expect(errorOf(await snap.call('core.subscribe', ['alert.list']))).toMatchObject({
      code: -32001,
      data: { error: 13, reason: '[EACCES] Not authorized' },
    });
    expect(errorOf(await snap.call('alert.list', []))).toMatchObject({
      code: -32001,
      data: { error: 13, reason: '[EACCES] Not authorized' },
    });
  });
});
