import { isIP } from 'node:net';

/**
 * Loopback: 127.0.0.0/8, ::1, IPv4-mapped loopback, and the name `localhost`. A key used in clear
 * anywhere else is exposed on a network, and real appliances revoke it on sight.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  // Only the exact name: `*.localhost` may be resolved through DNS on hosts without a local resolver rule.
  if (h === 'localhost') return true;
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h;
  return isIP(v4) === 4 && v4.startsWith('127.');
}
