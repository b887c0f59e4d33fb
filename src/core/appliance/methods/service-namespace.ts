import { serviceNamespaceContract as contract, type ServiceVerb } from '../../contract/service-namespace.js';
import { rpcErrors } from '../../errors.js';
import { mayChangeService, serviceRefusal, type ServiceAction } from '../../refusals/service.js';
import { setServiceEnable, setServiceRunning, type ServiceRecord } from '../../store/services.js';
import type { Appliance } from '../appliance.js';
import { implement, type CallContext } from '../method.js';
import { isDict } from '../query/python.js';
import { filterAttrs } from '../query/filter-attrs.js';
import { getInstance, query } from '../query/index.js';
import { isRelease26, serviceEntry, serviceRecord, serviceRecords } from '../services/records.js';

// The handlers of contract/service-namespace.ts, as MW/plugins/service.py answers them. No daemon
// is run: start and stop set the record's state (README "What is not emulated"). What a success
// sends (`service.query` CHANGED from notify_running) is crud-events.ts's.

/** Python's truthiness of a JSON value. */
const truthy = (v: unknown): boolean =>
  !(
    v === null ||
    v === false ||
    v === 0 ||
    v === '' ||
    (Array.isArray(v) && v.length === 0) ||
    (isDict(v) && Object.keys(v).length === 0)
  );

/** Whether the query asked for state: `extra.include_state`, true unless given falsy (MW/plugins/service.py:45-47). */
function includeState(options: unknown): boolean {
  const extra = isDict(options) ? options.extra : undefined;
  return !isDict(extra) || !('include_state' in extra) || truthy(extra.include_state);
}

const entries = (appliance: Appliance, options: unknown, withState = includeState(options)) =>
  serviceRecords(appliance).map((r) => serviceEntry(r, withState));

/**
 * A filter on `state` or `pids` reads every record with its state, `extra` left out, and filters
 * after (MW/plugins/service.py:108-110): include_state false does not reach that read.
 */
const filtersOnState = (filters: unknown) => {
  const attrs = filterAttrs(filters);
  return attrs.has('state') || attrs.has('pids');
};

/**
 * `int(text)` of a string of Unicode decimal digits (`str.isdigit()`, MW/plugins/service.py:128-131),
 * or null. Each script's digits run 0 to 9 in blocks of ten, so a digit's value is its distance
 * from the start of its run of digits, modulo 10.
 */
function decimalDigits(text: string): number | null {
  if (!/^\p{Nd}+$/u.test(text)) return null;
  let value = 0;
  for (const c of text) {
    let start = c.codePointAt(0)!;
    while (/\p{Nd}/u.test(String.fromCodePoint(start - 1))) start--;
    value = value * 10 + ((c.codePointAt(0)! - start) % 10);
  }
  return value;
}

/** `service.object(name)`: the record, or MatchNotFound(name) (MW/plugins/service.py:424-429). */
function objectOf(appliance: Appliance, name: string): ServiceRecord {
  const found = serviceRecord(appliance, name);
  if (!found) throw serviceRefusal.unknown(name);
  return found;
}

/** The privilege check past the dispatcher (MW/plugins/service_/utils.py:13-38). */
function checkPrivilege(ctx: CallContext, service: string, action: ServiceAction): void {
  if (!mayChangeService((r) => ctx.session.hasRole(r), service))
    throw serviceRefusal.lacksPrivilege(service, action, isRelease26(ctx.appliance));
}

/**
 * Services whose object can reload (`reloadable = True`: MW/plugins/service_/services/cifs.py:6,
 * ftp.py:6, iscsitarget.py:10, nfs.py:8, ssh.py:6, pseudo/misc.py:203 for nvmet); any other is
 * restarted by reload (MW/plugins/service.py:396-408).
 */
const RELOADABLE = new Set(['cifs', 'ftp', 'iscsitarget', 'nfs', 'ssh', 'nvmet']);

/**
 * One of start, stop, restart, reload. 25.10.1 finds the object, then checks the privilege (each
 * method: :175-178, :265-268, :313-316, :385-388); 26.0 checks first, in control (stable/26 :157-160).
 * The answer is whether it ran as asked: start, restart and reload true when the service runs
 * after, stop true when it stopped (:198-208, :279-286, :337-369). A reload of a stopped service
 * that can reload leaves it stopped and answers false (:401-406).
 */
function act(ctx: CallContext, verb: ServiceVerb, service: string): boolean {
  const action = verb.toLowerCase() as ServiceAction;
  if (isRelease26(ctx.appliance)) checkPrivilege(ctx, service, action);
  const record = objectOf(ctx.appliance, service);
  if (!isRelease26(ctx.appliance)) checkPrivilege(ctx, service, action);
  const running = verb === 'STOP' ? false : verb === 'RELOAD' && RELOADABLE.has(service) ? record.running : true;
  if (running !== record.running) {
    const { store } = ctx.appliance;
    store.write(() => setServiceRunning(store.db, record.id, running));
  }
  return verb === 'STOP' ? !running : running;
}

export const serviceNamespaceMethods = [
  // MW/plugins/service.py:93-112
  implement(contract['service.query'], ({ appliance }, filters, options) =>
    query(entries(appliance, options, filtersOnState(filters) || includeState(options)), filters, options),
  ),
  // CRUDService.get_instance (MW/service/crud_service.py:228-243); verbose_name is the class name
  // less "Service" (MW/service/base.py:36): ServiceService's is empty, so " 99 does not exist".
  implement(contract['service.get_instance'], ({ appliance }, id, options) =>
    getInstance(entries(appliance, options), id, options, ''),
  ),
  // MW/plugins/service.py:124-145: a digit string is an id; answers the id (datastore.update's).
  implement(contract['service.update'], (ctx, idOrName, data) => {
    const id = typeof idOrName === 'number' ? idOrName : decimalDigits(idOrName);
    const records = serviceRecords(ctx.appliance);
    const found = id !== null ? records.find((r) => r.id === id) : records.find((r) => r.service === idOrName);
    if (!found) throw serviceRefusal.notFound(idOrName);
    checkPrivilege(ctx, found.service, 'update');
    const { store } = ctx.appliance;
    store.write(() => setServiceEnable(store.db, found.id, data.enable));
    return found.id;
  }),
  // MW/plugins/service.py:147-159: a job running the verb's method.
  implement(contract['service.control'], (ctx, verb, service) => act(ctx, verb, service)),
  implement(contract['service.start'], (ctx, service) => act(ctx, 'START', service)),
  // MW/plugins/service.py:222-241
  implement(contract['service.started'], ({ appliance }, service) => objectOf(appliance, service).running),
  // MW/plugins/service.py:243-249: service.query with `get`, so an unknown name is MatchNotFound().
  implement(contract['service.started_or_enabled'], ({ appliance }, service) => {
    const found = serviceRecord(appliance, service);
    if (!found) throw rpcErrors.matchNotFound();
    return found.running || found.enable;
  }),
  implement(contract['service.stop'], (ctx, service) => act(ctx, 'STOP', service)),
  implement(contract['service.restart'], (ctx, service) => act(ctx, 'RESTART', service)),
  implement(contract['service.reload'], (ctx, service) => act(ctx, 'RELOAD', service)),
];
