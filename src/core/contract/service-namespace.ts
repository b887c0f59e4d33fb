import * as z from 'zod';
import { crud } from './crud.js';
import { once, roles, str } from './method.js';
import { method, service } from './service.js';

// The `service.*` namespace: `MW/api/v25_10_1/service.py`; service `MW/plugins/service.py`
// (CRUDService, role_prefix SERVICE, :36-42: query and get_instance SERVICE_READ). Not to be
// confused with ./service.ts, which defines how any namespace's contract is written.

/** ServiceEntry (MW/api/v25_10_1/service.py:16-25), in its field order. */
export const serviceEntry = once(() =>
  z.object({
    id: z.int(),
    service: z.string(),
    enable: z.boolean(),
    state: z.string(),
    pids: z.array(z.int()),
  }),
);
export type ServiceEntry = z.output<ReturnType<typeof serviceEntry>>;

/** ServiceOptions (MW/api/v25_10_1/service.py:29-35). */
export const serviceOptions = once(() =>
  z.strictObject({
    ha_propagate: z.boolean().default(true),
    silent: z.boolean().default(true),
    timeout: z.int().nullable().default(120),
  }),
);

/** `Field(default_factory=ServiceOptions)`: every option its default. */
const defaultOptions = () => ({ ha_propagate: true, silent: true, timeout: 120 });

/** The verbs service.control takes (MW/api/v25_10_1/service.py:44). */
export const SERVICE_VERBS = ['START', 'STOP', 'RESTART', 'RELOAD'] as const;
export type ServiceVerb = (typeof SERVICE_VERBS)[number];

/**
 * Who may change a service: the roles of update and control (MW/plugins/service.py:117-118,
 * 150-151); start, stop, restart and reload leave SHARING_NVME_TARGET_WRITE out (:164, 254, 302,
 * 374). Past the dispatcher, `app_has_write_privilege_for_service` narrows a sharing role to its own
 * service (MW/plugins/service_/utils.py:5-38).
 */
export const SERVICE_WRITE_ROLES = [
  'SERVICE_WRITE',
  'SHARING_NFS_WRITE',
  'SHARING_SMB_WRITE',
  'SHARING_ISCSI_WRITE',
  'SHARING_FTP_WRITE',
  'SHARING_NVME_TARGET_WRITE',
] as const;
const actionRoles = () => roles(...SERVICE_WRITE_ROLES.filter((r) => r !== 'SHARING_NVME_TARGET_WRITE'));

const services = crud(serviceEntry, () => z.int(), {
  read: roles('SERVICE_READ'),
  write: roles(...SERVICE_WRITE_ROLES),
});

/** `service: str` then `options: ServiceOptions` (ServiceStartArgs etc., MW/api/v25_10_1/service.py:60-125). */
const actionParams = () =>
  [
    { name: 'service', schema: str() },
    { name: 'options', schema: serviceOptions(), default: defaultOptions },
  ] as const;

/** One of start, stop, restart, reload: not jobs, `pass_app_rest` (MW/plugins/service.py:161-413). */
const action = (summary: string) =>
  method({ summary, access: actionRoles(), params: actionParams, result: () => z.boolean(), app: 'rest' });

export const serviceNamespaceContract = service('service', {
  query: services.query(
    'List system services: name, enabled at boot, state (RUNNING, STOPPED), pids (filters, options; extra.include_state).',
  ),
  get_instance: services.get_instance('One service record by id.'),
  // MW/plugins/service.py:114-145; ServiceUpdateArgs/Result (MW/api/v25_10_1/service.py:128-137).
  update: method({
    summary: 'Set whether a service (by id or name) starts at boot: {enable}; answers its id.',
    access: roles(...SERVICE_WRITE_ROLES),
    params: () =>
      [
        { name: 'id_or_name', schema: z.union([z.int(), str()]) },
        { name: 'service_update', schema: z.strictObject({ enable: z.boolean() }) },
      ] as const,
    result: () => z.int(),
    app: 'rest',
  }),
  // MW/plugins/service.py:147-159: a job (lock `service_<name>`) running start/stop/restart/reload.
  control: method({
    summary: 'START, STOP, RESTART or RELOAD a service (a job); true when it ran as asked.',
    access: roles(...SERVICE_WRITE_ROLES),
    params: () =>
      [
        { name: 'verb', schema: z.enum(SERVICE_VERBS) },
        { name: 'service', schema: str() },
        { name: 'options', schema: serviceOptions(), default: defaultOptions },
      ] as const,
    result: () => z.boolean(),
    job: true,
    app: 'rest',
  }),
  start: action('Start a service by name; true when it runs after.'),
  // MW/plugins/service.py:222-241
  started: method({
    summary: 'Whether a service runs.',
    access: roles('SERVICE_READ'),
    params: () => [{ name: 'service', schema: str() }] as const,
    result: () => z.boolean(),
  }),
  // MW/plugins/service.py:243-249
  started_or_enabled: method({
    summary: 'Whether a service runs or starts at boot.',
    access: roles('SERVICE_READ'),
    params: () => [{ name: 'service', schema: str() }] as const,
    result: () => z.boolean(),
  }),
  stop: action('Stop a service by name; true when it stopped.'),
  restart: action('Restart a service by name; true when it runs after.'),
  reload: action('Reload a service by name (restart where it cannot reload); true when it runs after.'),
});
