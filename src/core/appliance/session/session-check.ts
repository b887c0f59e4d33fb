import { findApiKey } from '../../store/api-keys.js';
import type { AccountsSnapshot } from '../accounts/accounts.js';
import type { Appliance } from '../appliance.js';
import { prepareLogin } from '../methods/auth.js';
import type { ComposedPrivilege, Session, SessionCredentials } from './session.js';
import type { TokenParent } from './tokens.js';

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
function credentialHolds(appliance: Appliance, accounts: AccountsSnapshot, credentials: SessionCredentials, held: ComposedPrivilege): boolean {
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
 * Run before every call on a session (as 25.10.1 re-checks each incoming message, facts §1.8):
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
