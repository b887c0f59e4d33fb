import { call } from '../../core/contract/client.js';
import type { Transport } from '../../core/transport/transport.js';
import { loadTargetRoles } from '../privilege/model.js';
import { KINDS } from './kinds/index.js';
import type { Objects, World } from './kinds/kind.js';
import { readMarks } from './ownership.js';
import type { Dataset } from './datasets.js';

export type { World } from './kinds/kind.js';

/** Reads the target: each kind of the table once (one query per kind, never one per object), its catalogue, `auth.me`, the marks. */
export async function readWorld(t: Transport): Promise<World> {
  const [lists, roles, me] = await Promise.all([
    Promise.all(KINDS.map((k) => k.read(t))),
    loadTargetRoles(t),
    call(t, 'auth.me'),
  ]);
  const objects = Object.fromEntries(KINDS.map((k, i) => [k.key, lists[i]!])) as unknown as Objects;
  const roots = (objects.datasets as readonly Dataset[]).filter((d) => !d.id.includes('/'));
  return { objects, roles, me: me.pw_name, marks: readMarks(roots) };
}
