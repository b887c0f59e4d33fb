import { hostname } from 'node:os';
import { authContract, type AuthUserInfo, type LoginData, type LoginExAnswer } from '../../contract/auth.js';
import { authContract26, type LoginData26, type LoginExAnswer26 } from '../../contract/v26_0_0/auth.js';
import { ERRNO, rpcErrors } from '../../errors.js';
import {
  readTwoFactorConfig,
  writeTwoFactorConfig,
  type TwoFactorConfigRecord,
  type UserTwoFactorRecord,
} from '../../store/twofactor.js';
import type { AccountsSnapshot } from '../accounts/accounts.js';
import { withKnownJson } from '../answer-text.js';
import { readGlobalTwoFactor, readUserSecret, twoFactorEntry, userTwoFactorConfig } from '../accounts/two-factor.js';
import { implement, type CallContext } from '../method.js';
import { query } from '../query/index.js';
import type { Appliance } from '../appliance.js';
import { sessionDump } from '../session/live-sessions.js';
import type { ComposedPrivilege, Session, SessionCredentials } from '../session/session.js';
import {
  continueWithOtp,
  generateToken,
  loginWithApiKey,
  loginWithPassword,
  loginWithToken,
  rateLimitExceeded,
  type KeyCheckOutcome,
} from '../session/login.js';
import { scramFinal, scramFirst } from '../session/scram-login.js';

// The handlers of contract/auth.ts: logins and tokens as `MW/plugins/auth.py` answers them (the
// mechanisms themselves are session/login.ts), and auth.twofactor.* (`MW/plugins/auth_/2fa.py`).

/** Either release's login_data: 26 adds SCRAM and `login_options.reconnect_token`. */
type AnyLoginData = LoginData | LoginData26;

/**
 * `auth.login_ex` (MW/plugins/auth.py:681; 26: :880-1040 at stable/26): the mechanism check, then
 * the mechanism, then the answer, in 26's shapes; `loginEx25101` narrows it to 25.10.1's.
 */
async function loginEx(ctx: CallContext, data: AnyLoginData, release: '25.10.1' | '26.0'): Promise<LoginExAnswer26> {
  const { appliance, session } = ctx;
  // check_auth_mechanism: anything but the expected code abandons a login waiting for one; so
  // does anything but SCRAM a SCRAM exchange waiting for its final message (26 :661-692).
  if (session.pendingOtp && data.mechanism !== 'OTP_TOKEN') session.pendingOtp = null;
  if (typeof session.scram === 'object' && session.scram !== null && data.mechanism !== 'SCRAM') session.scram = 'idle';
  if (!session.pendingOtp && data.mechanism === 'OTP_TOKEN')
    throw rpcErrors.call(ERRNO.EINVAL, 'OTP_TOKEN: no authentication in progress');
  let outcome: KeyCheckOutcome | LoginExAnswer;
  switch (data.mechanism) {
    case 'SCRAM':
      return scramAnswer(ctx, data.scram_type, data.rfc_str);
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
  // A finished attempt leaves its PAM handle on the connection; a success drops it (26 :1003).
  session.scram = outcome === 'SUCCESS' ? null : 'idle';
  // OTP_REQUIRED, the same in both releases.
  if (typeof outcome !== 'string') return outcome as LoginExAnswer26;
  if (outcome === 'LIMITED') throw rateLimitExceeded();
  if (outcome !== 'SUCCESS') return { response_type: outcome };
  const userInfo = data.login_options.user_info ? describeSession(ctx) : null;
  if (release === '25.10.1')
    return { response_type: 'SUCCESS', user_info: userInfo, authenticator: 'LEVEL_1' } as LoginExAnswer26;
  const options = data.login_options as { reconnect_token?: boolean };
  return {
    response_type: 'SUCCESS',
    user_info: userInfo,
    authenticator: 'LEVEL_1',
    // 26 :1005-1030: a single-use token bound to this origin, ttl the default 600 s.
    reconnect_token: options.reconnect_token ? generateToken(ctx, 600, {}, true, true) : null,
  };
}

/** The answer in 25.10.1's shapes: its contract takes no SCRAM, so SCRAM_RESPONSE cannot occur; DENIED is 26's only. */
async function loginEx25101(ctx: CallContext, data: LoginData): Promise<LoginExAnswer> {
  const answer = await loginEx(ctx, data, '25.10.1');
  if (answer.response_type === 'SCRAM_RESPONSE' || answer.response_type === 'DENIED')
    return { response_type: 'AUTH_ERR' };
  return answer as LoginExAnswer;
}

/** One SCRAM message of 26's flow (MW/plugins/auth.py:927-960 at stable/26): its answer, or AUTH_ERR. */
function scramAnswer(
  ctx: CallContext,
  type: 'CLIENT_FIRST_MESSAGE' | 'CLIENT_FINAL_MESSAGE',
  rfc: string,
): LoginExAnswer26 {
  const step =
    type === 'CLIENT_FIRST_MESSAGE'
      ? scramFirst(ctx.appliance, ctx.session, rfc)
      : scramFinal(ctx.appliance, ctx.session, rfc);
  switch (step.kind) {
    case 'LIMITED':
      throw rateLimitExceeded();
    case 'AUTH_ERR':
      return { response_type: 'AUTH_ERR' };
    case 'first':
      return {
        response_type: 'SCRAM_RESPONSE',
        scram_type: 'SERVER_FIRST_RESPONSE',
        rfc_str: step.rfc,
        user_info: null,
      };
    case 'final':
      return {
        response_type: 'SCRAM_RESPONSE',
        scram_type: 'SERVER_FINAL_RESPONSE',
        rfc_str: step.rfc,
        user_info: describeSession(ctx),
      };
  }
}

/**
 * What a session's last `auth.me` object was made from, and the object with its JSON text
 * (rpc/codec.ts `withKnownJson`): a logged-in connection asks it again and again (a fleet's
 * `whoami` through the session agent), and building it anew sorted its 141 roles and its
 * serialization was redone each time, as much CPU as the rest of the call. Every input is compared
 * by identity: the accounts and the two-factor record are the store's memo (store.ts `cached`),
 * new objects once the database changed, by this process or another; the credentials, privilege
 * and account attributes are replaced, never changed in place, at each login (session.ts
 * `establish`); the host name is read again only where the answer holds it.
 */
interface SessionAnswer {
  accounts: AccountsSnapshot;
  record: Readonly<UserTwoFactorRecord>;
  creds: SessionCredentials;
  privilege: ComposedPrivilege;
  attributes: string[];
  host: string | null;
  info: AuthUserInfo;
}
const lastAnswers = new WeakMap<Session, SessionAnswer>();

/**
 * The `auth.me` object (AuthUserInfo, MW/api/v25_10_1/auth.py:159), key order as the appliance sends
 * it (MW/plugins/auth.py:1242, 1288-1292). The same object while nothing it is made from changed:
 * read-only, as every answer is once it leaves its handler.
 */
export function describeSession(ctx: CallContext): AuthUserInfo {
  const { session, appliance } = ctx;
  const creds = session.credentials;
  const privilege = session.privilege;
  if (!creds || !privilege) throw rpcErrors.notAuthenticated();
  const accounts = appliance.accounts();
  const last = lastAnswers.get(session);
  if (last?.accounts === accounts && last.creds === creds && last.privilege === privilege) {
    const record = readUserSecret(appliance, creds.userId);
    if (
      last.record === record &&
      last.attributes === session.accountAttributes &&
      last.host === (record.secret ? hostname() : null)
    )
      return last.info;
  }
  const user = accounts.users.find((u) => u.id === creds.userId);
  if (!user) throw rpcErrors.call(2, `User ${creds.username} no longer exists`);
  const primary = accounts.groupById.get(user.group_id);
  const record = readUserSecret(appliance, user.id);
  const info: AuthUserInfo = withKnownJson({
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
    two_factor_config: userTwoFactorConfig(user, record),
    privilege: {
      roles: { $set: [...privilege.roles].sort() },
      allowlist: privilege.allowlist,
      web_shell: privilege.web_shell,
      webui_access: privilege.webui_access,
    },
    account_attributes: session.accountAttributes,
  });
  lastAnswers.set(session, {
    accounts,
    record,
    creds,
    privilege,
    attributes: session.accountAttributes,
    host: record.secret ? hostname() : null,
    info,
  });
  return info;
}

/** AAL1's mechanisms, in `AA_LEVEL1.mechanisms` order (MW/utils/auth.py:71-80); 26 adds SCRAM (MW/utils/auth.py:96-104 at stable/26). */
const LEVEL_1_MECHANISMS = ['API_KEY_PLAIN', 'TOKEN_PLAIN', 'PASSWORD_PLAIN'];
const LEVEL_1_MECHANISMS_26 = [...LEVEL_1_MECHANISMS, 'SCRAM'];

/**
 * `auth.terminate_session` (MW/plugins/auth.py:302-312): the session's tokens go and its connection
 * closes. Logged out here first, so it is gone from auth.sessions when the call answers, as
 * 25.10.1's `await ws.close()` waits for the close that logs it out; the embedded target's session
 * has no connection to close and is only logged out.
 */
function terminateSession(appliance: Appliance, target: Session): void {
  appliance.tokens.destroyBySession(target.id);
  const close = target.closeConnection;
  target.logout();
  close?.();
}

export const authMethods = [
  implement(authContract['auth.terminate_session'], ({ appliance }, id) => {
    const target = appliance.liveSessions.list().find((s) => s.id === id);
    if (!target) return false;
    terminateSession(appliance, target);
    return true;
  }),
  // MW/plugins/auth.py:314-336: all but the caller's; the emulator has no internal sessions to spare.
  implement(authContract['auth.terminate_other_sessions'], ({ appliance, session }) => {
    for (const target of appliance.liveSessions.list()) if (target !== session) terminateSession(appliance, target);
    return true as const;
  }),
  // MW/plugins/auth.py:285-300: in login order, `current` for the caller's own, none internal
  // (the emulator has no root UNIX socket or HA peer).
  implement(authContract['auth.sessions'], ({ appliance, session }, filters, options) =>
    query(
      appliance.liveSessions
        .list()
        .map((s) => ({ id: s.id, current: s === session, internal: false, ...sessionDump(s) })),
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
    const first = await loginEx25101(ctx, {
      mechanism: 'PASSWORD_PLAIN',
      username,
      password,
      login_options: { user_info: false },
    });
    if (first.response_type === 'SUCCESS') return true;
    if (first.response_type !== 'OTP_REQUIRED' || otp === null) return false;
    return (
      (await loginEx25101(ctx, { mechanism: 'OTP_TOKEN', otp_token: otp, login_options: { user_info: false } }))
        .response_type === 'SUCCESS'
    );
  }),
  implement(
    authContract['auth.login_with_token'],
    async (ctx, token) =>
      (await loginEx25101(ctx, { mechanism: 'TOKEN_PLAIN', token, login_options: { user_info: false } }))
        .response_type === 'SUCCESS',
  ),
  implement(authContract['auth.login_ex'], (ctx, data) => loginEx25101(ctx, data)),
  implement(authContract['auth.login_ex_continue'], (ctx, data) => loginEx25101(ctx, data)),
  implement(authContract['auth.mechanism_choices'], ({ session }) => {
    // 25.10.1 asks the session's credential whether it may create tokens before looking at the
    // level, and an anonymous connection has none (MW/plugins/auth.py:632-650).
    if (!session.authenticated)
      throw rpcErrors.exception('AttributeError', "'NoneType' object has no attribute 'may_create_auth_token'");
    return [...LEVEL_1_MECHANISMS];
  }),
  implement(authContract['auth.generate_token'], (ctx, ttl, attrs, matchOrigin, singleUse) =>
    generateToken(ctx, ttl, attrs, matchOrigin, singleUse),
  ),
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

/**
 * 26.0's auth.* handlers where they differ (contract/v26_0_0/auth.ts), served where the contract holds
 * 26.0's SCRAM entries (methods/index.ts RELEASE_METHODS). auth.mechanism_choices no longer fails on a connection not logged in:
 * 26 checks for a credential before asking it (MW/plugins/auth.py:713-716 at stable/26).
 */
export const authMethods26 = [
  implement(authContract26['auth.login_ex'], (ctx, data) => loginEx(ctx, data, '26.0')),
  implement(authContract26['auth.login_ex_continue'], (ctx, data) => loginEx(ctx, data, '26.0')),
  implement(authContract26['auth.mechanism_choices'], () => [...LEVEL_1_MECHANISMS_26]),
];
