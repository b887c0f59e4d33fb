import { authContract, type AuthUserInfo, type LoginData, type LoginExAnswer } from '../../contract/auth.js';
import { ERRNO, rpcErrors } from '../../errors.js';
import { findApiKey, revokeApiKey } from '../../store/api-keys.js';
import { ADMIN_UID, GID } from '../../store/seed.js';
import { generateKeySecret, hashSecret, verifySecret } from '../../store/secrets.js';
import type { UserRecord } from '../../store/users.js';
import { AccountsSnapshot } from '../accounts/accounts.js';
import type { Appliance } from '../appliance.js';
import { composePrivileges } from '../session/compose.js';
import { implement, type CallContext } from '../method.js';
import type { ComposedPrivilege, Session, SessionCredentials } from '../session/session.js';
import { verifyTotp } from '../accounts/totp.js';
import { readGlobalTwoFactor, readUserSecret, twoFactorEntry, userTwoFactorConfig } from '../accounts/two-factor.js';
import { readTwoFactorConfig, writeTwoFactorConfig, type TwoFactorConfigRecord } from '../../store/twofactor.js';

export type LoginOutcome = 'SUCCESS' | 'AUTH_ERR' | 'EXPIRED';

/** A key check refused before hashing: this key id (or unknown ids) failed too often from this address. */
export type KeyCheckOutcome = LoginOutcome | 'LIMITED';

/** The answer to a login refused by KeyCheckLimits, as the per-method login limit answers (facts §1.8). */
export const rateLimitExceeded = () => rpcErrors.call(ERRNO.EBUSY, 'Rate Limit Exceeded');

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
 * A key used in clear over the network is revoked on the spot, as 25.10.1 does. Failures count
 * against the key id (or the unknown-id budget) from this address, never against other keys.
 */
export async function loginWithApiKey(appliance: Appliance, session: Session, key: string, username?: string): Promise<KeyCheckOutcome> {
  const { store, keyChecks } = appliance;
  const { address } = session.origin;
  const parsed = parseApiKey(key);
  const record = parsed ? store.read(() => findApiKey(store.db, parsed.id)) : undefined;
  const keyId = record ? record.id : null;
  if (keyChecks.refused(address, keyId)) return 'LIMITED';
  if (!parsed || !record || !(await appliance.loginHashes.run(address, () => verifySecret(parsed.secret, record.key_hash), `key ${record.id}`))) {
    keyChecks.failed(address, keyId);
    return 'AUTH_ERR';
  }
  // Read again after the hash: the key may have been revoked, reset or deleted while it ran.
  return admitProvenKey(appliance, session, record.id, record.key_hash, username);
}

/**
 * Everything a key login checks once the secret is known to match `keyHash`: the key is still
 * that key (not deleted, not reset), unrevoked and unexpired, used over a secure transport, and
 * its user may log in. Shared by the network login and the embedded appliance's own key file
 * (admin-key-file.ts), so both refuse alike.
 */
export function admitProvenKey(appliance: Appliance, session: Session, keyId: number, keyHash: string, username?: string): LoginOutcome {
  const { store } = appliance;
  const current = store.read(() => findApiKey(store.db, keyId));
  if (!current || current.key_hash !== keyHash || current.revoked) return 'AUTH_ERR';
  if (current.expires_at !== null && current.expires_at <= Date.now()) return 'EXPIRED';
  if (!session.origin.secure) {
    store.write(() => revokeApiKey(store.db, current.id, INSECURE_REASON));
    return 'EXPIRED';
  }
  const accounts = appliance.accounts();
  const user = accounts.users.find((u) => u.id === current.user_id);
  if (!user || (username !== undefined && user.username !== username)) return 'AUTH_ERR';
  return establish(appliance, session, accounts, user, {
    type: 'API_KEY',
    userId: user.id,
    username: user.username,
    apiKey: { id: current.id, name: current.name, keyHash: current.key_hash, expiresAt: current.expires_at },
    loginAt: Date.now(),
  });
}

/** The session a user would get: null when the user may not log in (locked, or bound to no privilege). */
export function prepareLogin(
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
  const prepared = prepareLogin(appliance, accounts, user, credentials.type === 'API_KEY' ? 'API_KEY' : 'PASSWORD');
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
async function passwordMatches(appliance: Appliance, address: string, user: UserRecord | undefined, password: string): Promise<boolean> {
  const stored = user && !user.password_disabled ? user.password_hash : null;
  dummyHash ??= await hashSecret(generateKeySecret());
  const ok = await appliance.loginHashes.run(address, () => verifySecret(password, stored ?? dummyHash!), `user ${user?.username ?? ''}`);
  return stored !== null && ok;
}

/** `PASSWORD_PLAIN`: SUCCESS, AUTH_ERR, or OTP_REQUIRED with the code still to come (MW/plugins/auth.py:801-888). */
export async function loginWithPassword(appliance: Appliance, session: Session, username: string, password: string): Promise<LoginOutcome | LoginExAnswer> {
  const checked = appliance.accounts().users.find((u) => u.username === username);
  if (!(await passwordMatches(appliance, session.origin.address, checked, password))) return 'AUTH_ERR';
  // Read again after the hash: the account may have changed while it ran.
  const accounts = appliance.accounts();
  const user = accounts.users.find((u) => u.id === checked!.id && u.password_hash === checked!.password_hash);
  if (!user || user.password_disabled) return 'AUTH_ERR';
  const prepared = prepareLogin(appliance, accounts, user, 'PASSWORD');
  if (!prepared) return 'AUTH_ERR';
  if (prepared.attributes.includes('2FA')) {
    session.pendingOtp = { userId: user.id, username: user.username, privilege: prepared.privilege, accountAttributes: prepared.attributes, failures: 0 };
    return { response_type: 'OTP_REQUIRED', username: user.username };
  }
  session.establish({ type: 'LOGIN_PASSWORD', userId: user.id, username: user.username, loginAt: Date.now() }, prepared.privilege, prepared.attributes);
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

/** The `auth.me` object (facts §2.2), key order as the appliance sends it. */
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

/**
 * `TOKEN_PLAIN` (MW/plugins/auth.py:1036-1101): a token that exists, has not expired, matches this
 * origin and carries no `attrs` logs the session in as the token's parent, with the parent's
 * privilege; a single-use token is gone afterwards. The account is checked again (PAM), so a user
 * locked or deleted since cannot use a token generated before.
 */
function loginWithToken(appliance: Appliance, session: Session, value: string): LoginOutcome {
  const token = appliance.tokens.get(value, session.origin);
  if (!token || Object.keys(token.attrs).length > 0) return 'AUTH_ERR';
  const { parent } = token;
  const user = appliance.accounts().users.find((u) => u.id === parent.credentials.userId);
  if (!user || user.locked) return 'AUTH_ERR';
  session.establish(
    { type: 'TOKEN', userId: user.id, username: user.username, token, loginAt: Date.now() },
    parent.privilege,
    parent.accountAttributes,
  );
  if (token.singleUse) token.destroy();
  return 'SUCCESS';
}

/**
 * `auth.get_token_for_action` for `/_upload/` (MW/plugins/auth.py:458-490): the token must carry no
 * `attrs` and its parent must be allowed `authorized`; otherwise null (the endpoint's 403 `Invalid
 * token`). Checked before the token is consumed, so a refused single-use token stays usable.
 */
export function loginWithTokenFor(appliance: Appliance, session: Session, value: string, authorized: (parent: Session) => boolean): boolean {
  const token = appliance.tokens.get(value, session.origin);
  if (!token || Object.keys(token.attrs).length > 0) return false;
  const probe = appliance.createSession(session.origin);
  probe.establish(token.parent.credentials, token.parent.privilege, token.parent.accountAttributes);
  if (!authorized(probe)) return false;
  return loginWithToken(appliance, session, value) === 'SUCCESS';
}

/** AAL1's mechanisms, in `AA_LEVEL1.mechanisms` order (MW/utils/auth.py:71-80). */
const LEVEL_1_MECHANISMS = ['API_KEY_PLAIN', 'TOKEN_PLAIN', 'PASSWORD_PLAIN'];

/**
 * `auth.generate_token`: the parent is this session, or for a session that logged in with a token,
 * that token's parent (TokenManager.create). A `ttl` of null means the default 600 s. A token
 * naming a job is refused unless the session may download that job (MW/plugins/auth.py:417-426).
 */
export function generateToken(ctx: CallContext, ttl: number | null, attrs: Record<string, unknown>, matchOrigin: boolean, singleUse: boolean): string {
  const { session } = ctx;
  if (attrs.job !== undefined && attrs.job !== null) {
    const refusal = ctx.appliance.jobs.downloadTokenRefusal(session, attrs.job);
    if (refusal) throw rpcErrors.call(ERRNO.EFAULT, refusal);
  }
  const parent = session.credentials!.token?.parent ?? {
    credentials: session.credentials!,
    privilege: session.privilege!,
    accountAttributes: session.accountAttributes,
  };
  const token = ctx.appliance.tokens.create({
    ttlSeconds: ttl ?? 600,
    attrs,
    matchOrigin: matchOrigin ? session.origin.address : null,
    parent,
    singleUse,
    sessionId: session.id,
  });
  return token.value;
}

export const authMethods = [
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
    // level, and an anonymous connection has none (MW/plugins/auth.py:632-650; facts §1.8).
    if (!session.authenticated) throw rpcErrors.exception('AttributeError', "'NoneType' object has no attribute 'may_create_auth_token'");
    return [...LEVEL_1_MECHANISMS];
  }),
  implement(authContract['auth.generate_token'], (ctx, ttl, attrs, matchOrigin, singleUse) => generateToken(ctx, ttl, attrs, matchOrigin, singleUse)),
  implement(authContract['auth.me'], (ctx) => describeSession(ctx)),
  implement(authContract['auth.logout'], (ctx) => {
    ctx.session.logout();
    return true;
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
