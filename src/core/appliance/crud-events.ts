import type { Appliance } from './appliance.js';
import { collectionUpdate, type CollectionUpdate } from './events.js';
import { isRelease26, serviceEntry, serviceRecords } from './services/records.js';

/**
 * The `collection_update` events a method's success sends, as 25.10.1 sends them: the one place
 * that decides it, called by `implement()` (method.ts) after the handler answered. What a call
 * sends depends only on its method, its arguments, its answer and the state it left (a service's
 * entry after a start); who hears it is EventHub's.
 */

/**
 * What `send_event` is called with after a successful call, or null when it is not called; the
 * appliance for an event that carries what the call left (service.*'s entry after a start).
 */
export type EventOf = (args: readonly unknown[], answer: unknown, appliance: Appliance) => CollectionUpdate | null;

const isDict = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Python's truthiness of an id: `oid or rv['id']` falls through for None, 0 and ''. */
const truthy = (v: unknown) => v !== undefined && v !== null && v !== 0 && v !== '' && v !== false;

const CRUD_TYPE = { create: 'ADDED', update: 'CHANGED', delete: 'REMOVED' } as const;

/**
 * CRUDService's wrapper around do_create/do_update/do_delete (MW/service/crud_service.py:174-216):
 * after the call, with `event_send`, a delete always sends REMOVED, a create or update ADDED or
 * CHANGED only when it answered a dict with an `id` (so group.create and group.update, which
 * answer the bare id, MW/plugins/account.py:2048, 2127, send nothing). The id is the argument's
 * (update, delete) or the answer's; `fields` is the answer itself when a dict: what the plugin
 * returned, before the caller's result model redacts anything.
 */
function crudEvent(namespace: string, action: keyof typeof CRUD_TYPE): EventOf {
  return (args, answer) => {
    // MW/service/crud_service.py:206
    if (!(action === 'delete' || (isDict(answer) && 'id' in answer))) return null;
    const oid = action === 'create' ? undefined : args[0];
    // MW/service/crud_service.py:207-209
    const kwargs: { id: unknown; fields?: unknown } = {
      id: truthy(oid) ? oid : (answer as Record<string, unknown>).id,
    };
    if (isDict(answer)) kwargs.fields = answer;
    // MW/service/crud_service.py:210
    return collectionUpdate(`${namespace}.query`, CRUD_TYPE[action], kwargs);
  };
}

/**
 * CRUD services that send through the wrapper: `event_send` is true unless the service's Config
 * says otherwise (MW/service/base.py:20). pool.dataset and pool.snapshot set it false
 * (MW/plugins/pool_/dataset.py:40, MW/plugins/pool_/snapshot.py:19) and send their own, below.
 */
const CRUD_EVENT_SEND = [
  'user',
  'group',
  'privilege',
  'api_key',
  'sharing.nfs',
  'sharing.smb',
  'pool.snapshottask',
  'keychaincredential',
  'replication',
];

const answerOf = (answer: unknown) => answer as { id: unknown };

/**
 * service.*: `notify_running` sends `service.query` CHANGED with the service's entry and no id, after
 * every start, stop, restart and reload (MW/plugins/service.py:436-443, called at :201, 282, 365);
 * nothing for a name without a record (:440-441). update answers the bare id, so the CRUD wrapper
 * sends nothing on 25.10.1; 26.0's update calls notify_running itself (stable/26 MW/plugins/service.py:144).
 */
function serviceEvents(): Record<string, EventOf> {
  const changed = (appliance: Appliance, found: (r: { id: number; service: string }) => boolean) => {
    const record = serviceRecords(appliance).find(found);
    return record ? collectionUpdate('service.query', 'CHANGED', { fields: serviceEntry(record) }) : null;
  };
  const named =
    (at: number): EventOf =>
    (args, _answer, appliance) =>
      changed(appliance, (r) => r.service === args[at]);
  return {
    'service.control': named(1),
    'service.start': named(0),
    'service.stop': named(0),
    'service.restart': named(0),
    'service.reload': named(0),
    'service.update': (_args, answer, appliance) =>
      isRelease26(appliance) ? changed(appliance, (r) => r.id === answer) : null,
  };
}

/**
 * Events plugins send themselves from inside the method, after the change. None for
 * pool.snapshot.clone/hold/release (MW/plugins/zfs_/snapshot_actions.py:14-118 sends nothing) nor
 * user.set_password (a `datastore.update`, not do_update: MW/plugins/account.py:1870-1875);
 * `auth.sessions` goes with a login and a logout, not a method (session/live-sessions.ts).
 */
const OWN_EVENTS: Record<string, EventOf> = {
  // MW/plugins/pool_/snapshot.py:71
  'pool.snapshot.create': (_args, answer) =>
    collectionUpdate('pool.snapshot.query', 'ADDED', { id: answerOf(answer).id, fields: answer }),
  // MW/plugins/pool_/snapshot.py:82-87: `recursive` goes as `extra`; no events for the children.
  'pool.snapshot.delete': (args) =>
    collectionUpdate('pool.snapshot.query', 'REMOVED', {
      id: args[0],
      recursive: (args[1] as { recursive: boolean }).recursive,
    }),
  // MW/plugins/pool_/dataset.py:663 (`data['id']`, which is the new dataset's id)
  'pool.dataset.create': (_args, answer) =>
    collectionUpdate('pool.dataset.query', 'ADDED', { id: answerOf(answer).id, fields: answer }),
  // MW/plugins/pool_/dataset.py:800
  'pool.dataset.update': (args, answer) =>
    collectionUpdate('pool.dataset.query', 'CHANGED', { id: args[0], fields: answer }),
  ...serviceEvents(),
};

const EVENTS: ReadonlyMap<string, EventOf> = new Map([
  ...CRUD_EVENT_SEND.flatMap((ns) =>
    (['create', 'update', 'delete'] as const).map((action) => [`${ns}.${action}`, crudEvent(ns, action)] as const),
  ),
  ...Object.entries(OWN_EVENTS),
]);

/** The event a successful call of `method` sends, if its method sends one. */
export function eventOf(method: string): EventOf | undefined {
  return EVENTS.get(method);
}

/**
 * Sends what a successful call of `method` with `args`, answered `answer`, sends (nothing for a
 * method that sends nothing). For a handler that makes, as 25.10.1 does, an inner call of another
 * such method (user.delete's group.delete): that call sends its own event.
 */
export function publishEvent(appliance: Appliance, method: string, args: readonly unknown[], answer: unknown): void {
  const update = eventOf(method)?.(args, answer, appliance);
  if (update) appliance.events.send(update);
}
