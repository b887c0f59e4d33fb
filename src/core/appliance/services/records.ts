import type { ServiceEntry } from '../../contract/service-namespace.js';
import { listServiceRecords, type ServiceRecord } from '../../store/services.js';
import type { Appliance } from '../appliance.js';

/*
 * The service records a release lists, and their entries as service.query answers them. No
 * daemon runs (README "What is not emulated"): the state is what the last start or stop left in
 * the record, and `pids` is always empty.
 */

/** Rows only a later release has: 26.0's webshare (stable/26 MW/alembic/versions/26.0/2025-11-19_14-42_webshare.py:35). */
const ONLY_IN_26 = new Set(['webshare']);

/**
 * Whether the appliance answers as 26.0, whose plugin differs past the models: control checks the
 * privilege itself and update sends `service.query` CHANGED (stable/26 MW/plugins/service.py:141-160).
 */
export const isRelease26 = (appliance: Appliance): boolean => appliance.release.name === '26.0';

/** The records the appliance's release lists, by id. */
export function serviceRecords(appliance: Appliance): ServiceRecord[] {
  const all = listServiceRecords(appliance.store.db);
  return isRelease26(appliance) ? all : all.filter((r) => !ONLY_IN_26.has(r.service));
}

/** The record named `name`, if the release lists it. */
export function serviceRecord(appliance: Appliance, name: string): ServiceRecord | undefined {
  return serviceRecords(appliance).find((r) => r.service === name);
}

/**
 * An entry: the record (`srv_` prefix off) with the state `service_extend` adds
 * (MW/plugins/service.py:79-91): RUNNING or STOPPED, or UNKNOWN with no pids when the query asked
 * not to include state (`extra.include_state: false`, :45-47).
 */
export function serviceEntry(r: ServiceRecord, includeState = true): ServiceEntry {
  const state = includeState ? (r.running ? 'RUNNING' : 'STOPPED') : 'UNKNOWN';
  return { id: r.id, service: r.service, enable: r.enable, state, pids: [] };
}
