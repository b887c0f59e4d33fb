import { call, queryItems } from '../../core/contract/client.js';
import type { Transport } from '../../core/transport/transport.js';
import { listApiKeys, type ApiKey } from '../api-key/model.js';
import { listGroups, type Group } from '../group/model.js';
import { listPrivileges, loadTargetRoles, type Privilege, type TargetRoles } from '../privilege/model.js';
import { listUsers, type User } from '../user/model.js';
import { readMarks, type Marks } from './ownership.js';

import type { Dataset } from './datasets.js';

export type { Dataset };

/** What a target holds of what a state file can name: read once, one query per kind (never one per object). */
export interface World {
  groups: Group[];
  users: User[];
  privileges: Privilege[];
  apiKeys: ApiKey[];
  datasets: Dataset[];
  /** The target's catalogue and lockout rule (its release's; privilege/model.ts). */
  roles: TargetRoles;
  /** The username stor is logged in as (`auth.me`). */
  me: string;
  marks: Marks;
}

export async function readWorld(t: Transport): Promise<World> {
  const [groups, users, privileges, apiKeys, datasets, roles, me] = await Promise.all([
    listGroups(t),
    listUsers(t),
    listPrivileges(t),
    listApiKeys(t),
    // Flat (the default), every property: the file may name any.
    queryItems(t, 'pool.dataset.query', ['id']),
    loadTargetRoles(t),
    call(t, 'auth.me'),
  ]);
  const roots = datasets.filter((d) => !d.id.includes('/'));
  return { groups, users, privileges, apiKeys, datasets, roles, me: me.pw_name, marks: readMarks(roots) };
}
