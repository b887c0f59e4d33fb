/**
 * replication.run through a real `stor serve` on port 0, over raw JSON-RPC 2.0 on its WebSocket:
 * the job copies the snapshot task's snapshot to the target, its progress heard as `core.get_jobs`
 * events, and the task's state as `replication.query` CHANGED (MW/plugins/zettarepl.py:466-500,
 * 951-1041; MW/plugins/replication.py:681-684).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { spawnServe } from '../../../helpers/serve-process.js';
import { tempDir } from '../../../helpers/temp-dir.js';

type Entry = Record<string, unknown>;

/** A raw JSON-RPC connection: calls answered by id, notifications collected. */
async function connect(url: string) {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  const notes: Entry[] = [];
  ws.on('message', (raw: Buffer) => {
    const msg = JSON.parse(raw.toString()) as Entry;
    if (msg.id === undefined) notes.push(msg.params as Entry);
    const waiter = pending.get(msg.id as number);
    if (!waiter) return;
    pending.delete(msg.id as number);
    if (msg.error) waiter.reject(msg.error);
    else waiter.resolve(msg.result);
  });
  let next = 1;
  const call = <T = unknown>(method: string, ...params: unknown[]) =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  return { call, notes, close: () => ws.close() };
}

describe('replication.run through stor serve', () => {
  it('a LOCAL push job copies the snapshot, reports its progress and leaves the task FINISHED', async () => {
    const server = await spawnServe(tempDir());
    const rpc = await connect(server.rpcUrl);
    try {
      expect(await rpc.call('auth.login_with_api_key', readFileSync(server.adminKeyFile, 'utf8').trim())).toBe(true);
      await rpc.call('core.set_options', { legacy_jobs: false });
      await rpc.call('pool.dataset.create', { name: 'tank/src' });
      const task = await rpc.call<Entry>('pool.snapshottask.create', { dataset: 'tank/src' });
      await rpc.call('pool.snapshottask.run', task.id);
      const [snapshot] = await rpc.call<Entry[]>('pool.snapshot.query', [['dataset', '=', 'tank/src']]);
      const name = snapshot!.snapshot_name as string;
      const repl = await rpc.call<Entry>('replication.create', {
        name: 'push',
        direction: 'PUSH',
        transport: 'LOCAL',
        source_datasets: ['tank/src'],
        target_dataset: 'tank/dst',
        recursive: false,
        auto: false,
        retention_policy: 'NONE',
        periodic_snapshot_tasks: [task.id],
      });
      await rpc.call('core.subscribe', 'core.get_jobs');
      await rpc.call('core.subscribe', 'replication.query');
      expect(await rpc.call('replication.run', repl.id, true)).toBeNull();
      const copied = await rpc.call<Entry[]>('pool.snapshot.query', [['dataset', '=', 'tank/dst']]);
      expect(copied.map((s) => s.name)).toEqual([`tank/dst@${name}`]);
      const progress = rpc.notes
        .filter((n) => n.collection === 'core.get_jobs')
        .map((n) => ((n.fields as Entry).progress as Entry).description);
      expect(progress).toContain(`Sending 1 of 1: tank/src@${name}`);
      const states = rpc.notes
        .filter((n) => n.collection === 'replication.query')
        .map((n) => ((n.fields as Entry).state as Entry).state);
      expect(states.at(-1)).toBe('FINISHED');
      const entry = await rpc.call<Entry>('replication.get_instance', repl.id);
      expect(entry.state).toMatchObject({ state: 'FINISHED', last_snapshot: `tank/src@${name}` });
    } finally {
      rpc.close();
      await server.stop();
    }
  });
});
