import { findApiKey } from '../../store/api-keys.js';
import { ADMIN_UID, GID } from '../../store/seed.js';
import type { UserRecord } from '../../store/users.js';
import type { AccountsSnapshot } from '../accounts/accounts.js';
import { readGlobalTwoFactor } from '../accounts/two-factor.js';
import type { Appliance } from '../appliance.js';
import { composePrivileges } from './compose.js';
import type { ComposedPrivilege, Origin, Session, SessionCredentials, TokenParent } from './session.js';
import type { AuthToken } from './tokens.js';

/*
 * Whether a credential lets its user in: at login (prepareLogin), before every later call on the
 * session (revalidateSession, as 25.10.1 re-checks each message), and at each use of a token
 * (liveToken).
 */

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
  // A user whose groups match no privilege cannot build a session token (MW/plugins/auth_/authenticate.py:118-120).
  if (privileges.length === 0) return null;
  const privilege = composePrivileges(
    appliance.catalogue,
    privileges,
    appliance.settings.roleExpansion,
    appliance.contract,
  );
  const attributes = ['LOCAL'];
  if (mechanism === 'API_KEY') attributes.push('API_KEY');
  // 2FA marks users listed in users.oath, which holds secrets only while 2FA is enabled globally
  // (MW/utils/account/authenticator.py:251, MW/etc_files/local/users.oath.mako).
  else if (accounts.hasTwoFactorSecret(user) && readGlobalTwoFactor(appliance).enabled) attributes.push('2FA');
  // SYS_ADMIN: uid 0 and 950 on 25.10.1 (MW/utils/account/authenticator.py:253-256); every member
  // of builtin_administrators in the reports' model (docs/RELEASES.md "Emulator behaviours", `sysAdmin`).
  const sysAdmin =
    appliance.settings.sysAdmin === 'admin-uids'
      ? user.uid === 0 || user.uid === ADMIN_UID
      : gids.includes(GID.builtin_administrators);
  if (sysAdmin) attributes.push('SYS_ADMIN');
  return { privilege, attributes };
}

/** Everything `held` grants is still granted by `now`: roles and allowlist entries. */
function stillGrants(now: ComposedPrivilege, held: ComposedPrivilege): boolean {
  for (const role of held.roles) if (!now.roles.has(role)) return false;
  return held.allowlist.every((a) => now.allowlist.some((b) => b.method === a.method && b.resource === a.resource));
}

/**
 * Whether the account behind `credentials` would still be let in with at least what `held`
 * grants: the user exists and is not locked, a password session's password login is not disabled,
 * an API key is neither deleted, revoked, reset nor expired, and the user's groups still grant the
 * privilege the session holds.
 */
function credentialHolds(
  appliance: Appliance,
  accounts: AccountsSnapshot,
  credentials: SessionCredentials,
  held: ComposedPrivilege,
): boolean {
  const user = accounts.users.find((u) => u.id === credentials.userId);
  if (!user) return false;
  const byPassword = credentials.type === 'LOGIN_PASSWORD' || credentials.type === 'LOGIN_TWOFACTOR';
  if (byPassword && user.password_disabled) return false;
  const key = credentials.apiKey;
  if (key) {
    const { store } = appliance;
    const record = store.read(() => findApiKey(store.db, key.id));
    if (!record || record.revoked || record.key_hash !== key.keyHash || record.user_id !== user.id) return false;
    // api_key.update may have moved the expiry; the per-message check reads it from here.
    key.expiresAt = record.expires_at;
    if (expired(key.expiresAt)) return false;
  }
  let prepared: ReturnType<typeof prepareLogin>;
  try {
    prepared = prepareLogin(appliance, accounts, user, credentials.type === 'API_KEY' ? 'API_KEY' : 'PASSWORD');
  } catch {
    // A privilege that no longer composes (the defective role expansions) would refuse this login now.
    return false;
  }
  return prepared !== null && stillGrants(prepared.privilege, held);
}

const expired = (at: number | null) => at !== null && at <= Date.now();

/** A login older than AAL1's maximum age, or an API key past its expiry, holds no longer. */
function outlived(appliance: Appliance, credentials: SessionCredentials, loginAt: number): boolean {
  return Date.now() - loginAt >= appliance.maxSessionAgeMs || expired(credentials.apiKey?.expiresAt ?? null);
}

/**
 * Whether a token's root credential still holds, checked at each use of the token (login, upload,
 * download): 25.10.1's token credential is valid only while its root credential is
 * (TokenSessionManagerCredentials.is_valid, MW/auth.py:247-256), so a token made by a session whose
 * key was deleted or expired, or whose user lost what the session held, lets nothing in.
 */
export function tokenParentHolds(appliance: Appliance, parent: TokenParent): boolean {
  if (outlived(appliance, parent.credentials, parent.credentials.loginAt)) return false;
  return credentialHolds(appliance, appliance.accounts(), parent.credentials, parent.privilege);
}

/**
 * Run before every call on a session (as 25.10.1 re-checks each incoming message, MW/plugins/auth.py:183-193):
 * a credential that is no longer valid logs the session out, which ends its subscriptions, and
 * the call then meets `Not authenticated`. Age and expiry are compared on every message; the
 * account itself is looked at again only when the accounts snapshot has changed since the last
 * check (it is cached until the database changes), so an idle store costs nothing.
 */
export function revalidateSession(appliance: Appliance, session: Session): void {
  session.revalidateToken();
  const creds = session.credentials;
  const held = session.privilege;
  if (!creds || !held) return;
  // A token session stands on its parent's login: the parent's credential must still hold.
  const base = creds.token?.parent.credentials ?? creds;
  if (outlived(appliance, base, Math.min(creds.loginAt, base.loginAt))) {
    session.logout();
    return;
  }
  const accounts = appliance.accounts();
  if (session.checkedAgainst === accounts) return;
  if (credentialHolds(appliance, accounts, base, held)) session.checkedAgainst = accounts;
  else session.logout();
}

/**
 * The token `value` names, if it may be used from `origin` now: it exists, has not expired, its
 * address matches, and its root credential still holds (tokenParentHolds). A token whose
 * credential is gone is forgotten, as an expired one is. Every use of a token that lets something
 * in comes through here: login, upload and download.
 */
export function liveToken(appliance: Appliance, value: string, origin: Origin): AuthToken | null {
  const token = appliance.tokens.find(value, origin);
  if (!token) return null;
  if (!tokenParentHolds(appliance, token.parent)) {
    token.destroy();
    return null;
  }
  return token;
}
