import { Secret, TOTP } from 'otpauth';

/** The secret in an `otpauth://` provisioning URI, as an authenticator app reads it. */
export function secretOf(provisioningUri: string): string {
  const secret = new URL(provisioningUri).searchParams.get('secret');
  if (!secret) throw new Error(`no secret in ${provisioningUri}`);
  return secret;
}

/** The code an authenticator app shows now (SHA-1, 6 digits, 30 s unless said otherwise). */
export function currentCode(secret: string, digits = 6, period = 30): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), digits, period });
}

/** A code the appliance must reject: none of the codes valid `window` intervals either side of now. */
export function wrongCode(secret: string, window = 1, digits = 6, period = 30): string {
  const now = Date.now();
  const valid = new Set<string>();
  for (let i = -window - 1; i <= window + 1; i++) {
    valid.add(TOTP.generate({ secret: Secret.fromBase32(secret), digits, period, timestamp: now + i * period * 1000 }));
  }
  for (let n = 0; ; n++) {
    const candidate = String(n).padStart(digits, '0');
    if (!valid.has(candidate)) return candidate;
  }
}
