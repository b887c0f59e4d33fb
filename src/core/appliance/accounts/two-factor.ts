import { hostname } from 'node:os';
import * as z from 'zod';
import { authContract, twoFactorAuthEntry, type AuthUserInfo } from '../../contract/auth.js';
import { ERRNO, rpcErrors } from '../../errors.js';
import {
  readTwoFactorConfig,
  readUserTwoFactor,
  writeTwoFactorConfig,
  writeUserTwoFactor,
  type TwoFactorConfigRecord,
  type UserTwoFactorRecord,
} from '../../store/twofactor.js';
import type { UserRecord } from '../../store/users.js';
import { AccountsSnapshot } from './accounts.js';
import type { Appliance } from '../appliance.js';
import { implement, type CallContext } from '../method.js';
import { userContract } from '../../contract/user.js';
import { exposesAccountSecrets } from '../methods/user.js';
import { pyRepr } from '../query/python.js';
import { generateTotpSecret, provisioningUri } from './totp.js';

/** `auth.twofactor.config` as 25.10.1 answers it: every known service present (`two_factor_extend`). */
export function twoFactorEntry(config: TwoFactorConfigRecord): z.output<ReturnType<typeof twoFactorAuthEntry>> {
  return { enabled: config.enabled, services: { ssh: config.services.ssh ?? false }, window: config.window, id: 1 };
}

/** `user.twofactor_config` (MW/plugins/account_/2fa.py): what `auth.me` and `user.renew_2fa_secret` show. */
export function userTwoFactorConfig(user: UserRecord, record: UserTwoFactorRecord): AuthUserInfo['two_factor_config'] {
  return {
    provisioning_uri: record.secret ? provisioningUri(record.secret, `${user.username}-${hostname()}@TrueNAS`, record) : null,
    secret_configured: record.secret !== null,
    interval: record.interval,
    otp_digits: record.otp_digits,
  };
}

export function readGlobalTwoFactor(appliance: Appliance): TwoFactorConfigRecord {
  const { store } = appliance;
  return store.read(() => readTwoFactorConfig(store.db));
}

export function readUserSecret(appliance: Appliance, userId: number): UserTwoFactorRecord {
  const { store } = appliance;
  return store.read(() => readUserTwoFactor(store.db, userId));
}

/** `user.translate_username`: the local user of that name, or the CallError 25.10.1 raises. */
function translateUsername(accounts: AccountsSnapshot, username: string): UserRecord {
  const user = accounts.users.find((u) => u.username === username);
  if (!user) throw rpcErrors.call(ERRNO.ENOENT, `User ${pyRepr(username)} does not exist`);
  return user;
}

/** `app_credential_full_admin_or_user` (MW/utils/privilege.py): FULL_ADMIN (wildcard allowlist) or that very user. */
function fullAdminOrUser(ctx: CallContext, username: string): boolean {
  return ctx.session.isFullAdmin || ctx.session.credentials?.username === username;
}

export const twoFactorMethods = [
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
  implement(userContract['user.renew_2fa_secret'], (ctx, username, options) => {
    if (!fullAdminOrUser(ctx, username)) {
      throw rpcErrors.call(ERRNO.EPERM, `${username}: currently authenticated credential may not renew two-factor authentication for this user.`);
    }
    const { store } = ctx.appliance;
    const user = store.write(() => {
      const target = translateUsername(AccountsSnapshot.load(store.db), username);
      const old = readUserTwoFactor(store.db, target.id);
      writeUserTwoFactor(store.db, target.id, {
        secret: generateTotpSecret(),
        interval: options.interval ?? old.interval,
        otp_digits: options.otp_digits ?? old.otp_digits,
      });
      return target;
    });
    const accounts = ctx.appliance.accounts();
    const entry = accounts.userEntry(user, exposesAccountSecrets(ctx));
    return { ...entry, twofactor_config: userTwoFactorConfig(user, readUserSecret(ctx.appliance, user.id)) };
  }),
  implement(userContract['user.unset_2fa_secret'], ({ appliance }, username) => {
    const { store } = appliance;
    store.write(() => {
      const user = translateUsername(AccountsSnapshot.load(store.db), username);
      writeUserTwoFactor(store.db, user.id, { ...readUserTwoFactor(store.db, user.id), secret: null });
    });
    return null;
  }),
];
