import { STATE_KINDS, type StateFile, type StateKind } from '../../core/state/index.js';
import { groupNames } from '../privilege/model.js';
import { primaryGroupName } from '../user/model.js';
import { exportDatasets } from './datasets.js';
import { namesOf } from './diff.js';
import { iso } from '../api-key/model.js';
import type { World } from './world.js';

/**
 * The target's state in the file's format, built-ins left out (built-in groups, users and
 * privileges; revoked keys; pool roots and the appliance's own datasets). Applying it to the same
 * target plans no change.
 */
export function exportState(world: World, only: ReadonlySet<StateKind> = new Set(STATE_KINDS)): StateFile {
  const { userById, groupById } = namesOf(world);
  const out: StateFile = { stor_state: 1 };
  if (only.has('groups')) {
    out.groups = world.groups
      .filter((g) => !g.builtin)
      .map((g) => ({ name: g.name, gid: g.gid, members: g.users.map((id) => userById.get(id) ?? String(id)).sort() }));
  }
  if (only.has('users')) {
    out.users = world.users
      .filter((u) => !u.builtin)
      .map((u) => {
        const group = primaryGroupName(u);
        return {
          name: u.username,
          full_name: u.full_name,
          ...(group !== null ? { group } : {}),
          groups: u.groups.map((id) => groupById.get(id) ?? String(id)).sort(),
          shell: u.shell,
          home: u.home,
          ...(u.password_disabled ? { password_disabled: true as const } : {}),
        };
      });
  }
  if (only.has('privileges')) {
    out.privileges = world.privileges
      .filter((p) => p.builtin_name === null)
      .map((p) => ({ name: p.name, groups: groupNames(p).sort(), roles: p.roles, web_shell: p.web_shell }));
  }
  if (only.has('datasets')) out.datasets = exportDatasets(world.datasets);
  if (only.has('api_keys')) {
    const seen = new Set<string>();
    out.api_keys = world.apiKeys
      .filter((k) => !k.revoked && k.username !== null && !seen.has(k.name) && seen.add(k.name))
      .map((k) => ({ name: k.name, user: k.username!, expires: k.expires_at ? iso(k.expires_at.$date) : null }));
  }
  return out;
}
