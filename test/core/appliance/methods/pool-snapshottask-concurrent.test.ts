/**
 * pool.snapshottask.* through a real `stor serve` (port 0), two WebSocket connections at once, and
 * bad JSON-RPC input. The middleware's `run` only queues the task for zettarepl
 * (MW/plugins/zettarepl.py:390-394): two runs at once answer null each, and the minute's snapshot
 * exists once (the later run's `zfs snapshot` finds it there, zettarepl/snapshot/create.py:50-80).
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { loggedInWs, startTestServer, type TestServer } from '../../../helpers/server.js';

type Entry = Record<string, unknown>;
const AT = Date.UTC(2024, 0, 5, 11, 7, 30);

async function serverWithTask(): Promise<TestServer> {
  const server = await startTestServer({ ...EMULATIONS['truenas-25.10.1'], keyLogin: 'plain' });
  const t = server.testAppliance;
  await t.call(t.admin, 'pool.dataset.create', { name: 'tank/data' });
  server.appliance.now = () => AT;
  await t.call(t.admin, 'pool.snapshottask.create', { dataset: 'tank/data' });
  return server;
}

describe('pool.snapshottask over two connections at once', () => {
  it('two runs of the same task answer null each and take the minute’s snapshot once', async () => {
    const server = await serverWithTask();
    const [a, b] = await Promise.all([
      loggedInWs(server.rpcUrl, server.adminKey),
      loggedInWs(server.rpcUrl, server.adminKey),
    ]);
    const replies = await Promise.all([a.call('pool.snapshottask.run', [1]), b.call('pool.snapshottask.run', [1])]);
    expect(replies.map((r) => [r.result, r.error])).toEqual([
      [null, undefined],
      [null, undefined],
    ]);
    const t = server.testAppliance;
    const ids = (await t.call<Entry[]>(t.admin, 'pool.snapshot.query', [], { select: ['id'] })).map((s) => s.id);
    expect(ids).toEqual(['tank/data@auto-2024-01-05_03-07']);
    const [task] = await t.call<Entry[]>(t.admin, 'pool.snapshottask.query');
    expect(['FINISHED', 'ERROR']).toContain((task!.state as Entry).state);
  });

  it('a run and a delete of the task at once both answer; the task is gone and the server answers on', async () => {
    const server = await serverWithTask();
    const [a, b] = await Promise.all([
      loggedInWs(server.rpcUrl, server.adminKey),
      loggedInWs(server.rpcUrl, server.adminKey),
    ]);
    const [run, del] = await Promise.all([
      a.call('pool.snapshottask.run', [1]),
      b.call('pool.snapshottask.delete', [1]),
    ]);
    expect(del.result).toBe(true);
    // Either the run found the task (null) or the delete came first (not found).
    if (run.error) expect(run.error.data?.reason).toBe('[ENOENT] None: PeriodicSnapshotTask 1 does not exist');
    else expect(run.result).toBeNull();
    expect((await a.call('pool.snapshottask.query', [])).result).toEqual([]);
  });
});

describe('pool.snapshottask given bad JSON-RPC input', () => {
  it('wrong types, extra keys, huge strings and nested junk get the validation error, and the server answers on', async () => {
    const server = await serverWithTask();
    const ws = await loggedInWs(server.rpcUrl, server.adminKey);
    // Raw frames: a 5000-deep array is built as text, as a client would send it; every frame is under
    // the 64 KiB an authenticated message may have (MW/utils/limits.py:19).
    const nested = '['.repeat(5000) + '"x"' + ']'.repeat(5000);
    const bad: [string, string][] = [
      ['pool.snapshottask.run', '["1"]'],
      ['pool.snapshottask.run', '[{"id": 1}]'],
      ['pool.snapshottask.run', `[${nested}]`],
      ['pool.snapshottask.create', `[{"dataset": "tank/data", "schedule": {"minute": ${nested}}}]`],
      ['pool.snapshottask.create', `[{"dataset": "${'x'.repeat(50_000)}"}]`],
      ['pool.snapshottask.create', '[{"dataset": "tank/data", "exclude": {"a": 1}}]'],
      ['pool.snapshottask.update', '[1, {"id": 2}]'],
      ['pool.snapshottask.update', '[1, {"state": "FINISHED"}]'],
      ['pool.snapshottask.delete', '[1, {"fixate_removal_date": "yes"}]'],
      ['pool.snapshottask.update_will_change_retention_for', '[1, {"fixate_removal_date": true}]'],
    ];
    for (const [i, [method, params]] of bad.entries()) {
      ws.send(`{"jsonrpc": "2.0", "id": "bad-${i}", "method": "${method}", "params": ${params}}`);
      const reply = await ws.waitFor((m) => m.id === `bad-${i}`);
      expect([method, reply.error?.code]).toEqual([method, -32602]);
    }
    expect((await ws.call('core.ping', [])).result).toBe('pong');
    const t = server.testAppliance;
    expect(await t.call<Entry[]>(t.admin, 'pool.snapshottask.query', [], { select: ['id'] })).toEqual([{ id: 1 }]);
  });
});
