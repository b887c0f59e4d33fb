import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createUserWithKey,
  createUserWithPassword,
  enableTwoFactor,
  openTestAppliance,
} from '../../../helpers/appliance.js';
import { currentCode, wrongCode } from '../../../helpers/totp.js';

const PASSWORD = 'correct horse battery staple';

interface LoginAnswer {
  response_type: string;
  username?: string;
  authenticator?: string;
  user_info?: {
    pw_name: string;
    account_attributes: string[];
    two_factor_config: { secret_configured: boolean; provisioning_uri: string | null };
  } | null;
}

const passwordLogin = (username: string, password: string) => ({ mechanism: 'PASSWORD_PLAIN', username, password });

/** Every file under a directory, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('auth.login_ex PASSWORD_PLAIN (MW/plugins/auth.py:801)', () => {
  it('logs a user created with a password in: SUCCESS, user_info, LEVEL_1, attributes [LOCAL]', async () => {
    const t = await openTestAppliance();
    await createUserWithPassword(t, 'alice', PASSWORD, { privilegeRoles: ['READONLY_ADMIN'] });
    const s = t.session();
    const answer = await t.call<LoginAnswer>(s, 'auth.login_ex', passwordLogin('alice', PASSWORD));
    expect(Object.keys(answer)).toEqual(['response_type', 'user_info', 'authenticator']);
    expect(answer).toMatchObject({
      response_type: 'SUCCESS',
      authenticator: 'LEVEL_1',
      user_info: { pw_name: 'alice', account_attributes: ['LOCAL'] },
    });
    expect(answer.user_info!.two_factor_config).toEqual({
      provisioning_uri: null,
      secret_configured: false,
      interval: 30,
      otp_digits: 6,
    });
    expect(s.authenticated).toBe(true);
    const quiet = await t.call<LoginAnswer>(t.session(), 'auth.login_ex', {
      ...passwordLogin('alice', PASSWORD),
      login_options: { user_info: false },
    });
    expect(quiet).toEqual({ response_type: 'SUCCESS', user_info: null, authenticator: 'LEVEL_1' });
  });

  it('answers a bare AUTH_ERR alike for a wrong password, an unknown user, a password-disabled user and a user bound to no privilege', async () => {
    const t = await openTestAppliance();
    await createUserWithPassword(t, 'alice', PASSWORD, { privilegeRoles: ['READONLY_ADMIN'] });
    await createUserWithPassword(t, 'bob', PASSWORD);
    await createUserWithKey(t, 'carol', { privilegeRoles: ['READONLY_ADMIN'] }); // password_disabled
    for (const [username, password] of [
      ['alice', 'wrong'],
      ['nobody', PASSWORD],
      ['carol', PASSWORD],
      ['carol', ''],
      ['bob', PASSWORD],
      ['truenas_admin', ''],
    ] as const) {
      const s = t.session();
      expect(await t.call(s, 'auth.login_ex', passwordLogin(username, password))).toEqual({
        response_type: 'AUTH_ERR',
      });
      expect(s.authenticated).toBe(false);
    }
  });

  it('auth.login(username, password, otp_token=null) answers true or false', async () => {
    const t = await openTestAppliance();
    await createUserWithPassword(t, 'alice', PASSWORD, { privilegeRoles: ['READONLY_ADMIN'] });
    const s = t.session();
    expect(await t.call(s, 'auth.login', 'alice', 'wrong')).toBe(false);
    expect(s.authenticated).toBe(false);
    expect(await t.call(s, 'auth.login', 'alice', PASSWORD)).toBe(true);
    expect((await t.call<{ pw_name: string; account_attributes: string[] }>(s, 'auth.me')).account_attributes).toEqual([
      'LOCAL',
    ]);
    expect((await t.callError(t.session(), 'auth.login', 'alice')).triples).toEqual([
      ['password', 'Field required', 22],
    ]);
  });

  it('keeps only a salted slow hash: the password is in no file of the state directory', async () => {
    const t = await openTestAppliance();
    await createUserWithPassword(t, 'alice', PASSWORD, { privilegeRoles: ['READONLY_ADMIN'] });
    const [entry] = await t.call<{ unixhash: string }[]>(t.admin, 'user.query', [['username', '=', 'alice']]);
    expect(entry!.unixhash).toBe('*');
    t.appliance.close();
    for (const file of filesUnder(t.stateDir)) expect(readFileSync(file).includes(PASSWORD), file).toBe(false);
  });
});

describe('user.update with a password (MW/plugins/account.py:766)', () => {
  it('sets, changes and disables password logins; the result echoes the password, the state keeps a hash', async () => {
    const t = await openTestAppliance();
    // The seeded administrator has password login disabled; give it a password.
    const [admin] = await t.call<{ id: number }[]>(t.admin, 'user.query', [['username', '=', 'truenas_admin']]);
    const updated = await t.call<{ password: string; password_disabled: boolean; unixhash: string }>(
      t.admin,
      'user.update',
      admin!.id,
      {
        password: PASSWORD,
        password_disabled: false,
      },
    );
    expect(updated).toMatchObject({ password: PASSWORD, password_disabled: false, unixhash: '*' });
    expect(await t.call(t.session(), 'auth.login', 'truenas_admin', PASSWORD)).toBe(true);

    await t.call(t.admin, 'user.update', admin!.id, { password: 'another one' });
    expect(await t.call(t.session(), 'auth.login', 'truenas_admin', PASSWORD)).toBe(false);
    expect(await t.call(t.session(), 'auth.login', 'truenas_admin', 'another one')).toBe(true);

    // 25.10.1 keeps one password-enabled grantee of "Local Administrator" (MW/plugins/account_/privilege.py:298-321).
    expect((await t.callError(t.admin, 'user.update', admin!.id, { password_disabled: true })).triples).toEqual([
      [
        'user_update.password_disabled',
        "After disabling password for this user no password-enabled local user will have built-in privilege 'Local Administrator'.",
        22,
      ],
    ]);
    const [root] = await t.call<{ id: number }[]>(t.admin, 'user.query', [['username', '=', 'root']]);
    await t.call(t.admin, 'user.update', root!.id, { password: 'root secret', password_disabled: false });
    await t.call(t.admin, 'user.update', admin!.id, { password_disabled: true });
    expect(await t.call(t.session(), 'auth.login', 'truenas_admin', 'another one')).toBe(false);

    expect(
      (await t.callError(t.admin, 'user.update', admin!.id, { password: 'x', password_disabled: true })).triples,
    ).toEqual([
      ['user_update.password_disabled', 'Leave "Password" blank when "Disable password login" is checked.', 22],
    ]);
    expect((await t.callError(t.admin, 'user.update', admin!.id, { username: 'boss' })).triples).toEqual([
      ['user_update.username', 'This attribute cannot be changed', 22],
    ]);
    expect((await t.callError(t.admin, 'user.update', admin!.id, { uid: 5 })).triples).toEqual([
      ['user_update.uid', 'Extra inputs are not permitted', 22],
    ]);
    expect((await t.callError(t.admin, 'user.update', 999, {})).reason).toBe('[ENOENT] None: User 999 does not exist');
    t.appliance.close();
    for (const file of filesUnder(t.stateDir)) {
      const bytes = readFileSync(file);
      expect(bytes.includes(PASSWORD) || bytes.includes('another one'), file).toBe(false);
    }
  });
});

describe('two-factor authentication (MW/plugins/auth_/2fa.py, MW/plugins/account_/2fa.py)', () => {
  it('auth.twofactor.config starts disabled with window 0; update validates as the source models it', async () => {
    const t = await openTestAppliance();
    expect(await t.call(t.admin, 'auth.twofactor.config')).toEqual({
      enabled: false,
      services: { ssh: false },
      window: 0,
      id: 1,
    });
    expect(await t.call(t.admin, 'auth.twofactor.update', { enabled: true, window: 2 })).toEqual({
      enabled: true,
      services: { ssh: false },
      window: 2,
      id: 1,
    });
    expect((await t.callError(t.admin, 'auth.twofactor.update', { id: 1 })).triples).toEqual([
      ['auth_twofactor_update.id', 'Extra inputs are not permitted', 22],
    ]);
    expect((await t.callError(t.admin, 'auth.twofactor.update', { window: -1 })).triples).toEqual([
      ['auth_twofactor_update.window', 'Input should be greater than or equal to 0', 22],
    ]);
    // SYSTEM_SECURITY_READ / _WRITE (ConfigService role_prefix SYSTEM_SECURITY, MW/main.py:315).
    const { key } = await createUserWithKey(t, 'reader', { privilegeRoles: ['READONLY_ADMIN'] });
    const { session } = await t.login(key);
    expect(await t.call(session, 'auth.twofactor.config')).toMatchObject({ enabled: true, window: 2 });
    expect((await t.callError(session, 'auth.twofactor.update', { enabled: false })).errname).toBe('EACCES');
  });

  it('user.renew_2fa_secret returns the entry and its twofactor_config; only FULL_ADMIN or the user may call it', async () => {
    const t = await openTestAppliance();
    await createUserWithPassword(t, 'alice', PASSWORD, { privilegeRoles: ['READONLY_ADMIN'] });
    const { key } = await createUserWithKey(t, 'reader', { privilegeRoles: ['READONLY_ADMIN'] });
    const renewed = await t.call<Record<string, unknown> & { twofactor_config: Record<string, unknown> }>(
      t.admin,
      'user.renew_2fa_secret',
      'alice',
      {
        otp_digits: 8,
        interval: 60,
      },
    );
    expect(renewed).toMatchObject({ username: 'alice', twofactor_auth_configured: true });
    expect(Object.keys(renewed).at(-1)).toBe('twofactor_config');
    expect(renewed.twofactor_config).toMatchObject({ secret_configured: true, interval: 60, otp_digits: 8 });
    expect(renewed.twofactor_config.provisioning_uri).toMatch(
      /^otpauth:\/\/totp\/iXsystems:alice-.+%40TrueNAS\?secret=[A-Z2-7]{32}&issuer=iXsystems&digits=8&period=60$/,
    );
    const [entry] = await t.call<{ twofactor_auth_configured: boolean }[]>(t.admin, 'user.query', [
      ['username', '=', 'alice'],
    ]);
    expect(entry!.twofactor_auth_configured).toBe(true);

    const { session } = await t.login(key);
    const denied = await t.callError(session, 'user.renew_2fa_secret', 'alice', {});
    expect(denied.toJSON().data).toMatchObject({
      error: 1,
      errname: 'EPERM',
      reason:
        '[EPERM] alice: currently authenticated credential may not renew two-factor authentication for this user.',
    });
    expect(await t.call(session, 'user.renew_2fa_secret', 'reader', {})).toMatchObject({
      username: 'reader',
      twofactor_auth_configured: true,
    });
    expect((await t.callError(t.admin, 'user.renew_2fa_secret', 'nosuchuser', {})).reason).toBe(
      "[ENOENT] User 'nosuchuser' does not exist",
    );
    expect((await t.callError(t.admin, 'user.renew_2fa_secret', 'alice', { otp_digits: 9 })).triples).toEqual([
      ['twofactor_options.otp_digits', 'Input should be less than or equal to 8', 22],
    ]);
    expect(await t.call(t.admin, 'user.unset_2fa_secret', 'alice')).toBeNull();
    const [after] = await t.call<{ twofactor_auth_configured: boolean }[]>(t.admin, 'user.query', [
      ['username', '=', 'alice'],
    ]);
    expect(after!.twofactor_auth_configured).toBe(false);
  });

  it('asks for the code with OTP_REQUIRED, then OTP_TOKEN logs in with attributes [LOCAL, 2FA]', async () => {
    const t = await openTestAppliance();
    await createUserWithPassword(t, 'alice', PASSWORD, { privilegeRoles: ['READONLY_ADMIN'] });
    const secret = await enableTwoFactor(t, 'alice');
    const s = t.session();
    expect(await t.call(s, 'auth.login_ex', passwordLogin('alice', PASSWORD))).toEqual({
      response_type: 'OTP_REQUIRED',
      username: 'alice',
    });
    expect(s.authenticated).toBe(false);
    const answer = await t.call<LoginAnswer>(s, 'auth.login_ex', {
      mechanism: 'OTP_TOKEN',
      otp_token: currentCode(secret),
    });
    expect(answer).toMatchObject({
      response_type: 'SUCCESS',
      authenticator: 'LEVEL_1',
      user_info: { pw_name: 'alice', account_attributes: ['LOCAL', '2FA'] },
    });
    expect(answer.user_info!.two_factor_config).toMatchObject({ secret_configured: true, interval: 30, otp_digits: 6 });
    // A wrong password never reaches the code step.
    expect(await t.call(t.session(), 'auth.login_ex', passwordLogin('alice', 'wrong'))).toEqual({
      response_type: 'AUTH_ERR',
    });
  });

  it('allows 3 retries of a wrong code (MAX_OTP_ATTEMPTS), then AUTH_ERR and no login in progress', async () => {
    const t = await openTestAppliance();
    await createUserWithPassword(t, 'alice', PASSWORD, { privilegeRoles: ['READONLY_ADMIN'] });
    const secret = await enableTwoFactor(t, 'alice');
    const s = t.session();
    await t.call(s, 'auth.login_ex', passwordLogin('alice', PASSWORD));
    const bad = { mechanism: 'OTP_TOKEN', otp_token: wrongCode(secret) };
    for (let i = 0; i < 3; i++)
      expect(await t.call(s, 'auth.login_ex_continue', bad)).toEqual({
        response_type: 'OTP_REQUIRED',
        username: 'alice',
      });
    expect(await t.call(s, 'auth.login_ex_continue', bad)).toEqual({ response_type: 'AUTH_ERR' });
    expect(s.authenticated).toBe(false);
    const late = await t.callError(s, 'auth.login_ex', { mechanism: 'OTP_TOKEN', otp_token: currentCode(secret) });
    expect(late.toJSON()).toMatchObject({
      code: -32001,
      data: { error: 22, errname: 'EINVAL', reason: '[EINVAL] OTP_TOKEN: no authentication in progress' },
    });
  });

  it('abandons a login waiting for its code when another mechanism comes; the code is per connection', async () => {
    const t = await openTestAppliance();
    await createUserWithPassword(t, 'alice', PASSWORD, { privilegeRoles: ['READONLY_ADMIN'] });
    const secret = await enableTwoFactor(t, 'alice');
    const s = t.session();
    await t.call(s, 'auth.login_ex', passwordLogin('alice', PASSWORD));
    expect(
      (
        await t.callError(t.session(), 'auth.login_ex_continue', {
          mechanism: 'OTP_TOKEN',
          otp_token: currentCode(secret),
        })
      ).errname,
    ).toBe('EINVAL');
    expect(await t.call(s, 'auth.login_ex', { mechanism: 'API_KEY_PLAIN', username: 'alice', api_key: '1-x' })).toEqual(
      { response_type: 'AUTH_ERR' },
    );
    expect(
      (await t.callError(s, 'auth.login_ex', { mechanism: 'OTP_TOKEN', otp_token: currentCode(secret) })).errname,
    ).toBe('EINVAL');
    expect((await t.callError(s, 'auth.login_ex_continue', passwordLogin('alice', PASSWORD))).code).toBe(-32602);
  });

  it('auth.login: false without the code, true with it; a secret without global 2FA asks for nothing', async () => {
    const t = await openTestAppliance();
    await createUserWithPassword(t, 'alice', PASSWORD, { privilegeRoles: ['READONLY_ADMIN'] });
    const secret = await enableTwoFactor(t, 'alice');
    expect(await t.call(t.session(), 'auth.login', 'alice', PASSWORD)).toBe(false);
    expect(await t.call(t.session(), 'auth.login', 'alice', PASSWORD, wrongCode(secret))).toBe(false);
    const s = t.session();
    expect(await t.call(s, 'auth.login', 'alice', PASSWORD, currentCode(secret))).toBe(true);
    expect((await t.call<{ account_attributes: string[] }>(s, 'auth.me')).account_attributes).toEqual(['LOCAL', '2FA']);

    await t.call(t.admin, 'auth.twofactor.update', { enabled: false });
    const plain = await t.call<LoginAnswer>(t.session(), 'auth.login_ex', passwordLogin('alice', PASSWORD));
    expect(plain).toMatchObject({ response_type: 'SUCCESS', user_info: { account_attributes: ['LOCAL'] } });
  });

  it('never asks an API key login for a code, even for a user with a secret', async () => {
    const t = await openTestAppliance();
    const { key } = await createUserWithKey(t, 'reader', { privilegeRoles: ['READONLY_ADMIN'] });
    await enableTwoFactor(t, 'reader');
    const { ok, session } = await t.login(key);
    expect(ok).toBe(true);
    expect((await t.call<{ account_attributes: string[] }>(session, 'auth.me')).account_attributes).toEqual([
      'LOCAL',
      'API_KEY',
    ]);
  });
});
