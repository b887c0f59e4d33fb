import { setObjectsAt, type StateFile, type StateKind } from '../../core/state/index.js';
import { KINDS, STATE_KINDS } from './kinds/index.js';
import type { World } from './kinds/kind.js';

/**
 * The target's state in the file's format, built-ins left out (built-in groups, users and
 * privileges; revoked keys; pool roots and the appliance's own datasets), each kind's adapter
 * exporting its own, sections in the table's order. Applying it to the same target plans no change.
 */
export function exportState(world: World, only: ReadonlySet<StateKind> = new Set(STATE_KINDS)): StateFile {
  const out: StateFile = { stor_state: 1 };
  for (const kind of KINDS) if (only.has(kind.key)) setObjectsAt(out, kind.key, kind.export(world));
  return out;
}
