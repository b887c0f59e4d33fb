/**
 * `alert.list` and its event as `stor serve --emulate truenas-25.10.1` serves them: the method
 * (MW/plugins/alert.py:373-393, ALERT_LIST_READ; AlertListResult, MW/api/v25_10_1/alert.py:112-114)
 * answers the emulator's alerts, none; the event `alert.list` (MW/plugins/alert.py:234-246) may be
 * subscribed to with ALERT_LIST_READ, which READONLY_ADMIN includes as every `*_READ` role
 * (MW/role.py:260), and stays silent.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { openTestAppliance } from '../../../helpers/appliance.js';
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

describe('alert.list on 26.0', () => {
  // Alert declares `id` first on 26 (stable/26 MW/api/v26_0_0/alert.py:19-34), after `text` on
  // 25.10.1 (MW/api/v25_10_1/alert.py:19-49): the order core.get_methods' schema lists its fields in.
  const fieldsOf = async (release: '25.10.1' | '26.0') => {
    const t = await openTestAppliance(EMULATIONS[`truenas-${release}`]);
    const all = await t.call<Record<string, { returns: { items: { properties: object }[] }[] }>>(
      t.admin,
      'core.get_methods',
      'alert',
    );
    return Object.keys(all['alert.list']!.returns[0]!.items[0]!.properties);
  };
  const REST = [
    'uuid',
    'source',
    'klass',
    'args',
    'node',
    'key',
    'datetime',
    'last_occurrence',
    'dismissed',
    'mail',
    'text',
  ];

  it("the entry's fields: id first on 26.0, after text on 25.10.1", async () => {
    expect(await fieldsOf('26.0')).toEqual(['id', ...REST, 'level', 'formatted', 'one_shot']);
    expect(await fieldsOf('25.10.1')).toEqual([...REST, 'id', 'level', 'formatted', 'one_shot']);
  });
});
