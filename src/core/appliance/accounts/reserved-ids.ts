import { nextFreeId } from './groups.js';

/**
 * `ReservedXid` (MW/utils/reserved_ids.py): ids `user.get_next_uid` / `group.get_next_gid` handed
 * out, held for an hour so the next answer is another id; `user.create` / `group.create` free the
 * id they were given (MW/plugins/account.py:701-703, 731-732). In memory, per appliance, as in the
 * middleware's process: a restart forgets them.
 */
const LOCKED_XID_TTL_MS = 3600 * 1000;

export class ReservedIds {
  private readonly inFlight = new Map<number, number>();

  private inUse(): number[] {
    const now = performance.now();
    for (const [id, expiry] of this.inFlight) if (now > expiry) this.inFlight.delete(id);
    return [...this.inFlight.keys()];
  }

  /** The lowest id from 3000 neither taken nor held (the gap, else one past the highest: the same id), now held. */
  reserve(taken: Iterable<number>): number {
    const id = nextFreeId([...taken, ...this.inUse()]);
    this.inFlight.set(id, performance.now() + LOCKED_XID_TTL_MS);
    return id;
  }

  /** The lowest id from 3000 neither taken nor held, not held by this. */
  next(taken: Iterable<number>): number {
    return nextFreeId([...taken, ...this.inUse()]);
  }

  release(id: number): void {
    this.inFlight.delete(id);
  }
}

const uids = new WeakMap<object, ReservedIds>();
const gids = new WeakMap<object, ReservedIds>();

const of = (map: WeakMap<object, ReservedIds>, appliance: object): ReservedIds => {
  let r = map.get(appliance);
  if (!r) map.set(appliance, (r = new ReservedIds()));
  return r;
};

/** The appliance's held uids. */
export const reservedUids = (appliance: object): ReservedIds => of(uids, appliance);
/** The appliance's held gids. */
export const reservedGids = (appliance: object): ReservedIds => of(gids, appliance);
