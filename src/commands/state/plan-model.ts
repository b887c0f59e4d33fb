import type { StateKind } from '../../core/state/index.js';

/** One field a change sets: `from` is null for a create, `to` null for a delete. */
export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

/** One object the plan creates, updates or deletes (docs/COMMANDS.md "Desired state"). */
export interface PlannedChange {
  kind: StateKind;
  name: string;
  action: 'create' | 'update' | 'delete';
  changes: FieldChange[];
}

/** A role list stor would write shorter (`--normalize` plans the minimal list). */
export interface RoleOverlap {
  privilege: string;
  roles: string[];
  /** The smallest list with the same effective roles (core/roles/fix.ts, as `privilege fix` writes it). */
  minimal: string[];
  findings: string[];
}

/** `stor plan --json` (and the plan inside `stor apply --json`): what applying the file would change on one target. */
export interface StatePlan {
  /** True when applying would change something: `stor plan` then exits 7 (DRIFT). */
  pending: boolean;
  /** The target's release as it told it, and the catalogue the roles were judged by. */
  release: string | null;
  catalogue: string;
  /** In dependency order: groups → users → privileges → datasets → snapshot_tasks → replications → shares.nfs → shares.smb → api_keys; deletes after, in reverse. */
  changes: PlannedChange[];
  /** Differences stor reports but never changes in place (a gid, an API key's user), and the snapshots a snapshot task's change or delete lets go. */
  notes: string[];
  overlaps: RoleOverlap[];
}
