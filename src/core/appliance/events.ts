import { ERRNO, rpcErrors } from '../errors.js';
import type { Session } from './session/session.js';

/** A `collection_update` notification's params (MW/api/base/server/ws_handler/rpc.py:158-181). */
export interface CollectionUpdate {
  msg: 'added' | 'changed' | 'removed';
  collection: string;
  id?: unknown;
  fields?: unknown;
  /** What else the sender passed (e.g. `recursive` of a snapshot delete). */
  extra?: Record<string, unknown>;
}

export type EventType = 'ADDED' | 'CHANGED' | 'REMOVED';

/**
 * The params of `send_event(name, event_type, **kwargs)` as a connection words them
 * (`RpcWebSocketApp.send_event`, MW/api/base/server/ws_handler/rpc.py:168-180): `msg` is the type
 * in lower case; `id` when given; `fields` when given for ADDED and CHANGED (for a REMOVED they
 * would stay among the rest); any other keyword under `extra`.
 */
export function collectionUpdate(
  name: string,
  type: EventType,
  kwargs: { id?: unknown; fields?: unknown; [extra: string]: unknown },
): CollectionUpdate {
  const { id, ...rest } = kwargs;
  const update: CollectionUpdate = { msg: type.toLowerCase() as CollectionUpdate['msg'], collection: name };
  if ('id' in kwargs) update.id = id;
  if ((type === 'ADDED' || type === 'CHANGED') && 'fields' in rest) {
    update.fields = rest.fields;
    delete rest.fields;
  }
  if (Object.keys(rest).length > 0) update.extra = rest;
  return update;
}

/**
 * The appliance's events and who hears them: 25.10.1's `Middleware.send_event` over its
 * connections (MW/main.py:1130-1147). Each connection gets an event at most once, however many
 * of its subscriptions match (MW/api/base/server/ws_handler/rpc.py:158-180), and every connection
 * gets the same params object: nothing is copied per subscriber.
 */
export class EventHub {
  /** Connections with at least one subscription (pruned lazily once they have none). */
  private readonly listeners = new Set<Session>();

  /**
   * Adds a subscription, or refuses with ENOSPC once the connection holds its maximum: a table
   * that is full, not a busy moment that passes (EBUSY is the rate limit's).
   */
  subscribe(session: Session, id: string, name: string): void {
    if (session.subscriptions.size >= session.maxSubscriptions) {
      throw rpcErrors.call(
        ERRNO.ENOSPC,
        `Too many subscriptions on this connection (at most ${session.maxSubscriptions}); unsubscribe first`,
      );
    }
    session.subscriptions.set(id, name);
    this.listeners.add(session);
  }

  /**
   * No connection has subscribed to anything: send() would do nothing, so a sender may skip making
   * the update (the embedded target's login makes no `auth.sessions` event, nor the session id it
   * carries).
   */
  get silent(): boolean {
    return this.listeners.size === 0;
  }

  /** How many connections would hear an event now (closed ones have dropped their subscriptions). */
  subscribers(): number {
    let n = 0;
    for (const session of this.listeners) if (session.subscriptions.size > 0 && session.notify) n++;
    return n;
  }

  /**
   * Sends `update` to every connection subscribed to its collection (or to `*`) for which
   * `shouldSend` holds, as `should_send_event` filters job events by who may read the job.
   */
  send(update: CollectionUpdate, shouldSend?: (session: Session) => boolean): void {
    for (const session of this.listeners) {
      // Closed connections and logged-out sessions have dropped their subscriptions.
      if (session.subscriptions.size === 0 || !session.notify) {
        this.listeners.delete(session);
        continue;
      }
      if (!subscribedTo(session, update.collection)) continue;
      if (shouldSend && !shouldSend(session)) continue;
      session.notify('collection_update', update);
    }
  }
}

function subscribedTo(session: Session, collection: string): boolean {
  for (const name of session.subscriptions.values()) if (name === collection || name === '*') return true;
  return false;
}
