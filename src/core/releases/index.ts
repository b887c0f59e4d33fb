import type { MethodContract } from '../contract/method.js';
import { release25101 } from './25.10.1.js';
import { release25106 } from './25.10.6.js';
import { release25107 } from './25.10.7.js';
import { release260 } from './26.0.js';
import { withKeyLogin } from './overrides.js';
import { RELEASE_NAMES, type Release, type ReleaseName } from './release.js';

export { RELEASE_NAMES, type Release, type ReleaseName } from './release.js';

/** Every release stor knows, by name (docs/RELEASES.md "Supported releases"). */
export const RELEASES: Readonly<Record<ReleaseName, Release>> = {
  '25.10.1': release25101,
  '25.10.6': release25106,
  '25.10.7': release25107,
  '26.0': release260,
};

/** The release the emulator answers as when nothing else was chosen: 25.10.1, as before releases were a choice. */
export const DEFAULT_RELEASE: ReleaseName = '25.10.1';

export function isReleaseName(name: string): name is ReleaseName {
  return (RELEASE_NAMES as readonly string[]).includes(name);
}

const mixed = new Map<string, ReadonlyMap<string, MethodContract>>();

/**
 * The contract the emulator serves and validates with for a release, by default with the release's
 * own key login; another `keyLogin` (the emulator's setting) swaps the SCRAM entries in or out.
 */
export function contractFor(
  release: ReleaseName,
  keyLogin: Release['keyLogin'] = RELEASES[release].keyLogin,
): ReadonlyMap<string, MethodContract> {
  const own = RELEASES[release];
  if (keyLogin === own.keyLogin) return own.contract();
  const key = `${release} ${keyLogin}`;
  let contract = mixed.get(key);
  if (!contract) mixed.set(key, (contract = withKeyLogin(own.contract(), keyLogin)));
  return contract;
}

/**
 * The release stor knows a target's `system.version_short` to be (`25.10.7`, `26.0.0-RC.1`,
 * `26.0.3`): 25.10.0–25.10.5 (as 25.10.1), 25.10.6 and 25.10.7+ share 25.10.1's catalogue and rule; 26.0.0's betas before
 * BETA.3 still ship a self-including PRIVILEGE_WRITE (TS-26.0.0-BETA.2 MW/role.py:64), so they are
 * not 26.0 here. Null when stor knows no release by that version.
 */
export function releaseOfVersion(versionShort: string): ReleaseName | null {
  const v = /^(\d+)\.(\d+)(?:\.(\d+))?(?:\.\d+)?(?:-(BETA|RC)\.(\d+))?$/.exec(versionShort);
  if (!v) return null;
  const [major, minor, patch] = [Number(v[1]), Number(v[2]), Number(v[3] ?? 0)];
  if (major === 25 && minor === 10) return patch >= 7 ? '25.10.7' : patch === 6 ? '25.10.6' : '25.10.1';
  if (major === 26 && minor === 0) {
    if (v[4] === 'BETA' && Number(v[5]) < 3) return null;
    return '26.0';
  }
  return null;
}
