import { authContract, type AuthUserInfo, type LoginData, type LoginExAnswer } from '../../contract/auth.js';
import { ERRNO, rpcErrors } from '../../errors.js';
import { readTwoFactorConfig, writeTwoFactorConfig, type TwoFactorConfigRecord } from '../../store/twofactor.js';
import { readGlobalTwoFactor, readUserSecret, twoFactorEntry, userTwoFactorConfig } from '../accounts/two-factor.js';
import { implement, type CallContext } from '../method.js';
import { query } from '../query/index.js';
import { sessionDump } from '../session/live-sessions.js';
import {
  continueWithOtp,
  generateToken,
  loginWithApiKey,
  loginWithPassword,
  loginWithToken,
  rateLimitExceeded,
  type KeyCheckOutcome,
} from '../session/login.js';

// The handlers of contract/auth.ts: logins and tokens as `MW/plugins/auth.py` answers them (the
// mechanisms themselves are session/login.ts), and auth.twofactor.* (`MW/plugins/auth_/2fa.py`).

/** `auth.login_ex` (MW/plugins/auth.py:681): the mechanism check, then the mechanism, then the answer. */
async function loginEx(ctx: CallContext, data: LoginData): Promise<LoginExAnswer> {
  const { appliance, session } = ctx;
  // check_auth_mechanism: anything but the expected code abandons a login waiting for one.
  if (session.pendingOtp && data.mechanism !== 'OTP_TOKEN') session.pendingOtp = null;
  if (!session.pendingOtp && data.mechanism === 'OTP_TOKEN') throw rpcErrors.call(ERRNO.EINVAL, 'OTP_TOKEN: no authentication in progress');
  let outcome: KeyCheckOutcome | LoginExAnswer;
  switch (data.mechanism) {
    case 'TOKEN_PLAIN':
      outcome = loginWithToken(appliance, session, data.token);
      break;
    case 'API_KEY_PLAIN':
      outcome = await loginWithApiKey(appliance, session, data.api_key, data.username);
      break;
    case 'PASSWORD_PLAIN':
      outcome = await loginWithPassword(appliance, session, data.username, data.password);
      break;
    case 'OTP_TOKEN':
      outcome = continueWithOtp(appliance, session, data.otp_token);
      break;
  }
  if (typeof outcome !== 'string') return outcome;
  if (outcome === 'LIMITED') throw rateLimitExceeded();
  if (outcome !== 'SUCCESS') return { response_type: outcome };
  return {
    response_type: 'SUCCESS',
    user_info: data.login_options.user_info ? describeSession(ctx) : null,
    authenticator: 'LEVEL_1',
  };
}

/**
 * The `auth.me` object (AuthUserInfo, MW/api/v25_10_1/auth.py:159), key order as the appliance sends
 * it (MW/plugins/auth.py:1242, 1288-1292).
 */
export function describeSession(ctx: CallContext): AuthUserInfo {
  const { session, appliance } = ctx;
  const creds = session.credentials;
  const privilege = session.privilege;
  if (!creds || !privilege) throw rpcErrors.notAuthenticated();
  const accounts = appliance.accounts();
  const user = accounts.users.find((u) => u.id === creds.userId);
  if (!user) throw rpcErrors.call(2, `User ${creds.username} no longer exists`);
  const primary = accounts.groupById.get(user.group_id);
  return {
    pw_name: user.username,
    pw_gecos: user.full_name,
    pw_dir: user.home,
    pw_shell: user.shell,
    pw_uid: user.uid,
    pw_gid: primary!.gid,
    grouplist: null,
    sid: null,
    source: 'LOCAL',
    local: true,
    attributes: {},
    two_factor_config: userTwoFactorConfig(user, readUserSecret(appliance, user.id)),
    privilege: {
      roles: { $set: [...privilege.roles].sort() },
      allowlist: privilege.allowlist,
      web_shell: privilege.web_shell,
      webui_access: privilege.webui_access,
    },
    account_attributes: session.accountAttributes,
  };
}

/** AAL1's mechanisms, in `AA_LEVEL1.mechanisms` order (MW/utils/auth.py:71-80). */
const LEVEL_1_MECHANISMS = ['API_KEY_PLAIN', 'TOKEN_PLAIN', 'PASSWORD_PLAIN'];

export const authMethods = [
  // MW/plugins/auth.py:285-300: in login order, `current` for the caller's own, none internal
  // (the emulator has no root UNIX socket or HA peer).
  implement(authContract['auth.sessions'], ({ appliance, session }, filters, options) =>
    query(
      appliance.liveSessions.list().map((s) => ({ id: s.id, current: s === session, internal: false, ...sessionDump(s) })),
      filters,
      options,
    ),
  ),
  implement(authContract['auth.login_with_api_key'], async (ctx, apiKey) => {
    const outcome = await loginWithApiKey(ctx.appliance, ctx.session, apiKey);
    if (outcome === 'LIMITED') throw rateLimitExceeded();
    return outcome === 'SUCCESS';
  }),
  // MW/plugins/auth.py:516-542: login_ex without user_info, then OTP_TOKEN when asked for and given.
  implement(authContract['auth.login'], async (ctx, username, password, otp) => {
    const first = await loginEx(ctx, { mechanism: 'PASSWORD_PLAIN', username, password, login_options: { user_info: false } });
    if (first.response_type === 'SUCCESS') return true;
    if (first.response_type !== 'OTP_REQUIRED' || otp === null) return false;
    return (await loginEx(ctx, { mechanism: 'OTP_TOKEN', otp_token: otp, login_options: { user_info: false } })).response_type === 'SUCCESS';
  }),
  implement(
    authContract['auth.login_with_token'],
    async (ctx, token) => (await loginEx(ctx, { mechanism: 'TOKEN_PLAIN', token, login_options: { user_info: false } })).response_type === 'SUCCESS',
  ),
  implement(authContract['auth.login_ex'], (ctx, data) => loginEx(ctx, data)),
  implement(authContract['auth.login_ex_continue'], (ctx, data) => loginEx(ctx, data)),
  implement(authContract['auth.mechanism_choices'], ({ session }) => {
    // 25.10.1 asks the session's credential whether it may create tokens before looking at the
    // level, and an anonymous connection has none (MW/plugins/auth.py:632-650).
    if (!session.authenticated) throw rpcErrors.exception('AttributeError', "'NoneType' object has no attribute 'may_create_auth_token'");
    return [...LEVEL_1_MECHANISMS];
  }),
  implement(authContract['auth.generate_token'], (ctx, ttl, attrs, matchOrigin, singleUse) => generateToken(ctx, ttl, attrs, matchOrigin, singleUse)),
  implement(authContract['auth.me'], (ctx) => describeSession(ctx)),
  implement(authContract['auth.logout'], (ctx) => {
    ctx.session.logout();
    return true as const;
  }),
  implement(authContract['auth.twofactor.config'], ({ appliance }) => twoFactorEntry(readGlobalTwoFactor(appliance))),
  implement(authContract['auth.twofactor.update'], ({ appliance }, data) => {
    const { store } = appliance;
    const next = store.write(() => {
      const old = readTwoFactorConfig(store.db);
      const config: TwoFactorConfigRecord = {
        enabled: data.enabled ?? old.enabled,
        window: data.window ?? old.window,
        services: data.services ?? old.services,
      };
      writeTwoFactorConfig(store.db, config);
      return config;
    });
    return twoFactorEntry(next);
  }),
];
