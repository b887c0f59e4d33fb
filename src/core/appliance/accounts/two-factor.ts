import { hostname } from 'node:os';
import type * as z from 'zod';
import type { AuthUserInfo, twoFactorAuthEntry } from '../../contract/auth.js';
import {
  readTwoFactorConfig,
  readUserTwoFactor,
  type TwoFactorConfigRecord,
  type UserTwoFactorRecord,
} from '../../store/twofactor.js';
import type { UserRecord } from '../../store/users.js';
import type { Appliance } from '../appliance.js';
import { provisioningUri } from './totp.js';

/** `auth.twofactor.config` as 25.10.1 answers it: every known service present (`two_factor_extend`). */
export function twoFactorEntry(config: TwoFactorConfigRecord): z.output<ReturnType<typeof twoFactorAuthEntry>> {
  return { enabled: config.enabled, services: { ssh: config.services.ssh ?? false }, window: config.window, id: 1 };
}

/** `user.twofactor_config` (MW/plugins/account_/2fa.py): what `auth.me` and `user.renew_2fa_secret` show. */
export function userTwoFactorConfig(user: UserRecord, record: UserTwoFactorRecord): AuthUserInfo['two_factor_config'] {
  return {
    provisioning_uri: record.secret
      ? provisioningUri(record.secret, `${user.username}-${hostname()}@TrueNAS`, record)
      : null,
    secret_configured: record.secret !== null,
    interval: record.interval,
    otp_digits: record.otp_digits,
  };
}

export function readGlobalTwoFactor(appliance: Appliance): TwoFactorConfigRecord {
  const { store } = appliance;
  return store.read(() => readTwoFactorConfig(store.db));
}

/**
 * A user's two-factor record, reused until the database changes (`auth.me` answers it on every
 * call: a read of its own was a third of a server's work per call). Read-only.
 */
export function readUserSecret(appliance: Appliance, userId: number): Readonly<UserTwoFactorRecord> {
  const { store } = appliance;
  return store.cached(`twofactor:${userId}`, () => readUserTwoFactor(store.db, userId));
}
