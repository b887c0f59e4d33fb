/**
 * The kinds of desired state, in dependency order: creates and updates run in it (a user's groups
 * exist before the user, a privilege's groups before the privilege, a key's user before the key,
 * a replication's snapshot tasks before the replication),
 * deletes (`--prune`) in reverse. Plan, apply, export, `--only` and `STATE_KINDS` all walk this
 * table; a new kind is one file here and one row (docs/ARCHITECTURE.md "How to add a kind to desired state").
 */
import type { StateKind } from '../../../core/state/index.js';
import { apiKeys } from './api-keys.js';
import { datasets } from './datasets.js';
import { groups } from './groups.js';
import type { AnyKind } from './kind.js';
import { nfsShares } from './nfs-shares.js';
import { privileges } from './privileges.js';
import { replications } from './replications.js';
import { smbShares } from './smb-shares.js';
import { snapshotTasks } from './snapshot-tasks.js';
import { users } from './users.js';

export const KINDS = [
  groups,
  users,
  privileges,
  datasets,
  snapshotTasks,
  replications,
  nfsShares,
  smbShares,
  apiKeys,
] as const satisfies readonly AnyKind[];

/** Every section of the file has its row (a compile error names the one missing). */
const complete: Exclude<StateKind, (typeof KINDS)[number]['key']> extends never ? true : never = true;
void complete;

/** The sections, in the table's order. */
export const STATE_KINDS: readonly StateKind[] = KINDS.map((k) => k.key);

/** The adapter of a section. */
export const kindOf = (key: StateKind): AnyKind => KINDS.find((k) => k.key === key)!;
