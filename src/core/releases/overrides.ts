import { CONTRACT_METHODS } from '../contract/index.js';
import type { MethodContract } from '../contract/method.js';
import { CONTRACT_26_0_0_SCRAM } from '../contract/v26_0_0/index.js';

/**
 * 25.10.1's contract with a later release's entries in place of the ones whose models changed,
 * its removed methods left out and its new ones after the rest (the order core.get_methods lists them in).
 */
export function overriddenContract(
  overrides: Readonly<Record<string, MethodContract>>,
  removed: readonly string[],
): ReadonlyMap<string, MethodContract> {
  const gone = new Set(removed);
  const joined = new Map<string, MethodContract>();
  for (const [name, base] of CONTRACT_METHODS) if (!gone.has(name)) joined.set(name, overrides[name] ?? base);
  for (const [name, entry] of Object.entries(overrides)) if (!joined.has(name)) joined.set(name, entry);
  return joined;
}

/**
 * A release's contract with the key login the emulator's `keyLogin` setting chose where it is not
 * the release's own (docs/RELEASES.md "Emulator behaviours"): `scram` lays 26.0's SCRAM entries
 * (CONTRACT_26_0_0_SCRAM) over it, new ones after the rest; `plain` puts 25.10.1's entries back in
 * their place and leaves out the methods only SCRAM brought (api_key.convert_raw_key).
 */
export function withKeyLogin(
  contract: ReadonlyMap<string, MethodContract>,
  keyLogin: 'plain' | 'scram',
): ReadonlyMap<string, MethodContract> {
  const joined = new Map<string, MethodContract>();
  for (const [name, entry] of contract) {
    const scram = CONTRACT_26_0_0_SCRAM[name];
    if (!scram) joined.set(name, entry);
    else if (keyLogin === 'scram') joined.set(name, scram);
    else if (CONTRACT_METHODS.has(name)) joined.set(name, CONTRACT_METHODS.get(name)!);
  }
  if (keyLogin === 'scram')
    for (const [name, entry] of Object.entries(CONTRACT_26_0_0_SCRAM)) if (!joined.has(name)) joined.set(name, entry);
  return joined;
}
