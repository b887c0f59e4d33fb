import { createRequire } from 'node:module';

// otpauth is loaded at the first secret made or code checked: every command that opens the
// embedded appliance loads this module (its login does), and only two-factor logins and
// `user.renew_2fa_secret` use the library (the bundle leaves a call through this alias alone, as
// query/python.ts does for re2js).
const loadCommonJs = createRequire(import.meta.url);
let otpauth: typeof import('otpauth') | undefined;
const library = (): typeof import('otpauth') => (otpauth ??= loadCommonJs('otpauth') as typeof import('otpauth'));

export interface TotpParams {
  /** Seconds per code. */
  interval: number;
  otp_digits: number;
}

/** A new secret as `pyotp.random_base32()` makes it: 32 base32 characters (160 bits). */
export function generateTotpSecret(): string {
  const { Secret } = library();
  return new Secret({ size: 20 }).base32;
}

/**
 * Checks a code as `pyotp.TOTP(...).verify(token, valid_window=window)` does: SHA-1, the given
 * digits and interval, accepting `window` intervals either side of now.
 */
export function verifyTotp(secret: string, token: string, params: TotpParams, window: number): boolean {
  const { Secret, TOTP } = library();
  return (
    TOTP.validate({
      token,
      secret: Secret.fromBase32(secret),
      algorithm: 'SHA1',
      digits: params.otp_digits,
      period: params.interval,
      window,
    }) !== null
  );
}

/**
 * The URI an authenticator app is provisioned from, in pyotp's form (`build_uri`): issuer
 * `iXsystems`, name `<user>-<hostname>@TrueNAS`, digits and period only when not the defaults
 * (MW/plugins/account_/2fa.py `provisioning_uri_internal`).
 */
export function provisioningUri(secret: string, name: string, params: TotpParams): string {
  const issuer = 'iXsystems';
  const query = new URLSearchParams({ secret, issuer });
  if (params.otp_digits !== 6) query.set('digits', String(params.otp_digits));
  if (params.interval !== 30) query.set('period', String(params.interval));
  return `otpauth://totp/${encodeURIComponent(issuer)}:${encodeURIComponent(name)}?${query.toString().replace(/\+/g, '%20')}`;
}
