/**
 * The root user's group rules, real since 25.10.2 and in 26: root may be a member of
 * builtin_administrators only, and may not leave it (TS-25.10.6 MW/plugins/account.py:1634-1658,
 * 2439-2451, 2485-2494; the same lines on release/25.10.7; stable/26 :1730-1753, 2620-2632,
 * 2665-2674). 25.10.1 has none of them (its account.py lacks both texts), so a runbook rehearsed
 * offline fails where the real appliance of the same release fails, and passes where it passes.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS, type EmulationName } from '../../../../src/core/appliance/settings.js';
import { loggedInWs, startTestServer, type WsClient } from '../../../helpers/server.js';
import { errorOf, validation } from '../../../conformance/harness.js';

async function session(emulation: EmulationName): Promise<{ ws: WsClient; rootId: number; admins: number }> {
  const server = await startTestServer(EMULATIONS[emulation]);
  const ws = await loggedInWs(server.rpcUrl, server.adminKey);
  const [root] = (await ws.call('user.query', [[['username', '=', 'root']]])).result as { id: number }[];
  const [admins] = (await ws.call('group.query', [[['group', '=', 'builtin_administrators']]])).result as {
    id: number;
  }[];
  return { ws, rootId: root!.id, admins: admins!.id };
}

describe('root group rules', () => {
  for (const emulation of ['truenas-25.10.6', 'truenas-25.10.7', 'truenas-26.0'] as const) {
    it(`${emulation} refuses root in any group but builtin_administrators, and root leaving it (MW/plugins/account.py:1651-1658, 2443-2451 at TS-25.10.6)`, async () => {
      const { ws, rootId, admins } = await session(emulation);
      const ops = (await ws.call('group.create', [{ name: 'ops' }])).result as number;
      expect(errorOf(await ws.call('user.update', [rootId, { groups: [admins, ops] }]))).toEqual(
        validation(['user_update.groups', 'The root user may only be a member of the builtin_administrators group.']),
      );
      expect(errorOf(await ws.call('user.update', [rootId, { groups: [ops] }]))).toEqual(
        validation(
          ['user_update.groups', 'The root user must remain a member of the builtin_administrators group.'],
          ['user_update.groups', 'The root user may only be a member of the builtin_administrators group.'],
        ),
      );
      expect(errorOf(await ws.call('group.create', [{ name: 'ops2', users: [rootId] }]))).toEqual(
        validation(['group_create.users', 'Cannot add the root user to this group']),
      );
      expect(errorOf(await ws.call('group.update', [ops, { users: [rootId] }]))).toEqual(
        validation(['group_update.users', 'Cannot add the root user to this group']),
      );
      // builtin_administrators itself may hold root; the rule there is that it keeps it.
      expect((await ws.call('user.update', [rootId, { groups: [admins] }])).error).toBeUndefined();
      expect((await ws.call('group.update', [admins, { users: [rootId] }])).error).toBeUndefined();
    });
  }

  it('truenas-25.10.1 accepts all of them (TS-25.10.1 MW/plugins/account.py has no root rule)', async () => {
    const { ws, rootId, admins } = await session('truenas-25.10.1');
    const ops = (await ws.call('group.create', [{ name: 'ops' }])).result as number;
    expect((await ws.call('user.update', [rootId, { groups: [admins, ops] }])).error).toBeUndefined();
    expect((await ws.call('group.create', [{ name: 'ops2', users: [rootId] }])).error).toBeUndefined();
    const other = (await ws.call('group.create', [{ name: 'ops3' }])).result as number;
    expect((await ws.call('group.update', [other, { users: [rootId] }])).error).toBeUndefined();
  });
});
