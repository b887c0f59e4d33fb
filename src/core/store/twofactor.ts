import type { Database } from './sqlite.js';
import { bool, fromJsonColumn, toJsonColumn } from './json-column.js';
import { sql } from './statements.js';

/** The global two-factor setting (`system_twofactorauthentication` on 25.10.1). */
export interface TwoFactorConfigRecord {
  enabled: boolean;
  /** Counter ticks accepted either side of the current one. */
  window: number;
  services: { ssh?: boolean };
}

/** A user's TOTP parameters (`account_twofactor_user_auth`); `secret` is base32, null when unset. */
export interface UserTwoFactorRecord {
  secret: string | null;
  interval: number;
  otp_digits: number;
}

/** What a user without a record has, as `auth.twofactor.get_user_config` answers (MW/plugins/auth_/2fa.py). */
export const USER_TWOFACTOR_DEFAULTS: UserTwoFactorRecord = { secret: null, interval: 30, otp_digits: 6 };

export function readTwoFactorConfig(db: Database): TwoFactorConfigRecord {
  const row = sql(db, 'SELECT enabled, window, services FROM twofactor_config WHERE id = 1').get() as
    { enabled: number; window: number; services: string } | undefined;
  if (!row) return { enabled: false, window: 0, services: {} };
  return { enabled: bool(row.enabled), window: row.window, services: fromJsonColumn(row.services, {}) };
}

export function writeTwoFactorConfig(db: Database, config: TwoFactorConfigRecord): void {
  sql(
    db,
    `INSERT INTO twofactor_config (id, enabled, window, services) VALUES (1, @enabled, @window, @services)
     ON CONFLICT(id) DO UPDATE SET enabled = excluded.enabled, window = excluded.window, services = excluded.services`,
  ).run({ enabled: config.enabled ? 1 : 0, window: config.window, services: toJsonColumn(config.services) });
}

export function readUserTwoFactor(db: Database, userId: number): UserTwoFactorRecord {
  const row = sql(db, 'SELECT secret, interval, otp_digits FROM user_twofactor WHERE user_id = ?').get(userId) as
    UserTwoFactorRecord | undefined;
  return row ?? { ...USER_TWOFACTOR_DEFAULTS };
}

export function writeUserTwoFactor(db: Database, userId: number, record: UserTwoFactorRecord): void {
  sql(
    db,
    `INSERT INTO user_twofactor (user_id, secret, interval, otp_digits) VALUES (@user_id, @secret, @interval, @otp_digits)
     ON CONFLICT(user_id) DO UPDATE SET secret = excluded.secret, interval = excluded.interval, otp_digits = excluded.otp_digits`,
  ).run({ user_id: userId, ...record });
}

/** Ids of users with a secret: `twofactor_auth_configured` in their entries. */
export function listUsersWithSecret(db: Database): number[] {
  return sql(db, 'SELECT user_id FROM user_twofactor WHERE secret IS NOT NULL').pluck().all() as number[];
}
