import { parseSnapshotName } from '../../contract/snapshot-naming-schema.js';
import { RpcError } from '../../errors.js';
import { listHolds } from '../../store/snapshot-holds.js';
import { deleteSnapshots, listSnapshots, type SnapshotRecord } from '../../store/snapshots.js';
import { setSnapshotTaskState, type SnapshotTaskRecord, type SnapshotTaskState } from '../../store/snapshot-tasks.js';
import type { Appliance } from '../appliance.js';
import { snapshotCopyDir } from '../datasets/snapshot-copies.js';
import { removeTree } from '../files/tree-walk.js';
import { snapshotsDir } from '../jobs/stray-snapshot-copies.js';
import { serializedByPool, takeSnapshots } from '../snapshots/take.js';
import { isEmptySnapshot } from '../snapshots/written.js';
import { isChild, shouldExclude } from './dataset-tree.js';
import { taskState } from './tasks.js';
import { collectionUpdate } from '../events.js';
import { applianceSnapshotName } from './appliance-clock.js';

// One run of a periodic snapshot task, as zettarepl makes it when the middleware asks
// (`zettarepl.run_periodic_snapshot_task` queues `run_task`, MW/plugins/zettarepl.py:390-394, and
// zettarepl runs `_run_periodic_snapshot_tasks`, zettarepl/zettarepl.py:123-192 at release/25.10.1):
// the name from the naming schema at the appliance's time in its zone, the snapshot taken (recursive, exclude),
// the task's state RUNNING then FINISHED or ERROR (MW/plugins/zettarepl.py:917-940), and, when the
// task does not allow empty snapshots, the ones nothing was written to since the last destroyed
// again (zettarepl/snapshot/empty.py:17-48). Deviation: the middleware answers `run` before zettarepl
// has taken the snapshot; the emulator answers after.

/** `make_sentence` (MW/utils/__init__.py): a period at the end, if there is none. */
const sentence = (s: string) => (/[.!?]$/.test(s) ? s : `${s}.`);

/** The snapshots `get_empty_snapshots_for_deletion` picks among `made`, for a task without allow_empty. */
async function emptySnapshots(appliance: Appliance, made: readonly SnapshotRecord[]): Promise<SnapshotRecord[]> {
  const all = appliance.store.read(() => listSnapshots(appliance.store.db));
  const empty = new Map<string, boolean>();
  for (const s of made) empty.set(s.dataset, await isEmptySnapshot(appliance, s, all));
  // A dataset's snapshot goes when it and every snapshot below it of this run are empty (empty.py:28-32).
  return made.filter((s) => [...empty].every(([dataset, isEmpty]) => !isChild(dataset, s.dataset) || isEmpty));
}

/**
 * Destroys snapshots of one pool: their rows, then their copies. One held meanwhile stays, as ZFS
 * refuses it and zettarepl's destroy goes on with the rest (zettarepl/snapshot/destroy.py:53-61).
 */
export async function destroySnapshots(
  appliance: Appliance,
  doomed: readonly SnapshotRecord[],
  pool: string,
): Promise<void> {
  const { store } = appliance;
  await serializedByPool(appliance, pool, async () => {
    const gone = store.write(() => {
      const holds = listHolds(store.db);
      const free = doomed.filter((s) => !holds.has(s.id));
      deleteSnapshots(
        store.db,
        free.map((s) => s.id),
      );
      return free;
    });
    for (const s of gone) await removeTree(snapshotCopyDir(appliance, s.copy), snapshotsDir(store.stateDir));
  });
}

/** The name of the snapshot a run of the task at `at` takes. */
export const taskSnapshotName = (task: SnapshotTaskRecord, at: number) => applianceSnapshotName(task.naming_schema, at);

/**
 * Runs the task once, named at `at` (now, unless a scheduler tick says when); its outcome is in
 * its state, as zettarepl reports it. A snapshot in `taken` (made by another task of the same tick)
 * is not taken again: the task succeeds with it (zettarepl/zettarepl.py:165-170).
 */
export async function runSnapshotTask(
  appliance: Appliance,
  task: SnapshotTaskRecord,
  at = appliance.now(),
  taken: Set<string> = new Set(),
): Promise<void> {
  const { store } = appliance;
  // Each change of state is stored and heard as `pool.snapshottask.query` CHANGED with the state
  // alone (`on_zettarepl_state_changed`, MW/plugins/snapshot.py:385-388).
  const setState = (state: Omit<SnapshotTaskState, 'datetime'>) => {
    const full = { ...state, datetime: appliance.now() };
    store.write(() => setSnapshotTaskState(store.db, task.id, full));
    appliance.events.send(
      collectionUpdate('pool.snapshottask.query', 'CHANGED', { id: task.id, fields: { state: taskState(full) } }),
    );
  };
  const last = task.state?.last_snapshot ?? null;
  const name = taskSnapshotName(task, at);
  if (taken.has(`${task.dataset}@${name}`)) {
    setState({ state: 'FINISHED', last_snapshot: `${task.dataset}@${name}` });
    return;
  }
  try {
    parseSnapshotName(name, task.naming_schema);
  } catch (err) {
    // zettarepl.py:128-143
    setState({
      state: 'ERROR',
      error: sentence(`Unable to parse snapshot name '${name}': ${(err as Error).message}`),
      last_snapshot: last,
    });
    return;
  }
  setState({ state: 'RUNNING', last_snapshot: last });
  if (!appliance.datasets().some((d) => d.id === task.dataset)) {
    // `zfs snapshot` of a dataset that is gone: libzfs's "cannot create snapshot" with ENOENT's
    // words (zfs_snapshot_nvl, zfs_standard_error), which CreateSnapshotError carries (create.py:75-78).
    const error = `cannot create snapshot '${task.dataset}@${name}': dataset does not exist`;
    setState({ state: 'ERROR', error: sentence(error), last_snapshot: last });
    return;
  }
  let made: SnapshotRecord[];
  try {
    made = await takeSnapshots(appliance, {
      dataset: task.dataset,
      name,
      recursive: task.recursive,
      excluded: (dataset) => shouldExclude(dataset, task.exclude),
      properties: {},
      at,
    });
  } catch (err) {
    // CreateSnapshotError carries zfs's words (zettarepl/snapshot/create.py:50-80), without the middleware's prefix.
    const text =
      err instanceof RpcError ? err.message.replace(/^(\[\w+\] )?Failed to snapshot [^:]+: /, '') : String(err);
    setState({ state: 'ERROR', error: sentence(text), last_snapshot: last });
    return;
  }
  taken.add(`${task.dataset}@${name}`);
  setState({ state: 'FINISHED', last_snapshot: `${task.dataset}@${name}` });
  if (!task.allow_empty) {
    const doomed = await emptySnapshots(appliance, made);
    if (doomed.length > 0) await destroySnapshots(appliance, doomed, task.dataset.split('/')[0]!);
  }
}
