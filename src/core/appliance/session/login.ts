import type { LoginExAnswer } from '../../contract/auth.js';
import { ERRNO, rpcErrors } from '../../errors.js';
import { findApiKey, revokeApiKey } from '../../store/api-keys.js';
import { generateKeySecret, hashSecret, verifySecret } from '../../store/secrets.js';
import type { UserRecord } from '../../store/users.js';
import type { AccountsSnapshot } from '../accounts/accounts.js';
import { verifyTotp } from '../accounts/totp.js';
import { readGlobalTwoFactor, readUserSecret } from '../accounts/two-factor.js';
import type { Appliance } from '../appliance.js';
import type { CallContext } from '../method.js';
import { parseApiKey } from './api-key-string.js';
import { liveToken, prepareLogin } from './session-check.js';
import type { Session, SessionCredentials } from './session.js';

/*
 * The login mechanisms (MW/plugins/auth.py): an API key, a password and its one-time code, a token;
 * each checks the credential, then lets prepareLogin (session-check.ts) decide what the session
 * holds. auth.login_ex and the older login methods (methods/auth.ts) choose among them; the HTTP
 * endpoints and the embedded target's own key file call them directly.
 */

export type LoginOutcome = 'SUCCESS' | 'AUTH_ERR' | 'EXPIRED' | 'DENIED';

/**
 * A good credential whose unlocked user holds no privilege: 25.10.1 squashes it into AUTH_ERR;
 * 26 answers DENIED (PAM_PERM_DENIED 'User lacks API access.', MW/plugins/auth_/login_ex_impl.py:149-163,
 * 239-249 and MW/plugins/auth.py:1019-1021 at stable/26), which the emulator says under `keyLogin: scram`.
 */
export function lacksApiAccess(appliance: Appliance): LoginOutcome {
  return appliance.settings.keyLogin === 'scram' ? 'DENIED' : 'AUTH_ERR';
}

/** A key check refused before hashing: this key id (or unknown ids) failed too often from this address. */
export type KeyCheckOutcome = LoginOutcome | 'LIMITED';

/** The answer to a login refused by KeyCheckLimits, as the per-method login limit answers (MW/main.py:889-901). */
export const rateLimitExceeded = () => rpcErrors.call(ERRNO.EBUSY, 'Rate Limit Exceeded');

/** Wrong one-time codes tolerated before the login is abandoned (MW/utils/auth.py `MAX_OTP_ATTEMPTS`). */
const MAX_OTP_ATTEMPTS = 3;

const INSECURE_REASON = 'Attempt to use over an insecure transport';

export { parseApiKey } from './api-key-string.js';

/**
 * Resolves an API key and, when it is good, establishes the session (MW/plugins/auth.py:890-977).
 * A key used in clear over the network is revoked on the spot, as 25.10.1 does. Failures count
 * against the key id (or the unknown-id budget) from this address, never against other keys.
 */
export async function loginWithApiKey(
  appliance: Appliance,
  session: Session,
  key: string,
  username?: string,
): Promise<KeyCheckOutcome> {
  const { store, keyChecks } = appliance;
  const { address } = session.origin;
  const parsed = parseApiKey(key);
  const record = parsed ? store.read(() => findApiKey(store.db, parsed.id)) : undefined;
  const keyId = record ? record.id : null;
  if (keyChecks.refused(address, keyId)) return 'LIMITED';
  if (
    !parsed ||
    !record ||
    !(await appliance.loginHashes.run(address, () => verifySecret(parsed.secret, record.key_hash), `key ${record.id}`))
  ) {
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
export function admitProvenKey(
  appliance: Appliance,
  session: Session,
  keyId: number,
  keyHash: string,
  username?: string,
): LoginOutcome {
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

function establish(
  appliance: Appliance,
  session: Session,
  accounts: AccountsSnapshot,
  user: UserRecord,
  credentials: SessionCredentials,
): LoginOutcome {
  const prepared = prepareLogin(appliance, accounts, user, credentials.type === 'API_KEY' ? 'API_KEY' : 'PASSWORD');
  if (!prepared) return user.locked ? 'AUTH_ERR' : lacksApiAccess(appliance);
  session.establish(credentials, prepared.privilege, prepared.attributes);
  return 'SUCCESS';
}

let dummyHash: string | undefined;

/**
 * Checks a password the way PAM answers: wrong password, unknown user, password login disabled or
 * no password set all fail alike. An unknown user still costs one hash, so timing does not tell
 * which names exist.
 */
async function passwordMatches(
  appliance: Appliance,
  address: string,
  user: UserRecord | undefined,
  password: string,
): Promise<boolean> {
  const stored = user && !user.password_disabled ? user.password_hash : null;
  dummyHash ??= await hashSecret(generateKeySecret());
  const ok = await appliance.loginHashes.run(
    address,
    () => verifySecret(password, stored ?? dummyHash!),
    `user ${user?.username ?? ''}`,
  );
  return stored !== null && ok;
}

/** `PASSWORD_PLAIN`: SUCCESS, AUTH_ERR, or OTP_REQUIRED with the code still to come (MW/plugins/auth.py:801-888). */
export async function loginWithPassword(
  appliance: Appliance,
  session: Session,
  username: string,
  password: string,
): Promise<LoginOutcome | LoginExAnswer> {
  const checked = appliance.accounts().users.find((u) => u.username === username);
  if (!(await passwordMatches(appliance, session.origin.address, checked, password))) return 'AUTH_ERR';
  // Read again after the hash: the account may have changed while it ran.
  const accounts = appliance.accounts();
  const user = accounts.users.find((u) => u.id === checked!.id && u.password_hash === checked!.password_hash);
  if (!user || user.password_disabled) return 'AUTH_ERR';
  const prepared = prepareLogin(appliance, accounts, user, 'PASSWORD');
  if (!prepared) return user.locked ? 'AUTH_ERR' : lacksApiAccess(appliance);
  if (prepared.attributes.includes('2FA')) {
    session.pendingOtp = {
      userId: user.id,
      username: user.username,
      privilege: prepared.privilege,
      accountAttributes: prepared.attributes,
      failures: 0,
    };
    return { response_type: 'OTP_REQUIRED', username: user.username };
  }
  session.establish(
    { type: 'LOGIN_PASSWORD', userId: user.id, username: user.username, loginAt: Date.now() },
    prepared.privilege,
    prepared.attributes,
  );
  return 'SUCCESS';
}

/**
 * `OTP_TOKEN`, after OTP_REQUIRED: the code is checked for the user the password named, never a
 * username from this message. A wrong code may be retried MAX_OTP_ATTEMPTS times, then AUTH_ERR.
 */
export function continueWithOtp(appliance: Appliance, session: Session, token: string): LoginOutcome | LoginExAnswer {
  const pending = session.pendingOtp!;
  // `user.verify_twofactor_token` refuses these cases with CallErrors (MW/plugins/account_/2fa.py:101-108).
  const global = readGlobalTwoFactor(appliance);
  if (!global.enabled) throw rpcErrors.call(ERRNO.EFAULT, 'Please enable Two Factor Authentication first');
  const record = readUserSecret(appliance, pending.userId);
  if (record.secret === null)
    throw rpcErrors.call(ERRNO.EFAULT, 'Two Factor Authentication is not configured for this user');
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

/**
 * `TOKEN_PLAIN` (MW/plugins/auth.py:1036-1101): a token that exists, has not expired, matches this
 * origin and carries no `attrs` logs the session in as the token's parent, with the parent's
 * privilege; a single-use token is gone afterwards. The account is checked again (PAM), so a user
 * locked or deleted since cannot use a token generated before.
 */
export function loginWithToken(appliance: Appliance, session: Session, value: string): LoginOutcome {
  const token = liveToken(appliance, value, session.origin);
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
export function loginWithTokenFor(
  appliance: Appliance,
  session: Session,
  value: string,
  authorized: (parent: Session) => boolean,
): boolean {
  const token = liveToken(appliance, value, session.origin);
  if (!token || Object.keys(token.attrs).length > 0) return false;
  const probe = appliance.createSession(session.origin);
  probe.establish(token.parent.credentials, token.parent.privilege, token.parent.accountAttributes);
  if (!authorized(probe)) return false;
  return loginWithToken(appliance, session, value) === 'SUCCESS';
}

/**
 * `auth.generate_token`: the parent is this session, or for a session that logged in with a token,
 * that token's parent (TokenManager.create). A `ttl` of null means the default 600 s. A token
 * naming a job is refused unless the session may download that job (MW/plugins/auth.py:417-426).
 */
export function generateToken(
  ctx: CallContext,
  ttl: number | null,
  attrs: Record<string, unknown>,
  matchOrigin: boolean,
  singleUse: boolean,
): string {
  const { session } = ctx;
  if (attrs.job !== undefined && attrs.job !== null) {
    const refusal = ctx.appliance.jobs.downloadTokenRefusal(session, attrs.job);
    if (refusal) throw rpcErrors.call(ERRNO.EFAULT, refusal);
  }
  const parent = session.credentials!.token?.parent ?? {
    credentials: session.credentials!,
    privilege: session.privilege!,
    accountAttributes: session.accountAttributes,
    loginId: session.loginId,
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
