/**
 * core.* of `stor serve --emulate truenas-25.10.1`, driven with raw JSON-RPC frames: every answer
 * checked against the contract (MW/api/v25_10_1/core.py) and every error against the literal
 * texts and codes of the 25.10.1 source. Envelope errors
 * (MW/api/base/server/ws_handler/rpc.py:272-331) and
 * ENOTAUTHENTICATED before login are tested in test/core/server/websocket.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { contractViolations } from '../../../../src/core/contract/conformance.js';
import { coreGetJobsItem } from '../../../../src/core/contract/core.js';
import { createUserWithKey } from '../../../helpers/appliance.js';
import {
  SAFETY_MS,
  connectWs,
  loggedInWs,
  type Message,
  type TestServer,
  type WsClient,
} from '../../../helpers/server.js';
import { adminSession, server25, conforming } from '../../../conformance/harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** CoreGetJobsItem's fields in model order (MW/api/v25_10_1/core.py). */
const JOB_FIELDS = [
  'id',
  'message_ids',
  'method',
  'arguments',
  'transient',
  'description',
  'abortable',
  'logs_path',
  'logs_excerpt',
  'progress',
  'result',
  'result_encoding_error',
  'error',
  'exception',
  'exc_info',
  'state',
  'time_started',
  'time_finished',
  'credentials',
];

const isJobEvent = (jobId: number, msg?: string) => (m: Message) =>
  m.method === 'collection_update' &&
  m.params?.collection === 'core.get_jobs' &&
  m.params?.id === jobId &&
  (msg === undefined || m.params?.msg === msg);

/** A job that fails: core.job_wait on a job that does not exist (legacy_jobs answers its id). */
async function failedJob(client: WsClient): Promise<number> {
  const id = await client.result<number>('core.job_wait', [999]);
  await waitForState(client, id, 'FAILED');
  return id;
}

/** A job that runs until aborted: core.job_wait on itself (job ids start at 1 per server). */
async function foreverJob(client: WsClient): Promise<number> {
  const [last] = await client.result<{ id: number }[]>('core.get_jobs', [[], { order_by: ['-id'], limit: 1 }]);
  const next = (last?.id ?? 0) + 1;
  expect(await client.result('core.job_wait', [next])).toBe(next);
  return next;
}

async function waitForState(client: WsClient, id: number, state: string): Promise<Record<string, unknown>> {
  for (const deadline = Date.now() + SAFETY_MS; Date.now() < deadline; await new Promise((r) => setTimeout(r, 10))) {
    const [job] = await client.result<Record<string, unknown>[]>('core.get_jobs', [[['id', '=', id]]]);
    if (job?.state === state) return job;
  }
  throw new Error(`job ${id} never reached ${state}`);
}

/** An upload that succeeds: a filesystem.put job of the uploading key's user. */
async function uploadedJob(server: TestServer): Promise<number> {
  const form = new FormData();
  form.append('data', JSON.stringify({ method: 'filesystem.put', params: ['/mnt/tank/hello.txt', { mode: 420 }] }));
  form.append('file', new Blob(['hello']), 'hello.txt');
  const res = await fetch(`${server.url}/_upload/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.adminKey}` },
    body: form,
    signal: AbortSignal.timeout(SAFETY_MS),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { job_id: number }).job_id;
}

async function readOnlyUser(server: TestServer, roles = ['READONLY_ADMIN']): Promise<WsClient> {
  const { key } = await createUserWithKey(server.testAppliance, 'limited', { privilegeRoles: roles });
  return loggedInWs(server.rpcUrl, key);
}

describe('core.* as 25.10.1 (MW/service/core_service.py)', () => {
  it('core.ping answers "pong" before login; extra params are refused (MW/service/core_service.py:394-395, MW/api/base/handler/accept.py:47-50)', async () => {
    const server = await server25();
    const client = await connectWs(server.rpcUrl);
    expect(await conforming(client, 'core.ping')).toBe('pong');
    expect((await client.call('core.ping', [1])).error).toEqual({
      code: -32602,
      message: 'Invalid params',
      data: expect.objectContaining({
        error: 22,
        errname: 'EINVAL',
        extra: [['', 'Too many arguments (expected 0, found 1)', 22]],
      }),
    });
  });

  it('core.set_options answers every option, ignores unknown keys and coerces nothing (MW/service/core_service.py:691-705, MW/api/base/model.py:150-151)', async () => {
    const server = await server25();
    const client = await connectWs(server.rpcUrl);
    expect(await conforming(client, 'core.set_options', [{ legacy_jobs: false, no_such_option: 1 }])).toEqual({
      legacy_jobs: false,
      private_methods: false,
      py_exceptions: false,
    });
    const notBool = await client.call('core.set_options', [{ legacy_jobs: 1 }]);
    expect(notBool.error).toMatchObject({
      code: -32602,
      data: { errname: 'EINVAL', extra: [['options.legacy_jobs', 'Input should be a valid boolean', 22]] },
    });
    const missing = await client.call('core.set_options', []);
    expect(missing.error).toMatchObject({
      code: -32602,
      data: { reason: '[EINVAL] options: Field required\n', extra: [['options', 'Field required', 22]] },
    });
  });

  it('core.get_jobs entries carry exactly the fields of CoreGetJobsItem, whole-second dates and the credential dump (MW/job.py:624-705, MW/auth.py:129-160, truenas_api_client/ejson.py:48-52)', async () => {
    const server = await server25();
    const client = await loggedInWs(server.rpcUrl, server.adminKey);
    const id = await failedJob(client);
    const jobs = await conforming<Record<string, any>[]>(client, 'core.get_jobs', [[['id', '=', id]]]);
    expect(jobs).toHaveLength(1);
    const [job] = jobs;
    expect(Object.keys(job!)).toEqual(JOB_FIELDS);
    expect(job!.time_started.$date % 1000).toBe(0);
    expect(job!.time_finished.$date % 1000).toBe(0);
    expect(job!.credentials).toEqual({
      type: 'API_KEY',
      data: {
        username: 'truenas_admin',
        login_id: expect.stringMatching(UUID),
        login_at: { $date: expect.any(Number) },
        api_key: { id: expect.any(Number), name: expect.any(String) },
      },
    });
    expect(Object.keys(job!.credentials.data)).toEqual(['username', 'login_id', 'login_at', 'api_key']);
    expect(job!.credentials.data.login_at.$date % 1000).toBe(0);
    // get and count, as query_result allows.
    expect(await conforming(client, 'core.get_jobs', [[['id', '=', id]], { get: true }])).toMatchObject({
      id,
      state: 'FAILED',
    });
    expect(await conforming(client, 'core.get_jobs', [[], { count: true }])).toBe(1);
  });

  it('core.get_jobs shows a user without FULL_ADMIN only its own jobs (MW/service/core_service.py:138-140, MW/job.py:113-124)', async () => {
    const server = await server25();
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    const mine = await failedJob(admin);
    const limited = await readOnlyUser(server);
    const own = await failedJob(limited);
    expect((await conforming<{ id: number }[]>(limited, 'core.get_jobs')).map((j) => j.id)).toEqual([own]);
    expect((await conforming<{ id: number }[]>(admin, 'core.get_jobs')).map((j) => j.id)).toEqual([mine, own]);
  });

  it('core.job_wait answers the job id under legacy_jobs, else the job result (MW/api/base/server/method.py:59-63)', async () => {
    const server = await server25();
    const client = await loggedInWs(server.rpcUrl, server.adminKey);
    const put = await uploadedJob(server);
    expect(typeof (await conforming(client, 'core.job_wait', [put]))).toBe('number');
    await client.result('core.set_options', [{ legacy_jobs: false }]);
    const result = await conforming(client, 'core.job_wait', [put]);
    const [job] = await client.result<{ result: unknown; state: string }[]>('core.get_jobs', [
      [['id', '=', put]],
      { extra: { raw_result: true } },
    ]);
    expect(job!.state).toBe('SUCCESS');
    expect(result).toEqual(job!.result);
  });

  it('core.job_wait on a failed job raises CallError(job.error): -32001 EFAULT "[EFAULT] <the job error>" (MW/job.py:467-478, MW/service/core_service.py:165-170)', async () => {
    const server = await server25();
    const client = await loggedInWs(server.rpcUrl, server.adminKey);
    const failed = await failedJob(client);
    await client.result('core.set_options', [{ legacy_jobs: false }]);
    const reply = await client.call('core.job_wait', [failed]);
    expect(reply.error).toMatchObject({
      code: -32001,
      message: 'Method call error',
      data: {
        error: 14,
        errname: 'EFAULT',
        reason: '[EFAULT] [ENOENT] None: Job with id 999 does not exist',
        extra: null,
      },
    });
  });

  it('core.job_wait on an unknown job: InstanceNotFound -32602 "[ENOENT] None: Job with id N does not exist" (MW/service/core_service.py:108-117)', async () => {
    const server = await server25();
    const client = await loggedInWs(server.rpcUrl, server.adminKey);
    await client.result('core.set_options', [{ legacy_jobs: false }]);
    expect((await client.call('core.job_wait', [999])).error).toMatchObject({
      code: -32602,
      message: 'Invalid params',
      data: {
        error: 22,
        errname: 'EINVAL',
        reason: '[ENOENT] None: Job with id 999 does not exist',
        extra: [[null, 'Job with id 999 does not exist', 2]],
      },
    });
  });

  it('core.job_wait on another user’s job: -32001 EPERM "Job is not owned by current session" (MW/job.py:350-367)', async () => {
    const server = await server25();
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    const theirs = await failedJob(admin);
    const limited = await readOnlyUser(server);
    await limited.result('core.set_options', [{ legacy_jobs: false }]);
    expect((await limited.call('core.job_wait', [theirs])).error).toMatchObject({
      code: -32001,
      data: { error: 1, errname: 'EPERM', reason: '[EPERM] Job is not owned by current session' },
    });
  });

  it('core.job_abort ends a running job ABORTED and answers null; its waiters get null (core_service.py:202-205, MW/job.py:467-478, 502-535)', async () => {
    const server = await server25();
    const client = await loggedInWs(server.rpcUrl, server.adminKey);
    const forever = await foreverJob(client);
    await waitForState(client, forever, 'RUNNING');
    const waiter = await loggedInWs(server.rpcUrl, server.adminKey);
    await waiter.result('core.set_options', [{ legacy_jobs: false }]);
    const waited = waiter.call('core.job_wait', [forever]);
    await waitForState(client, forever + 1, 'RUNNING');
    expect(await conforming(client, 'core.job_abort', [forever])).toBeNull();
    expect(await waited).toMatchObject({ result: null });
    const job = await waitForState(client, forever, 'ABORTED');
    expect(job).toMatchObject({ error: null, exc_info: null, time_finished: { $date: expect.any(Number) } });
    // A finished job is left as it is.
    expect(await conforming(client, 'core.job_abort', [forever])).toBeNull();
    expect((await waitForState(client, forever, 'ABORTED')).state).toBe('ABORTED');
  });

  it('core.job_abort errors: unknown id -32602 InstanceNotFound, another user’s job -32001 EPERM (MW/service/core_service.py:99-117, 202-205)', async () => {
    const server = await server25();
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    expect((await admin.call('core.job_abort', [999])).error).toMatchObject({
      code: -32602,
      data: {
        error: 22,
        errname: 'EINVAL',
        reason: '[ENOENT] None: Job with id 999 does not exist',
        extra: [[null, 'Job with id 999 does not exist', 2]],
      },
    });
    const theirs = await foreverJob(admin);
    const limited = await readOnlyUser(server);
    expect((await limited.call('core.job_abort', [theirs])).error).toMatchObject({
      code: -32001,
      data: { error: 1, errname: 'EPERM', reason: '[EPERM] Job is not owned by current session' },
    });
    expect((await waitForState(admin, theirs, 'RUNNING')).state).toBe('RUNNING');
  });

  it('core.subscribe: a full administrator may subscribe to any event name, e.g. pool.dataset.query (MW/main.py:926-941)', async () => {
    const server = await server25();
    const client = await loggedInWs(server.rpcUrl, server.adminKey);
    for (const name of ['pool.dataset.query', 'core.get_jobs', '*', 'no.such.event']) {
      expect(await conforming(client, 'core.subscribe', [name])).toMatch(UUID);
    }
  });

  it('core.subscribe: others get -32001 EACCES "[EACCES] Not authorized" for events their allowlist lacks; job events need a login only (MW/service/core_service.py:707-710, MW/main.py:926-939, MW/job.py:99-102)', async () => {
    const server = await server25();
    const limited = await readOnlyUser(server, ['FILESYSTEM_ATTRS_READ']);
    expect((await limited.call('core.subscribe', ['pool.dataset.query'])).error).toMatchObject({
      code: -32001,
      message: 'Method call error',
      data: { error: 13, errname: 'EACCES', reason: '[EACCES] Not authorized', extra: null },
    });
    expect(await conforming(limited, 'core.subscribe', ['core.get_jobs'])).toMatch(UUID);
  });

  it('sends a job change once per connection however many subscriptions match, ADDED while WAITING (MW/api/base/server/ws_handler/rpc.py:158-181, MW/job.py:151-153)', async () => {
    const server = await server25();
    const client = await loggedInWs(server.rpcUrl, server.adminKey);
    // What the official client does on top of a runbook's own subscription
    // (truenas_api_client/__init__.py:719-724).
    await client.result('core.subscribe', ['core.get_jobs']);
    await client.result('core.subscribe', ['core.get_jobs']);
    await client.result('core.subscribe', ['*']);
    const id = await failedJob(client);
    await client.waitFor(isJobEvent(id, 'changed'));
    const events = client.messages.filter(isJobEvent(id));
    expect(events.map((e) => [e.params.msg, e.params.fields.state])).toEqual([
      ['added', 'WAITING'],
      ['changed', 'RUNNING'],
      ['changed', 'FAILED'],
    ]);
    for (const e of events) {
      expect(Object.keys(e.params)).toEqual(['msg', 'collection', 'id', 'fields']);
      expect(contractViolations(coreGetJobsItem(), e.params.fields)).toEqual([]);
    }
  });

  it('core.unsubscribe answers null, for an unknown id too; the connection then hears nothing (MW/service/core_service.py:716-718, MW/api/base/server/ws_handler/rpc.py:149-153)', async () => {
    const server = await server25();
    const client = await loggedInWs(server.rpcUrl, server.adminKey);
    const sub = await client.result<string>('core.subscribe', ['core.get_jobs']);
    expect(await conforming(client, 'core.unsubscribe', [sub])).toBeNull();
    expect(await conforming(client, 'core.unsubscribe', ['not-a-subscription'])).toBeNull();
    const id = await failedJob(client);
    expect(client.messages.some(isJobEvent(id))).toBe(false);
  });

  it('core.get_methods: metadata per method the caller may call, per service and target (core_service.py:248-380)', async () => {
    const server = await server25();
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    const all = await conforming<Record<string, Record<string, unknown>>>(admin, 'core.get_methods');
    expect(all['privilege.create']).toMatchObject({
      job: false,
      no_auth_required: false,
      filterable: false,
      item_method: false,
      roles: ['PRIVILEGE_WRITE'],
    });
    expect(all['privilege.update']).toMatchObject({ item_method: true });
    expect(all['privilege.query']).toMatchObject({ filterable: true });
    expect(all['core.ping']).toMatchObject({ no_auth_required: true, roles: [] });
    expect(all['core.job_wait']).toMatchObject({ job: true });
    expect(all['filesystem.put']).toMatchObject({ job: true, uploadable: true, roles: ['FULL_ADMIN'] });
    expect((all['core.get_methods']!.accepts as { _name_: string }[]).map((a) => a._name_)).toEqual([
      'service',
      'target',
    ]);

    const core = await conforming<Record<string, unknown>>(admin, 'core.get_methods', ['core']);
    expect(Object.keys(core).every((n) => n.startsWith('core.'))).toBe(true);
    expect(Object.keys(core)).toContain('core.job_abort');
    // The core service is cli_private.
    expect(
      Object.keys(await conforming<Record<string, unknown>>(admin, 'core.get_methods', [null, 'CLI'])).some((n) =>
        n.startsWith('core.'),
      ),
    ).toBe(false);

    const limited = await readOnlyUser(server);
    const visible = await conforming<Record<string, unknown>>(limited, 'core.get_methods');
    expect(visible).toHaveProperty('privilege.query');
    expect(visible).not.toHaveProperty('privilege.create');

    expect((await admin.call('core.get_methods', [null, 'XML'])).error).toMatchObject({
      code: -32602,
      data: { extra: [['target', "Input should be 'WS', 'CLI' or 'REST'", 22]] },
    });
  });

  it("core.get_methods: each entry in 25.10.1's keys and order, schemas as get_json_schema post-processes pydantic's (core_service.py:364-380, jsonschema.py:10-62)", async () => {
    const { ws: admin } = await adminSession();
    type Schema = Record<string, any>;
    const all = await conforming<Record<string, Record<string, any>>>(admin, 'core.get_methods');
    // MW/service/core_service.py:364-380, in that order.
    const KEYS = [
      'description',
      'cli_description',
      'examples',
      'item_method',
      'no_auth_required',
      'filterable',
      'filterable_schema',
      'pass_application',
      'require_websocket',
      'job',
      'downloadable',
      'uploadable',
      'check_pipes',
      'roles',
      'accepts',
      'returns',
    ];
    for (const entry of Object.values(all)) expect(Object.keys(entry)).toEqual(KEYS);

    // A datetime is pydantic's string schema, never the EJSON object it travels as: an object with a
    // `$date` key is what the official client's decoder turns into a datetime, and fails on
    // (truenas_api_client/ejson.py:64-93; MW/api/base/jsonschema.py:10-15).
    const text = JSON.stringify(all);
    for (const marker of ['"$date"', '"$time"', '"$set"', '"$type"', '"$ipv4_interface"', '"$ipv6_interface"'])
      expect(text).not.toContain(marker);
    // auth.me's `privilege` travels with roles as `{"$set": [...]}`; the model types it `dict`
    // (MW/api/v25_10_1/auth.py:164), and so does its schema.
    const [me] = all['auth.me']!.returns as Schema[];
    expect(me!.properties.privilege).toEqual({
      type: 'object',
      additionalProperties: true,
      title: 'privilege',
      _name_: 'privilege',
      _required_: true,
    });
    const dateTime = { type: 'string', format: 'date-time' };
    const expiresAt = (all['api_key.create']!.accepts as Schema[])[0]!.properties.expires_at;
    expect(expiresAt).toEqual({
      default: null,
      anyOf: [dateTime, { type: 'null' }],
      title: 'expires_at',
      _name_: 'expires_at',
      _required_: false,
    });
    // query_result: a list of items, its `items` wrapped in a list (MW/api/base/jsonschema.py:55-56).
    const jobs = (all['core.get_jobs']!.returns as Schema[])[0]!;
    expect(jobs).toMatchObject({ title: 'result', _name_: 'result', _required_: true });
    const jobItem = jobs.anyOf[0].items;
    expect(Array.isArray(jobItem)).toBe(true);
    expect(jobItem[0].properties.time_started.anyOf[0]).toEqual(dateTime);
    expect(jobItem[0]._attrs_order_).toEqual(JOB_FIELDS);

    // add_attrs all the way down (MW/api/base/jsonschema.py:37-58): `_attrs_order_`, and per
    // property `title`, `_name_`, `_required_` from the model's `required`.
    const [create] = all['privilege.create']!.accepts as Schema[];
    expect(create).toMatchObject({
      type: 'object',
      title: 'privilege_create',
      _name_: 'privilege_create',
      _required_: true,
    });
    expect(create!._attrs_order_).toEqual(['name', 'web_shell', 'local_groups', 'ds_groups', 'roles']);
    expect(create!.properties.name).toMatchObject({ title: 'name', _name_: 'name', _required_: true });
    expect(create!.properties.roles).toMatchObject({
      type: 'array',
      items: [{ type: 'string' }],
      title: 'roles',
      _name_: 'roles',
      _required_: false,
      default: [],
    });
    // An argument with a default says it, as pydantic's field does.
    expect(all['core.get_methods']!.accepts).toEqual([
      {
        anyOf: [{ type: 'string', maxLength: 1024 }, { type: 'null' }],
        default: null,
        title: 'service',
        _name_: 'service',
        _required_: false,
      },
      {
        type: 'string',
        enum: ['WS', 'CLI', 'REST'],
        default: 'WS',
        title: 'target',
        _name_: 'target',
        _required_: false,
      },
    ]);

    // `pass_application` and `require_websocket` (MW/service/core_service.py:372-373).
    const app = (name: string) => [all[name]!.pass_application, all[name]!.require_websocket];
    expect(app('core.get_methods')).toEqual([true, true]); // pass_app=True (MW/service/core_service.py:247)
    expect(app('core.get_jobs')).toEqual([true, false]); // pass_app_rest=True (MW/service/core_service.py:118)
    expect(app('auth.generate_token')).toEqual([true, false]); // pass_app(rest=True) (MW/plugins/auth.py:385)
    expect(app('auth.me')).toEqual([true, true]); // pass_app(require=True) (MW/plugins/auth.py:1224)
    // CRUD create/update/delete are described by do_create/do_update/do_delete (MW/service/core_service.py:268-279).
    expect(app('user.update')).toEqual([true, true]); // pass_app() (MW/plugins/account.py:765)
    expect(app('user.delete')).toEqual([true, false]); // pass_app(rest=True) (MW/plugins/account.py:1018)
    expect(app('api_key.create')).toEqual([true, false]); // pass_app(rest=True) (MW/plugins/api_key.py:168)
    expect(app('privilege.create')).toEqual([false, false]); // no pass_app (MW/plugins/account_/privilege.py:67)
    expect(app('core.ping')).toEqual([false, false]); // (MW/service/core_service.py:395)

    // job, downloadable, uploadable, check_pipes (MW/service/core_service.py:374-377): a job with no
    // pipes leaves its empty `pipes` list as check_pipes; a job with a pipe says check_pipes=True.
    const pipes = (name: string) => [
      all[name]!.job,
      all[name]!.downloadable,
      all[name]!.uploadable,
      all[name]!.check_pipes,
    ];
    expect(pipes('filesystem.get')).toEqual([true, true, false, true]); // @job(pipes=["output"]) (MW/plugins/filesystem.py:538)
    expect(pipes('filesystem.put')).toEqual([true, false, true, true]); // @job(pipes=["input"]) (MW/plugins/filesystem.py:551)
    expect(pipes('filesystem.chown')).toEqual([true, false, false, []]); // @job(lock='perm_change') (MW/plugins/filesystem_/acl.py:159)
    expect(pipes('core.job_wait')).toEqual([true, false, false, []]); // @job() (MW/service/core_service.py:166)
    expect(pipes('privilege.create')).toEqual([false, false, false, false]);
  });
});
