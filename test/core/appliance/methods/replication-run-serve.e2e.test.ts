/**
 * replication.run through a real `stor serve` on port 0, over raw JSON-RPC 2.0 on its WebSocket:
 * the job copies the snapshot task's snapshot to the target, its progress heard as `core.get_jobs`
 * events, and the task's state as `replication.query` CHANGED (MW/plugins/zettarepl.py:466-500,
 * 951-1041; MW/plugins/replication.py:681-684).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { connectJsonRpc } from '../../../helpers/json-rpc-client.js';
import { spawnServe } from '../../../helpers/serve-process.js';
import { tempDir } from '../../../helpers/temp-dir.js';
import { localPush } from '../../../helpers/replication-spec.js';

type Entry = Record<string, unknown>;

describe('replication.run through stor serve', () => {
  it('a LOCAL push job copies the snapshot, reports its progress and leaves the task FINISHED', async () => {
    const server = await spawnServe(tempDir());
    const rpc = await connectJsonRpc(server.rpcUrl);
    try {
      expect(await rpc.call('auth.login_with_api_key', readFileSync(server.adminKeyFile, 'utf8').trim())).toBe(true);
      await rpc.call('core.set_options', { legacy_jobs: false });
      await rpc.call('pool.dataset.create', { name: 'tank/src' });
      const task = await rpc.call<Entry>('pool.snapshottask.create', { dataset: 'tank/src' });
      await rpc.call('pool.snapshottask.run', task.id);
      const [snapshot] = await rpc.call<Entry[]>('pool.snapshot.query', [['dataset', '=', 'tank/src']]);
      const name = snapshot!.snapshot_name as string;
      const repl = await rpc.call<Entry>('replication.create', localPush({ periodic_snapshot_tasks: [task.id] }));
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
