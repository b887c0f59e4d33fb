import { cpus, hostname, loadavg, totalmem } from 'node:os';
import type { SystemInfo } from '../../contract/system.js';
import type { Appliance } from '../appliance.js';

/*
 * `system.info` (MW/plugins/system/info.py:83-113) of the emulator: the machine it runs on where
 * Node can read it (host name, memory, CPU, load), the emulator's own start as the boot, and
 * what a VM without DMI data or licence answers for the rest (docs/RELEASES.md "Emulator behaviours").
 */

/** The build time stor reports: the commit time of the release's tag in truenas/middleware (TS-25.10.1). */
const BUILD_TIME_MS = 1765804543000;

/**
 * `stg_timezone`'s default (MW/plugins/system_general/update.py:33); the emulator has no timezone
 * setting, so this is the appliance's zone: system.info answers it and the periodic snapshot tasks
 * run and are named in it, as zettarepl's TzClock is given system.general's (MW/plugins/zettarepl.py:614, 648).
 */
export const APPLIANCE_TIMEZONE = 'America/Los_Angeles';

/** EJSON sends a datetime's `timetuple()`, whole seconds (truenas_api_client/ejson.py:48-52). */
const ejson = (ms: number) => ({ $date: Math.floor(ms / 1000) * 1000 });

/** Python's `str(timedelta(seconds=s))`: `H:MM:SS[.ffffff]`, after `N day[s], ` when a day or more. */
export function pyTimedelta(seconds: number): string {
  const micros = Math.round(seconds * 1e6);
  const days = Math.floor(micros / 86_400e6);
  const rest = micros - days * 86_400e6;
  const h = Math.floor(rest / 3600e6);
  const m = Math.floor((rest % 3600e6) / 60e6);
  const s = Math.floor((rest % 60e6) / 1e6);
  const us = rest % 1e6;
  const clock = `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}${us ? `.${String(us).padStart(6, '0')}` : ''}`;
  return days ? `${days} day${days === 1 ? '' : 's'}, ${clock}` : clock;
}

export function systemInfo(appliance: Appliance, release: string): SystemInfo {
  const now = Date.now();
  const uptimeSeconds = (now - appliance.boot.at) / 1000;
  const cpu = cpus();
  return {
    version: release,
    buildtime: { $date: BUILD_TIME_MS },
    hostname: hostname(),
    physmem: totalmem(),
    model: cpu[0]?.model ?? 'Unknown',
    cores: cpu.length,
    // Node cannot tell physical cores from threads; the logical count stands for both.
    physical_cores: cpu.length,
    loadavg: loadavg(),
    uptime: pyTimedelta(uptimeSeconds),
    uptime_seconds: uptimeSeconds,
    system_serial: null,
    system_product: null,
    system_product_version: null,
    license: null,
    boottime: ejson(appliance.boot.at),
    datetime: ejson(now),
    timezone: APPLIANCE_TIMEZONE,
    system_manufacturer: null,
    ecc_memory: false,
  };
}
