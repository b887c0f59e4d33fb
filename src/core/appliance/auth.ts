import { z } from 'zod';
import { ERRNO, rpcErrors } from '../errors.js';
import { findApiKey, revokeApiKey } from '../store/api-keys.js';
import { ADMIN_UID, GID } from '../store/seed.js';
import { generateKeySecret, hashSecret, verifySecret } from '../store/secrets.js';
import type { UserRecord } from '../store/users.js';
import { AccountsSnapshot } from './accounts.js';
import type { Appliance } from './appliance.js';
import { composePrivileges } from './compose.js';
import { AUTHENTICATED, PUBLIC, defineMethod, type CallContext } from './method.js';
import { str } from './params.js';
import type { ComposedPrivilege, Session, SessionCredentials } from './session.js';
import { verifyTotp } from './totp.js';
import { readGlobalTwoFactor, readUserSecret, userTwoFactorConfig } from './twofactor.js';

export type LoginOutcome = 'SUCCESS' | 'AUTH_ERR' | 'EXPIRED';

/** Wrong one-time codes tolerated before the login is abandoned (MW/utils/auth.py `MAX_OTP_ATTEMPTS`). */
const MAX_OTP_ATTEMPTS = 3;

const INSECURE_REASON = 'Attempt to use over an insecure transport';

/** Splits `<id>-<secret>`; anything else is not a key. */
export function parseApiKey(key: string): { id: number; secret: string } | null {
  const m = /^(\d{1,15})-(.+)$/s.exec(key);
  return m ? { id: Number(m[1]), secret: m[2]! } : null;
}

/**
 * Resolves an API key and, when it is good, establishes the session (facts §2.1, §2.4).
 * A key used in clear over the network is revoked on the spot, as 25.10.1 does.
 */
export function loginWithApiKey(appliance: Appliance, session: Session, key: string, username?: string): LoginOutcome {
  const parsed = parseApiKey(key);
  if (!parsed) return 'AUTH_ERR';
  const { store } = appliance;
  const record = store.read(() => findApiKey(store.db, parsed.id));
  if (!record || !verifySecret(parsed.secret, record.key_hash)) return 'AUTH_ERR';
  if (record.revoked) return 'AUTH_ERR';
  if (record.expires_at !== null && record.expires_at <= Date.now()) return 'EXPIRED';
  if (!session.origin.secure) {
    store.write(() => revokeApiKey(store.db, record.id, INSECURE_REASON));
    return 'EXPIRED';
  }
  const accounts = appliance.accounts();
  const user = accounts.users.find((u) => u.id === record.user_id);
  if (!user || (username !== undefined && user.username !== username)) return 'AUTH_ERR';
  return establish(appliance, session, accounts, user, {
    type: 'API_KEY',
    userId: user.id,
    username: user.username,
    apiKey: { id: record.id, name: record.name },
    loginAt: Date.now(),
  });
}

/** The session a user would get: null when the user may not log in (locked, or bound to no privilege). */
function prepare(
  appliance: Appliance,
  accounts: AccountsSnapshot,
  user: UserRecord,
  mechanism: 'API_KEY' | 'PASSWORD',
): { privilege: ComposedPrivilege; attributes: string[] } | null {
  if (user.locked) return null;
  const gids = accounts.gidsOf(user);
  const privileges = accounts.privilegesForGids(gids);
  // A user whose groups match no privilege cannot build a session token (facts §2.1).
  if (privileges.length === 0) return null;
  const privilege = composePrivileges(appliance.catalogue, privileges, appliance.settings.roleExpansion, appliance.methods);
  const attributes = ['LOCAL'];
  if (mechanism === 'API_KEY') attributes.push('API_KEY');
  // 2FA marks users listed in users.oath, which holds secrets only while 2FA is enabled globally
  // (MW/utils/account/authenticator.py:251, MW/etc_files/local/users.oath.mako).
  else if (accounts.hasTwoFactorSecret(user) && readGlobalTwoFactor(appliance).enabled) attributes.push('2FA');
  // SYS_ADMIN: uid 0 and 950 on 25.10.1 (MW/utils/account/authenticator.py:253-256); every member
  // of builtin_administrators in the seed's model (SPEC §2.3).
  const sysAdmin = appliance.settings.sysAdmin === 'admin-uids' ? user.uid === 0 || user.uid === ADMIN_UID : gids.includes(GID.builtin_administrators);
  if (sysAdmin) attributes.push('SYS_ADMIN');
  return { privilege, attributes };
}

function establish(
  appliance: Appliance,
  session: Session,
  accounts: AccountsSnapshot,
  user: UserRecord,
  credentials: SessionCredentials,
): LoginOutcome {
  const prepared = prepare(appliance, accounts, user, credentials.type === 'API_KEY' ? 'API_KEY' : 'PASSWORD');
  if (!prepared) return 'AUTH_ERR';
  session.establish(credentials, prepared.privilege, prepared.attributes);
  return 'SUCCESS';
}

let dummyHash: string | undefined;

/**
 * Checks a password the way PAM answers: wrong password, unknown user, password login disabled or
 * no password set all fail alike. An unknown user still costs one hash, so timing does not tell
 * which names exist.
 */
function passwordMatches(user: UserRecord | undefined, password: string): boolean {
  const stored = user && !user.password_disabled ? user.password_hash : null;
  dummyHash ??= hashSecret(generateKeySecret());
  const ok = verifySecret(password, stored ?? dummyHash);
  return stored !== null && ok;
}

type LoginExAnswer = Record<string, unknown> & { response_type: string };

/** `PASSWORD_PLAIN`: SUCCESS, AUTH_ERR, or OTP_REQUIRED with the code still to come (MW/plugins/auth.py:801-888). */
function loginWithPassword(appliance: Appliance, session: Session, username: string, password: string): LoginOutcome | LoginExAnswer {
  const accounts = appliance.accounts();
  const user = accounts.users.find((u) => u.username === username);
  if (!passwordMatches(user, password)) return 'AUTH_ERR';
  const prepared = prepare(appliance, accounts, user!, 'PASSWORD');
  if (!prepared) return 'AUTH_ERR';
  if (prepared.attributes.includes('2FA')) {
    session.pendingOtp = { userId: user!.id, username: user!.username, privilege: prepared.privilege, accountAttributes: prepared.attributes, failures: 0 };
    return { response_type: 'OTP_REQUIRED', username: user!.username };
  }
  session.establish({ type: 'LOGIN_PASSWORD', userId: user!.id, username: user!.username, loginAt: Date.now() }, prepared.privilege, prepared.attributes);
  return 'SUCCESS';
}

/**
 * `OTP_TOKEN`, after OTP_REQUIRED: the code is checked for the user the password named, never a
 * username from this message. A wrong code may be retried MAX_OTP_ATTEMPTS times, then AUTH_ERR.
 */
function continueWithOtp(appliance: Appliance, session: Session, token: string): LoginOutcome | LoginExAnswer {
  const pending = session.pendingOtp!;
  // `user.verify_twofactor_token` refuses these cases with CallErrors (MW/plugins/account_/2fa.py:101-108).
  const global = readGlobalTwoFactor(appliance);
  if (!global.enabled) throw rpcErrors.call(ERRNO.EFAULT, 'Please enable Two Factor Authentication first');
  const record = readUserSecret(appliance, pending.userId);
  if (record.secret === null) throw rpcErrors.call(ERRNO.EFAULT, 'Two Factor Authentication is not configured for this user');
  const ok = verifyTotp(record.secret, token, record, global.window);
  session.pendingOtp = null;
  if (ok) {
    session.establish(
      { type: 'LOGIN_TWOFACTOR', userId: pending.userId, username: pending.username, loginAt: Date.now() },
      pending.privilege,
      pending.accountAttributes,
    );
    return 'SUCCESS';
  }
  if (pending.failures < MAX_OTP_ATTEMPTS) {
    session.pendingOtp = { ...pending, failures: pending.failures + 1 };
    return { response_type: 'OTP_REQUIRED', username: pending.username };
  }
  return 'AUTH_ERR';
}

type LoginData = z.output<typeof loginData>;

/** `auth.login_ex` (MW/plugins/auth.py:681): the mechanism check, then the mechanism, then the answer. */
function loginEx(ctx: CallContext, data: LoginData): LoginExAnswer {
  const { appliance, session } = ctx;
  // check_auth_mechanism: anything but the expected code abandons a login waiting for one.
  if (session.pendingOtp && data.mechanism !== 'OTP_TOKEN') session.pendingOtp = null;
  if (!session.pendingOtp && data.mechanism === 'OTP_TOKEN') throw rpcErrors.call(ERRNO.EINVAL, 'OTP_TOKEN: no authentication in progress');
  let outcome: LoginOutcome | LoginExAnswer;
  switch (data.mechanism) {
    case 'API_KEY_PLAIN':
      outcome = loginWithApiKey(appliance, session, data.api_key, data.username);
      break;
    case 'PASSWORD_PLAIN':
      outcome = loginWithPassword(appliance, session, data.username, data.password);
      break;
    case 'OTP_TOKEN':
      outcome = continueWithOtp(appliance, session, data.otp_token);
      break;
  }
  if (typeof outcome !== 'string') return outcome;
  if (outcome !== 'SUCCESS') return { response_type: outcome };
  return {
    response_type: 'SUCCESS',
    user_info: data.login_options.user_info ? describeSession(ctx) : null,
    authenticator: 'LEVEL_1',
  };
}

/** The `auth.me` object (facts §2.2), key order as the appliance sends it. */
export function describeSession(ctx: CallContext): Record<string, unknown> {
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
    pw_gid: primary?.gid ?? null,
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

const loginOptions = z.strictObject({ user_info: z.boolean().default(true) });

const otpToken = z.strictObject({
  mechanism: z.literal('OTP_TOKEN'),
  otp_token: str(),
  login_options: loginOptions.default({ user_info: true }),
});

const loginData = z.discriminatedUnion('mechanism', [
  z.strictObject({
    mechanism: z.literal('API_KEY_PLAIN'),
    username: str(),
    api_key: str(),
    login_options: loginOptions.default({ user_info: true }),
  }),
  z.strictObject({
    mechanism: z.literal('PASSWORD_PLAIN'),
    username: str(),
    password: str(),
    login_options: loginOptions.default({ user_info: true }),
  }),
  otpToken,
]);

export const authMethods = [
  defineMethod({
    name: 'auth.login_with_api_key',
    summary: 'Log the connection in with an API key `<id>-<secret>`; true on success.',
    access: PUBLIC,
    params: [{ name: 'api_key', schema: str() }],
    handler: (ctx, apiKey) => loginWithApiKey(ctx.appliance, ctx.session, apiKey) === 'SUCCESS',
  }),
  defineMethod({
    name: 'auth.login',
    summary: 'Log the connection in with a username and password (and the one-time code when two-factor applies); true on success.',
    access: PUBLIC,
    params: [
      { name: 'username', schema: str() },
      { name: 'password', schema: str() },
      { name: 'otp_token', schema: str().nullable(), default: () => null },
    ],
    // MW/plugins/auth.py:516-542: login_ex without user_info, then OTP_TOKEN when asked for and given.
    handler: (ctx, username, password, otp) => {
      const first = loginEx(ctx, { mechanism: 'PASSWORD_PLAIN', username, password, login_options: { user_info: false } });
      if (first.response_type === 'SUCCESS') return true;
      if (first.response_type !== 'OTP_REQUIRED' || otp === null) return false;
      return loginEx(ctx, { mechanism: 'OTP_TOKEN', otp_token: otp, login_options: { user_info: false } }).response_type === 'SUCCESS';
    },
  }),
  defineMethod({
    name: 'auth.login_ex',
    summary: 'Log in with a mechanism object (PASSWORD_PLAIN, API_KEY_PLAIN, OTP_TOKEN); returns a response_type object.',
    access: PUBLIC,
    params: [{ name: 'login_data', schema: loginData }],
    handler: (ctx, data) => loginEx(ctx, data),
  }),
  defineMethod({
    name: 'auth.login_ex_continue',
    summary: 'Answer an OTP_REQUIRED login with {mechanism: OTP_TOKEN, otp_token}.',
    access: PUBLIC,
    params: [{ name: 'login_data', schema: otpToken }],
    handler: (ctx, data) => loginEx(ctx, data),
  }),
  defineMethod({
    name: 'auth.me',
    summary: 'The logged-in user, its composed privilege and account attributes.',
    access: AUTHENTICATED,
    params: [],
    handler: (ctx) => describeSession(ctx),
  }),
  defineMethod({
    name: 'auth.logout',
    summary: 'Log the connection out; it stays open, unauthenticated.',
    access: AUTHENTICATED,
    params: [],
    handler: (ctx) => {
      ctx.session.logout();
      return true;
    },
  }),
];
