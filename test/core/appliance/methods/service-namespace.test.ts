/**
 * The service.* namespace of `stor serve --emulate truenas-25.10.1` and `truenas-26.0`, driven with
 * raw JSON-RPC frames: the records a fresh install lists, what each method answers and refuses in
 * 25.10.1's words (MW/plugins/service.py, MW/api/v25_10_1/service.py), who may change which service
 * (MW/plugins/service_/utils.py), the `service.query` events, and what 26.0 changed.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { createUserWithKey } from '../../../helpers/appliance.js';
import { loggedInWs, startTestServer, type Message, type WsClient } from '../../../helpers/server.js';
import { adminSession, conforming, errorOf, validation } from '../../../conformance/harness.js';

const server26 = () => startTestServer(EMULATIONS['truenas-26.0']);

/** A fresh 25.10.1's rows (MW/alembic/initial.sql:49-63 less the later deletes, then nvmet: store/services.ts). */
const FRESH_25 = [
  [4, 'cifs'],
  [6, 'ftp'],
  [7, 'iscsitarget'],
  [9, 'nfs'],
  [10, 'snmp'],
  [11, 'ssh'],
  [14, 'ups'],
  [27, 'nvmet'],
] as const;

const entry = (id: number, service: string, state = 'STOPPED', enable = false) => ({
  id,
  service,
  enable,
  state,
  pids: [],
});

/** Calls that wait for a job's result instead of answering its id (MW/api/base/server/method.py:59-63). */
async function waitingJobs(ws: WsClient): Promise<WsClient> {
  await ws.result('core.set_options', [{ legacy_jobs: false }]);
  return ws;
}

const serviceEvent = (m: Message) => m.method === 'collection_update' && m.params?.collection === 'service.query';

/** A CallError as errorOf shows it (MW/api/base/server/ws_handler/rpc.py:373-376). */
const callError = (errno: number, errname: string, text: string) => ({
  code: -32001,
  message: 'Method call error',
  data: { error: errno, errname, reason: `[${errname}] ${text}`, extra: null },
  traceClass: 'CallError',
});

/** An uncaught exception: errno 22, its text the reason (rpc.py:378-391). */
const exceptionError = (cls: string, text: string) => ({
  code: -32001,
  message: 'Method call error',
  data: { error: 22, errname: 'EINVAL', reason: text, extra: null },
  traceClass: cls,
});

describe('service.query and service.get_instance (MW/plugins/service.py:44-112)', () => {
  it('a fresh 25.10.1 lists its eight records by id, stopped and not started at boot, no pids', async () => {
    const { ws } = await adminSession();
    expect(await conforming(ws, 'service.query')).toEqual(FRESH_25.map(([id, name]) => entry(id, name)));
    expect(await conforming(ws, 'service.query', [[['service', '=', 'nfs']], { get: true }])).toEqual(entry(9, 'nfs'));
    // A filter on state reads every record first (:108-110); the answer is the same filter's.
    expect(await conforming(ws, 'service.query', [[['state', '=', 'RUNNING']]])).toEqual([]);
    expect(await conforming(ws, 'service.query', [[], { count: true }])).toBe(8);
  });

  it('extra.include_state false leaves the state out: UNKNOWN, no pids (:45-47, :90-91)', async () => {
    const { ws } = await adminSession();
    const [first] = await conforming<unknown[]>(ws, 'service.query', [[], { extra: { include_state: false } }]);
    expect(first).toEqual(entry(4, 'cifs', 'UNKNOWN'));
  });

  it('get_instance: one record by id; an unknown id is InstanceNotFound with an empty verbose name (MW/service/base.py:36)', async () => {
    const { ws } = await adminSession();
    expect(await conforming(ws, 'service.get_instance', [11])).toEqual(entry(11, 'ssh'));
    expect(errorOf(await ws.call('service.get_instance', [99]))).toEqual({
      code: -32602,
      message: 'Invalid params',
      data: {
        error: 22,
        errname: 'EINVAL',
        reason: '[ENOENT] None:  99 does not exist',
        extra: [[null, ' 99 does not exist', 2]],
      },
      traceClass: 'InstanceNotFound',
    });
  });

  it('26.0 also lists webshare, 28 (stable/26 MW/alembic/versions/26.0/2025-11-19_14-42_webshare.py:35)', async () => {
    const server = await server26();
    const ws = await loggedInWs(server.rpcUrl, server.adminKey);
    const names = (await ws.result<{ service: string; id: number }[]>('service.query')).map((s) => [s.id, s.service]);
    expect(names).toEqual([...FRESH_25, [28, 'webshare']]);
  });
});

describe('service.control, start, stop, restart, reload (MW/plugins/service.py:147-413)', () => {
  it('control is a job; START runs the service, STOP stops it; each answers true and the record keeps it', async () => {
    const { ws } = await adminSession();
    const id = await ws.result<number>('service.control', ['START', 'nfs']);
    expect(typeof id).toBe('number');
    const [job] = await ws.result<{ state: string; result: unknown; method: string }[]>('core.get_jobs', [
      [['id', '=', id]],
    ]);
    expect(job).toMatchObject({ method: 'service.control', state: 'SUCCESS', result: true });
    expect(await conforming(ws, 'service.started', ['nfs'])).toBe(true);
    expect(await conforming(ws, 'service.query', [[['service', '=', 'nfs']], { get: true }])).toEqual(
      entry(9, 'nfs', 'RUNNING'),
    );
    const waiting = await waitingJobs(ws);
    expect(await waiting.result('service.control', ['STOP', 'nfs'])).toBe(true);
    expect(await conforming(ws, 'service.started', ['nfs'])).toBe(false);
  });

  it('start, stop and restart are plain calls on 25.10.1 (no @job), answering true; starting a running service is still true', async () => {
    const { ws } = await adminSession();
    expect(await conforming(ws, 'service.start', ['cifs'])).toBe(true);
    expect(await conforming(ws, 'service.start', ['cifs'])).toBe(true);
    expect(await conforming(ws, 'service.restart', ['cifs'])).toBe(true);
    expect(await conforming(ws, 'service.started', ['cifs'])).toBe(true);
    expect(await conforming(ws, 'service.stop', ['cifs'])).toBe(true);
    expect(await conforming(ws, 'service.started', ['cifs'])).toBe(false);
  });

  it('reload: a running service stays running (true); a stopped one that can reload stays stopped (false, :401-406), one that cannot is restarted (:407-408)', async () => {
    const { ws } = await adminSession();
    expect(await conforming(ws, 'service.reload', ['nfs'])).toBe(false);
    expect(await conforming(ws, 'service.started', ['nfs'])).toBe(false);
    expect(await conforming(ws, 'service.reload', ['ups'])).toBe(true);
    expect(await conforming(ws, 'service.started', ['ups'])).toBe(true);
    await ws.result('service.start', ['nfs']);
    expect(await conforming(ws, 'service.reload', ['nfs'])).toBe(true);
  });

  it("an unknown name is service.object's MatchNotFound(name) (:424-429); the job fails with it", async () => {
    const { ws } = await adminSession();
    expect(errorOf(await ws.call('service.start', ['nosuch']))).toEqual(exceptionError('MatchNotFound', 'nosuch'));
    expect(errorOf(await ws.call('service.started', ['nosuch']))).toEqual(exceptionError('MatchNotFound', 'nosuch'));
    // 26.0's webshare is no service of 25.10.1's.
    expect(errorOf(await ws.call('service.stop', ['webshare']))).toEqual(exceptionError('MatchNotFound', 'webshare'));
    const waiting = await waitingJobs(ws);
    expect((await waiting.call('service.control', ['START', 'nosuch'])).error?.data).toMatchObject({
      reason: 'nosuch',
    });
  });

  it('params as the models take them: verb one of four, options strict (MW/api/v25_10_1/service.py:29-48)', async () => {
    const { ws } = await adminSession();
    expect(errorOf(await ws.call('service.control', ['BOUNCE', 'nfs']))).toEqual(
      validation(['verb', "Input should be 'START', 'STOP', 'RESTART' or 'RELOAD'"]),
    );
    expect(errorOf(await ws.call('service.start', ['nfs', { quiet: true }]))).toEqual(
      validation(['options.quiet', 'Extra inputs are not permitted']),
    );
    expect(errorOf(await ws.call('service.started', [4]))).toEqual(
      validation(['service', 'Input should be a valid string']),
    );
    // The options the models default are taken as given.
    expect(await conforming(ws, 'service.start', ['nfs', { silent: false, timeout: null, ha_propagate: false }])).toBe(
      true,
    );
  });

  it('started_or_enabled: running or started at boot; an unknown name is MatchNotFound() of query get (:243-249)', async () => {
    const { ws } = await adminSession();
    expect(await conforming(ws, 'service.started_or_enabled', ['ssh'])).toBe(false);
    await ws.result('service.update', ['ssh', { enable: true }]);
    expect(await conforming(ws, 'service.started_or_enabled', ['ssh'])).toBe(true);
    expect(errorOf(await ws.call('service.started_or_enabled', ['nosuch']))).toEqual(
      exceptionError('MatchNotFound', 'MatchNotFound()'),
    );
  });
});

describe('service.update (MW/plugins/service.py:114-145)', () => {
  it('by name, by id or by a digit string; answers the id; the record keeps enable, the state is untouched', async () => {
    const { ws } = await adminSession();
    expect(await conforming(ws, 'service.update', ['nfs', { enable: true }])).toBe(9);
    expect(await conforming(ws, 'service.update', [4, { enable: true }])).toBe(4);
    expect(await conforming(ws, 'service.update', ['11', { enable: true }])).toBe(11);
    const enabled = await ws.result<{ service: string; enable: boolean; state: string }[]>('service.query', [
      [['enable', '=', true]],
    ]);
    expect(enabled.map((s) => [s.service, s.state])).toEqual([
      ['cifs', 'STOPPED'],
      ['nfs', 'STOPPED'],
      ['ssh', 'STOPPED'],
    ]);
  });

  it("an unknown id or name: CallError ENOENT `Service … not found.` (:133-134); the model's errors for the rest", async () => {
    const { ws } = await adminSession();
    expect(errorOf(await ws.call('service.update', ['nosuch', { enable: true }]))).toEqual(
      callError(2, 'ENOENT', 'Service nosuch not found.'),
    );
    expect(errorOf(await ws.call('service.update', [99, { enable: true }]))).toEqual(
      callError(2, 'ENOENT', 'Service 99 not found.'),
    );
    expect(errorOf(await ws.call('service.update', ['nfs', { enable: 'yes' }]))).toEqual(
      validation(['service_update.enable', 'Input should be a valid boolean']),
    );
    expect(errorOf(await ws.call('service.update', ['nfs', {}]))).toEqual(
      validation(['service_update.enable', 'Field required']),
    );
  });
});

describe('who may change which service (MW/plugins/service_/utils.py:13-38)', () => {
  it("SHARING_NFS_WRITE changes nfs only; another service is the method's own refusal, stop's without errno (:268)", async () => {
    const { ws, server } = await adminSession();
    const { key } = await createUserWithKey(server.testAppliance, 'nfsop', {
      privilegeRoles: ['SHARING_NFS_WRITE', 'SERVICE_READ'],
    });
    const nfsop = await loggedInWs(server.rpcUrl, key);
    expect(await conforming(nfsop, 'service.start', ['nfs'])).toBe(true);
    expect(await conforming(nfsop, 'service.update', ['nfs', { enable: true }])).toBe(9);
    expect(errorOf(await nfsop.call('service.start', ['cifs']))).toEqual(
      callError(1, 'EPERM', 'cifs: authenticated session lacks privilege to start service'),
    );
    expect(errorOf(await nfsop.call('service.stop', ['cifs']))).toEqual(
      callError(14, 'EFAULT', 'cifs: authenticated session lacks privilege to stop service'),
    );
    // reload says "restart" (:387-388).
    expect(errorOf(await nfsop.call('service.reload', ['ssh']))).toEqual(
      callError(1, 'EPERM', 'ssh: authenticated session lacks privilege to restart service'),
    );
    expect(errorOf(await nfsop.call('service.update', ['cifs', { enable: true }]))).toEqual(
      callError(1, 'EPERM', 'cifs: authenticated session lacks privilege to update service'),
    );
    // The object is looked up before the check (:175-178): an unknown name is MatchNotFound still.
    expect(errorOf(await nfsop.call('service.start', ['nosuch']))).toEqual(exceptionError('MatchNotFound', 'nosuch'));
    // Nothing changed for cifs.
    expect(await ws.result('service.query', [[['service', '=', 'cifs']], { get: true }])).toEqual(entry(4, 'cifs'));
  });

  it('SERVICE_WRITE changes any; SERVICE_READ reads but is refused at the dispatcher (EACCES); NVMe target write is no role of start (:164)', async () => {
    const { server } = await adminSession();
    const { key: writer } = await createUserWithKey(server.testAppliance, 'svcw', {
      privilegeRoles: ['SERVICE_WRITE'],
    });
    expect(await conforming(await loggedInWs(server.rpcUrl, writer), 'service.start', ['ssh'])).toBe(true);
    const { key: reader } = await createUserWithKey(server.testAppliance, 'svcr', { privilegeRoles: ['SERVICE_READ'] });
    const ro = await loggedInWs(server.rpcUrl, reader);
    expect(await conforming(ro, 'service.started', ['ssh'])).toBe(true);
    expect(errorOf(await ro.call('service.start', ['ssh'])).data).toMatchObject({ errname: 'EACCES' });
    const { key: nvme } = await createUserWithKey(server.testAppliance, 'nvme', {
      privilegeRoles: ['SHARING_NVME_TARGET_WRITE'],
    });
    const nv = await loggedInWs(server.rpcUrl, nvme);
    expect(errorOf(await nv.call('service.start', ['nvmet'])).data).toMatchObject({ errname: 'EACCES' });
    expect(await nv.result('service.update', ['nvmet', { enable: true }])).toBe(27);
  });
});

describe('service.query events (notify_running, MW/plugins/service.py:436-443)', () => {
  it('a start and a stop each send CHANGED with the entry and no id; an update sends nothing on 25.10.1 (it answers the id: MW/service/crud_service.py:206)', async () => {
    const { ws, server } = await adminSession();
    const watcher = await loggedInWs(server.rpcUrl, server.adminKey);
    await watcher.result('core.subscribe', ['service.query']);
    await ws.result('service.update', ['nfs', { enable: true }]);
    await (await waitingJobs(ws)).result('service.control', ['START', 'nfs']);
    const started = await watcher.waitFor(serviceEvent, 'CHANGED after START');
    expect(started.params).toEqual({
      msg: 'changed',
      collection: 'service.query',
      fields: entry(9, 'nfs', 'RUNNING', true),
    });
    await ws.result('service.stop', ['nfs']);
    const stopped = await watcher.waitFor(serviceEvent, 'CHANGED after stop');
    expect(stopped.params.fields).toEqual(entry(9, 'nfs', 'STOPPED', true));
    // The update came before the start, so the first event was the start's.
    expect(watcher.messages.filter(serviceEvent)).toHaveLength(2);
  });
});

describe('26.0 (stable/26 MW/plugins/service.py, MW/api/v26_0_0/service.py)', () => {
  it('start, stop, restart and reload are private: the method does not exist; control does all four', async () => {
    const server = await server26();
    const ws = await waitingJobs(await loggedInWs(server.rpcUrl, server.adminKey));
    for (const m of ['service.start', 'service.stop', 'service.restart', 'service.reload'])
      expect((await ws.call(m, ['nfs'])).error).toMatchObject({ code: -32601 });
    expect(await ws.result('service.control', ['START', 'webshare'])).toBe(true);
    expect(await ws.result('service.control', ['RELOAD', 'webshare'])).toBe(true);
    const methods = await ws.result<Record<string, unknown>>('core.get_methods');
    expect(Object.keys(methods).filter((m) => m.startsWith('service.'))).toEqual([
      'service.query',
      'service.get_instance',
      'service.update',
      'service.control',
      'service.started',
      'service.started_or_enabled',
    ]);
  });

  it('control checks the privilege first, in its own words (stable/26 :157-159); update sends CHANGED (:144)', async () => {
    const server = await server26();
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    await admin.result('core.subscribe', ['service.query']);
    const { key } = await createUserWithKey(server.testAppliance, 'nfsop', { privilegeRoles: ['SHARING_NFS_WRITE'] });
    const nfsop = await waitingJobs(await loggedInWs(server.rpcUrl, key));
    const refused = (await nfsop.call('service.control', ['STOP', 'cifs'])).error?.data;
    expect(refused).toMatchObject({
      errname: 'EPERM',
      reason: '[EPERM] cifs: authenticated session lacks privilege to stop service',
    });
    // Before the object is looked up: an unknown name is refused as a privilege too.
    expect((await nfsop.call('service.control', ['RELOAD', 'nosuch'])).error?.data).toMatchObject({
      reason: '[EPERM] nosuch: authenticated session lacks privilege to reload service',
    });
    await admin.result('service.update', ['ssh', { enable: true }]);
    const changed = await admin.waitFor(serviceEvent, 'CHANGED after update');
    expect(changed.params).toEqual({
      msg: 'changed',
      collection: 'service.query',
      fields: entry(11, 'ssh', 'STOPPED', true),
    });
  });
});
