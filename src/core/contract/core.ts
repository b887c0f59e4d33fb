import * as z from 'zod';
import { ejsonDate } from './ejson.js';
import { AUTHENTICATED, PUBLIC, PUBLIC_UNLIMITED, queryResult, once } from './method.js';
import { queryParams } from './query.js';
import { method, service } from './service.js';

// `MW/api/v25_10_1/core.py`; handlers in `MW/service/core_service.py`. Every core.* method the
// emulator serves needs a login but no role (`authorization_required=False`), except ping and
// set_options, which need no login at all.

/** CoreGetJobsItem: a `core.get_jobs` item and the `fields` of its events (MW/api/v25_10_1/core.py:84). */
export const coreGetJobsItem = once(() =>
  z.object({
    id: z.int(),
    message_ids: z.array(z.unknown()),
    method: z.string(),
    arguments: z.array(z.unknown()),
    transient: z.boolean(),
    description: z.string().nullable(),
    abortable: z.boolean(),
    logs_path: z.string().nullable(),
    logs_excerpt: z.string().nullable(),
    progress: z.object({ percent: z.int().nullable(), description: z.string().nullable(), extra: z.unknown() }),
    result: z.unknown(),
    result_encoding_error: z.unknown(),
    error: z.string().nullable(),
    exception: z.string().nullable(),
    exc_info: z
      .object({
        repr: z.string().nullable(),
        type: z.string().nullable(),
        errno: z.int().nullable(),
        extra: z.unknown(),
      })
      .nullable(),
    // A str in the model; the values are WAITING, RUNNING, SUCCESS, FAILED, ABORTED.
    state: z.string(),
    time_started: ejsonDate().nullable(),
    time_finished: ejsonDate().nullable(),
    // `data` is the credential's dump() (MW/auth.py:129-160): username, login_id, login_at, api_key.
    credentials: z.object({ type: z.string(), data: z.record(z.string(), z.unknown()) }).nullable(),
  }),
);

/** CoreOptions: ForUpdateMetaclass makes every field optional; unknown keys are ignored (extra="ignore"). */
const coreOptions = once(() =>
  z.object({
    legacy_jobs: z.boolean().optional(),
    private_methods: z.boolean().optional(),
    py_exceptions: z.boolean().optional(),
  }),
);

/**
 * The parts of one `core.get_methods` value stor reads (built in MW/service/core_service.py:355-377;
 * the model types the values as Any, so every part is optional here).
 */
export const coreMethodsItem = once(() =>
  z.object({
    cli_description: z.string().optional(),
    no_auth_required: z.boolean().optional(),
    roles: z.array(z.string()).optional(),
    accepts: z
      .array(z.object({ _name_: z.string().optional(), title: z.string().optional() }))
      .nullable()
      .optional(),
  }),
);

export const coreContract = service('core', {
  ping: method({
    summary: 'Answers "pong"; needs no login (rate-limited before login).',
    access: PUBLIC,
    params: () => [],
    result: () => z.literal('pong'),
  }),
  set_options: method({
    summary: 'Set connection options {legacy_jobs, private_methods, py_exceptions}; returns them all.',
    access: PUBLIC_UNLIMITED,
    app: 'ws', // MW/service/core_service.py:691-692
    params: () => [{ name: 'options', schema: coreOptions() }],
    result: () => coreOptions(),
  }),
  get_jobs: method({
    summary: 'Jobs this session may see (its own; every job for full administrators).',
    access: AUTHENTICATED,
    app: 'rest', // MW/service/core_service.py:118
    params: queryParams,
    result: () => queryResult(coreGetJobsItem()),
  }),
  job_wait: method({
    summary: 'A job that waits for job id and ends with its result.',
    access: AUTHENTICATED,
    job: true,
    params: () => [{ name: 'id', schema: z.int() }],
    result: () => z.unknown(),
  }),
  job_abort: method({
    summary: 'Abort a waiting or running job.',
    access: AUTHENTICATED,
    app: 'rest', // MW/service/core_service.py:202
    params: () => [{ name: 'id', schema: z.int() }],
    result: () => z.null(),
  }),
  subscribe: method({
    summary: 'Subscribe to an event (e.g. "core.get_jobs"); returns the subscription id.',
    access: AUTHENTICATED,
    app: 'ws', // MW/service/core_service.py:707
    params: () => [{ name: 'event', schema: z.string().max(1024) }],
    result: () => z.string(),
  }),
  unsubscribe: method({
    summary: 'End a subscription.',
    access: AUTHENTICATED,
    app: 'ws', // MW/service/core_service.py:716
    params: () => [{ name: 'id_', schema: z.string().max(1024) }],
    result: () => z.null(),
  }),
  download: method({
    summary:
      'Start a job that writes a file (e.g. filesystem.get) and answer [job_id, "/_download/<id>?auth_token=…"] to GET its bytes from.',
    access: AUTHENTICATED,
    app: 'rest', // MW/service/core_service.py:497
    params: () => [
      { name: 'method', schema: z.string() },
      { name: 'args', schema: z.array(z.unknown()) },
      { name: 'filename', schema: z.string() },
      { name: 'buffered', schema: z.boolean(), default: () => false },
    ],
    result: () => z.tuple([z.int(), z.string()]),
  }),
  get_methods: method({
    summary: 'Metadata of every method this session may call (description, roles, job, schemas).',
    access: AUTHENTICATED,
    app: 'ws', // MW/service/core_service.py:247
    params: () => [
      { name: 'service', schema: z.string().max(1024).nullable(), default: () => null },
      { name: 'target', schema: z.enum(['WS', 'CLI', 'REST']), default: () => 'WS' },
    ],
    result: () => z.record(z.string(), z.unknown()),
  }),
});
