import { z } from 'zod';
import { rpcErrors } from '../errors.js';
import { findApiKey, revokeApiKey } from '../store/api-keys.js';
import { GID } from '../store/seed.js';
import { verifySecret } from '../store/secrets.js';
import type { UserRecord } from '../store/users.js';
import { AccountsSnapshot } from './accounts.js';
import type { Appliance } from './appliance.js';
import { composePrivileges } from './compose.js';
import { AUTHENTICATED, PUBLIC, defineMethod, type CallContext } from './method.js';
import { str } from './params.js';
import type { Session, SessionCredentials } from './session.js';

export type LoginOutcome = 'SUCCESS' | 'AUTH_ERR' | 'EXPIRED';

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

function establish(
  appliance: Appliance,
  session: Session,
  accounts: AccountsSnapshot,
  user: UserRecord,
  credentials: SessionCredentials,
): LoginOutcome {
  if (user.locked) return 'AUTH_ERR';
  const gids = accounts.gidsOf(user);
  const privileges = accounts.privilegesForGids(gids);
  // A user whose groups match no privilege cannot build a session token (facts §2.1).
  if (privileges.length === 0) return 'AUTH_ERR';
  const composed = composePrivileges(appliance.catalogue, privileges, appliance.settings.roleExpansion, appliance.methods);
  const attributes = ['LOCAL'];
  if (credentials.type === 'API_KEY') attributes.push('API_KEY');
  // SPEC §2.3: SYS_ADMIN marks members of builtin_administrators.
  if (gids.includes(GID.builtin_administrators)) attributes.push('SYS_ADMIN');
  session.establish(credentials, composed, attributes);
  return 'SUCCESS';
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
    two_factor_config: { provisioning_uri: null, secret_configured: false, interval: 30, otp_digits: 6 },
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

const loginData = z.discriminatedUnion('mechanism', [
  z.strictObject({
    mechanism: z.literal('API_KEY_PLAIN'),
    username: str(),
    api_key: str(),
    login_options: loginOptions.default({ user_info: true }),
  }),
  z.strictObject({
    mechanism: z.literal('OTP_TOKEN'),
    otp_token: str(),
    login_options: loginOptions.default({ user_info: true }),
  }),
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
    name: 'auth.login_ex',
    summary: 'Log in with a mechanism object (API_KEY_PLAIN); returns a response_type object.',
    access: PUBLIC,
    params: [{ name: 'login_data', schema: loginData }],
    handler: (ctx, data) => {
      if (data.mechanism === 'OTP_TOKEN') throw rpcErrors.call(22, 'OTP_TOKEN: no authentication in progress');
      const outcome = loginWithApiKey(ctx.appliance, ctx.session, data.api_key, data.username);
      if (outcome !== 'SUCCESS') return { response_type: outcome };
      return {
        response_type: 'SUCCESS',
        user_info: data.login_options.user_info ? describeSession(ctx) : null,
        authenticator: 'LEVEL_1',
      };
    },
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
