import { CONTRACT_METHODS } from '../contract/index.js';
import type { MethodContract } from '../contract/method.js';

/**
 * 25.10.1's contract with a later release's entries in place of the ones whose models changed,
 * its removed methods left out and its new ones after the rest (the order core.get_methods lists them in).
 */
export function overriddenContract(overrides: Readonly<Record<string, MethodContract>>, removed: readonly string[]): ReadonlyMap<string, MethodContract> {
  const gone = new Set(removed);
  const joined = new Map<string, MethodContract>();
  for (const [name, base] of CONTRACT_METHODS) if (!gone.has(name)) joined.set(name, overrides[name] ?? base);
  for (const [name, entry] of Object.entries(overrides)) if (!joined.has(name)) joined.set(name, entry);
  return joined;
}
