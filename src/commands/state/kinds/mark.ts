import { call } from '../../../core/contract/client.js';
import type { Transport } from '../../../core/transport/transport.js';
import { markKey, markValue, type MarkedKind } from '../ownership.js';
import type { World } from './kind.js';

/** Marks the object stor made (`id`: the one the appliance gave it), or removes the mark (`id` null). ownership.ts says where the mark lives. */
export async function markName(
  t: Transport,
  world: World,
  kind: MarkedKind,
  name: string,
  id: number | null,
): Promise<void> {
  if (world.marks.home === null) return;
  const key = markKey(kind, name);
  await call(t, 'pool.dataset.update', [
    world.marks.home,
    { user_properties_update: [id !== null ? { key, value: markValue(name, id) } : { key, remove: true }] },
  ]);
}
