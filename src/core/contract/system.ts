import * as z from 'zod';
import { datetime } from './ejson.js';
import { PYDANTIC_DICT, modeledAs } from './json-schema.js';
import { AUTHENTICATED, PUBLIC, once, roles } from './method.js';
import { method, service } from './service.js';

/** `stor.emulation`'s answer (stor's own method; a real appliance answers -32601). */
export const emulationInfo = once(() =>
  z.object({
    emulator: z.literal('stor'),
    release: z.string(),
    settings: z.object({
      roleExpansion: z.enum(['terminating', 'as-reported', 'truenas-25.10.1']),
      roleLists: z.enum(['accept', 'reject-overlap']),
      uploadGate: z.enum(['sys-admin', 'role', 'full-admin']),
      sysAdmin: z.enum(['builtin-administrators', 'admin-uids']),
      httpRpc: z.enum(['served', 'refused']),
      /** The release it answers as (src/core/releases/ RELEASE_NAMES); absent from emulators before releases were a setting. */
      release: z.enum(['25.10.1', '25.10.6', '25.10.7', '26.0']).optional(),
      /** `--key-login` (docs/REMOTE.md "SCRAM login (TrueNAS 26)"); absent from emulators before it was a setting. */
      keyLogin: z.enum(['plain', 'scram']).optional(),
    }),
    /** The `--emulate` preset the settings are, or `custom` when they mix. */
    emulate: z.enum(['truenas-25.10.1', 'truenas-25.10.6', 'truenas-25.10.7', 'truenas-26.0', 'as-reported', 'custom']),
    /** The login rule the role expansion follows. */
    lockout_rule: z.enum(['as-reported', 'self-including', 'none']),
  }),
);

export type EmulationInfo = z.output<ReturnType<typeof emulationInfo>>;

/** A `datetime` of SystemInfoResult as it travels: `{"$date": ms}` (truenas_api_client/ejson.py:48-52). */
const infoDate = once(() => datetime(z.object({ $date: z.number() })));

/** SystemInfoResult (`MW/api/v25_10_1/system.py:40-82`), in its field order; `datetime_` travels as `datetime`. */
export const systemInfo = once(() =>
  z.object({
    version: z.string(),
    buildtime: infoDate(),
    hostname: z.string(),
    physmem: z.int(),
    model: z.string(),
    cores: z.int(),
    physical_cores: z.int(),
    loadavg: z.array(z.number()),
    uptime: z.string(),
    uptime_seconds: z.number(),
    system_serial: z.string().nullable(),
    system_product: z.string().nullable(),
    system_product_version: z.string().nullable(),
    license: modeledAs(z.record(z.string(), z.unknown()), PYDANTIC_DICT).nullable(),
    boottime: infoDate(),
    datetime: infoDate(),
    timezone: z.string(),
    system_manufacturer: z.string().nullable(),
    ecc_memory: z.boolean(),
  }),
);
export type SystemInfo = z.output<ReturnType<typeof systemInfo>>;

export const systemContract = {
  ...service('system', {
    // Both need a login but no role (`authorization_required=False`, MW/plugins/system/product.py:75-80,
    // 109-113; MW/api/base/decorator.py:68).
    version_short: method({
      summary: 'The release, e.g. "25.10.1".',
      access: AUTHENTICATED,
      params: () => [],
      result: () => z.string(),
    }),
    version: method({
      summary: 'The full version string, e.g. "TrueNAS-25.10.1".',
      access: AUTHENTICATED,
      params: () => [],
      result: () => z.string(),
    }),
    // MW/plugins/system/info.py:83-84 (READONLY_ADMIN).
    info: method({
      summary: 'Release, hostname, uptime, boot time, memory, CPU and clock of the appliance.',
      access: roles('READONLY_ADMIN'),
      params: () => [],
      result: () => systemInfo(),
    }),
    // MW/plugins/system/info.py:58-73 (READONLY_ADMIN): the SHA-256 of /etc/hostid, hex.
    host_id: method({
      summary: "The appliance's permanent identifier, which names its snapshots' removal-date property.",
      access: roles('READONLY_ADMIN'),
      params: () => [],
      result: () => z.string(),
    }),
    // MW/plugins/system/lifecycle.py:31-37: no login needed (rate-limited like every anonymous
    // call), `pass_app=True` without `pass_app_rest`, so WebSocket only.
    boot_id: method({
      summary: 'An id that changes at every boot of the appliance; needs no login.',
      access: PUBLIC,
      app: 'ws',
      params: () => [],
      result: () => z.string(),
    }),
  }),
  ...service('stor', {
    emulation: method({
      summary: 'stor only: the behaviours this emulator was started with (role expansion, upload gate).',
      access: PUBLIC,
      params: () => [],
      result: () => emulationInfo(),
    }),
  }),
};
