/**
 * user.set_password on `stor serve --emulate truenas-25.10.1`, raw frames
 * (MW/plugins/account.py:1751-1880, MW/api/v25_10_1/user.py:343-355).
 */
import { describe, expect, it } from 'vitest';
import { createUserWithPassword } from '../../../helpers/appliance.js';
import { connectWs, loggedInWs } from '../../../helpers/server.js';
import { conforming, errorOf, server25, validation } from '../../../conformance/harness.js';

async function passwordLogin(rpcUrl: string, username: string, password: string) {
  const ws = await connectWs(rpcUrl);
  return { ws, ok: await ws.result<boolean>('auth.login', [username, password]) };
}

describe('user.set_password', () => {
  it('a user changes its own password with the current one; the new one logs in, the old one no longer (account.py:1821-1876)', async () => {
    const server = await server25();
    await createUserWithPassword(server.testAppliance, 'alice', 'pw-alice-1', { privilegeRoles: ['READONLY_ADMIN'] });
    const { ws: alice, ok } = await passwordLogin(server.rpcUrl, 'alice', 'pw-alice-1');
    expect(ok).toBe(true);
    // Without the current password: only FULL_ADMIN may skip it (account.py:1823-1827).
    expect(errorOf(await alice.call('user.set_password', [{ username: 'alice', new_password: 'pw-alice-2' }]))).toEqual(
      validation([
        'user.set_password.old_password',
        'FULL_ADMIN role is required in order to bypass check for current password.',
      ]),
    );
    expect(
      errorOf(
        await alice.call('user.set_password', [
          { username: 'alice', old_password: 'wrong', new_password: 'pw-alice-2' },
        ]),
      ),
    ).toEqual(validation(['user.set_password.old_password', 'alice: failed to validate password.']));
    expect(
      await conforming(alice, 'user.set_password', [
        { username: 'alice', old_password: 'pw-alice-1', new_password: 'pw-alice-2' },
      ]),
    ).toBeNull();
    expect((await passwordLogin(server.rpcUrl, 'alice', 'pw-alice-1')).ok).toBe(false);
    expect((await passwordLogin(server.rpcUrl, 'alice', 'pw-alice-2')).ok).toBe(true);
  });

  it("another user's password: EPERM unless FULL_ADMIN (account.py:1792-1797); a full administrator needs no current password", async () => {
    const server = await server25();
    await createUserWithPassword(server.testAppliance, 'alice', 'pw-alice-1', { privilegeRoles: ['READONLY_ADMIN'] });
    await createUserWithPassword(server.testAppliance, 'bob', 'pw-bob-1', { privilegeRoles: ['READONLY_ADMIN'] });
    const { ws: alice } = await passwordLogin(server.rpcUrl, 'alice', 'pw-alice-1');
    expect(
      errorOf(
        await alice.call('user.set_password', [{ username: 'bob', old_password: 'pw-bob-1', new_password: 'x' }]),
      ),
    ).toMatchObject({
      code: -32001,
      data: {
        error: 1,
        errname: 'EPERM',
        reason: '[EPERM] bob: currently authenticated credential may not reset password for this user.',
        extra: null,
      },
      traceClass: 'CallError',
    });
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    expect(await conforming(admin, 'user.set_password', [{ username: 'bob', new_password: 'pw-bob-2' }])).toBeNull();
    expect((await passwordLogin(server.rpcUrl, 'bob', 'pw-bob-2')).ok).toBe(true);
  });

  it('refusals: password disabled or locked (account.py:1855-1866), an unknown user the TypeError 25.10.1 raises (account.py:1804-1843), an empty new password -32602', async () => {
    const server = await server25();
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    await admin.result('user.create', [
      { username: 'nopw', full_name: 'nopw', group_create: true, password_disabled: true, smb: false },
    ]);
    expect(errorOf(await admin.call('user.set_password', [{ username: 'nopw', new_password: 'pw-1' }]))).toEqual(
      validation(['user.set_password.username', 'nopw: password authentication disabled for user']),
    );
    await createUserWithPassword(server.testAppliance, 'carol', 'pw-carol-1');
    const [carol] = await admin.result<{ id: number }[]>('user.query', [[['username', '=', 'carol']]]);
    await admin.result('user.update', [carol!.id, { locked: true }]);
    expect(errorOf(await admin.call('user.set_password', [{ username: 'carol', new_password: 'pw-1' }]))).toEqual(
      validation(['user.set_password.username', 'carol: user account is locked.']),
    );
    expect(errorOf(await admin.call('user.set_password', [{ username: 'ghost', new_password: 'pw-1' }]))).toMatchObject(
      {
        code: -32001,
        data: { errname: 'EINVAL', reason: 'list indices must be integers or slices, not str' },
        traceClass: 'TypeError',
      },
    );
    expect((await admin.call('user.set_password', [{ username: 'carol', new_password: '' }])).error).toMatchObject({
      code: -32602,
      data: { extra: [['set_password_data.new_password', 'String should have at least 1 character', 22]] },
    });
  });
});
