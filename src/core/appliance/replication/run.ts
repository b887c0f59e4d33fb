// One run of a LOCAL push replication on the emulator's store and files, as zettarepl runs it
// (zettarepl/replication/run.py:251-280 per source dataset, release/25.10.1), planned by plan.ts.
//
// The caller (the replication.run handler) passes the task as a LocalReplicationSpec: its
// source_datasets, target_dataset, recursive, exclude; its naming schemas (the bound periodic
// snapshot tasks' naming_schema and also_include_naming_schema) or its name_regex; its
// retention_policy with lifetime_value/lifetime_unit (CUSTOM); allow_from_scratch; readonly. And a
// progress callback, called before each send as the middleware sets the job's progress
// (MW/plugins/zettarepl.py:466-500): `100 * sent / total`, "Sending N of M: DATASET@SNAPSHOT".
// It throws a ReplicationError whose message is zettarepl's error text: the task's state shows it
// as is, the job fails with it as a sentence (CallError(make_sentence(error)), MW/plugins/zettarepl.py:462-463).
//
// What a receive does here: the target dataset is made when missing, the snapshot's row copied
// (its name, creation time, guid and user properties; createtxg is the target's next), its copy
// of the files copied, and the target's files made the snapshot's, as `zfs recv -F` leaves them,
// with the file owners it recorded. Each snapshot is one transaction: a run killed midway leaves
// the target with the snapshots received so far, and the next run goes on from the newest.

import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import {
  insertDataset,
  listDatasets,
  deleteDatasets,
  updateDataset,
  type DatasetRecord,
} from '../../store/datasets.js';
import { isHeld, listHolds } from '../../store/snapshot-holds.js';
import {
  deleteSnapshots,
  insertSnapshot,
  listSnapshots,
  restoreOwners,
  snapshotKey,
  snapshotKeysAfter,
  type SnapshotKey,
  type SnapshotOwner,
  type SnapshotRecord,
} from '../../store/snapshots.js';
import type { Appliance } from '../appliance.js';
import { datasetType } from '../datasets/properties.js';
import { snapshotCopyDir } from '../datasets/snapshot-copies.js';
import { sandboxPath } from '../files/places.js';
import { copyTree, restoreTree } from '../files/tree-copy.js';
import { removeTree } from '../files/tree-walk.js';
import { noteCopyInFlight, snapshotsDir } from '../jobs/stray-snapshot-copies.js';
import { mountOf, serializedByPool } from '../snapshots/take.js';
import { parseTaskSnapshotName } from '../snapshot-tasks/appliance-clock.js';
import { isChild } from '../snapshot-tasks/dataset-tree.js';
import {
  checkTarget,
  planReplicationPart,
  readonlyAfterPlan,
  ReplicationError,
  type DatasetStep,
  type LocalReplicationSpec,
  type ReplicationWorld,
  type WorldSnapshot,
} from './plan.js';
import { replicationRetention, retentionBeforePart, type TargetSnapshot } from './retention.js';

export { ReplicationError, type LocalReplicationSpec } from './plan.js';

/** The job's progress: percent and text, as `job.set_progress` takes them. */
export type ReplicationProgress = (percent: number, description: string) => void;

export interface ReplicationResult {
  /** The snapshots received, `TARGET@NAME`, in order. */
  readonly received: readonly string[];
  /** The target snapshots retention destroyed (before and after the sends). */
  readonly destroyed: readonly string[];
}

const splitId = (id: string) => [id.slice(0, id.indexOf('@')), id.slice(id.indexOf('@') + 1)] as const;
const relOf = (id: string) => id.split('/').slice(1).join('/');
const poolOf = (id: string) => id.split('/')[0]!;
/** Python's `repr` of a dataset name, as libzfs quotes it. */
const q = (s: string) => `'${s}'`;
/** Below every createtxg (AUTOINCREMENT numbers them from 1): all of a dataset's snapshots. */
const NO_TXG = 0;

/** `zfs get readonly`: the dataset's own value, else its nearest ancestor's. */
function effectiveReadonly(d: DatasetRecord, all: readonly DatasetRecord[]): boolean {
  for (let id: string | null = d.id; id !== null; id = id.includes('/') ? id.slice(0, id.lastIndexOf('/')) : null) {
    const v = all.find((x) => x.id === id)?.properties.readonly;
    if (v !== undefined && v !== null) return String(v).toUpperCase() === 'ON';
  }
  return false;
}

/** The store as a run of `spec` sees it; only the target's filesystems are listed (what ensure_has_no_data reads). */
export async function loadWorld(
  appliance: Appliance,
  spec: Pick<LocalReplicationSpec, 'targetDataset'>,
): Promise<ReplicationWorld & { records: SnapshotRecord[] }> {
  const { store } = appliance;
  const [datasets, records] = store.read(() => [listDatasets(store.db), listSnapshots(store.db)]);
  const listings = new Map<string, string[]>();
  for (const d of datasets) {
    if (datasetType(d) !== 'FILESYSTEM' || !isChild(d.id, spec.targetDataset)) continue;
    const names = await readdir(sandboxPath(appliance, `/mnt/${d.id}`).host).catch(() => [] as string[]);
    listings.set(d.id, names.sort());
  }
  return {
    datasets: datasets.map((d) => ({ id: d.id, type: datasetType(d), readonly: effectiveReadonly(d, datasets) })),
    snapshots: records.map((s) => ({ dataset: s.dataset, name: splitId(s.id)[1], txg: s.txg })),
    listing: (id) => listings.get(id) ?? [],
    parse: parseTaskSnapshotName,
    records,
  };
}

/** The store's snapshots as both sides of a LOCAL run: the source's, and the target's with their holds. */
function retentionSides(appliance: Appliance): { snapshots: WorldSnapshot[]; held: TargetSnapshot[] } {
  const { store } = appliance;
  const [records, holds] = store.read(() => [listSnapshots(store.db), listHolds(store.db)] as const);
  const snapshots = records.map((s) => ({ dataset: s.dataset, name: splitId(s.id)[1], txg: s.txg }));
  return { snapshots, held: snapshots.map((s) => ({ ...s, held: holds.has(`${s.dataset}@${s.name}`) })) };
}

/** Destroys snapshots that are not held (zettarepl/snapshot/destroy.py:53-61 goes on past what ZFS refuses). */
export async function destroyFree(appliance: Appliance, ids: ReadonlySet<string>): Promise<string[]> {
  const { store } = appliance;
  const gone = store.write(() => {
    const holds = listHolds(store.db);
    const doomed = listSnapshots(store.db).filter((s) => ids.has(s.id) && !holds.has(s.id));
    deleteSnapshots(
      store.db,
      doomed.map((s) => s.id),
    );
    return doomed;
  });
  for (const s of gone) await removeTree(snapshotCopyDir(appliance, s.copy), snapshotsDir(store.stateDir));
  return gone.map((s) => s.id);
}

/** pre_retention (zettarepl/replication/pre_retention.py:20-63), on this appliance. */
async function preRetention(appliance: Appliance, spec: LocalReplicationSpec, part: string): Promise<string[]> {
  const { snapshots, held } = retentionSides(appliance);
  const doomed = retentionBeforePart(spec, snapshots, held, part, appliance.now());
  return destroyFree(appliance, new Set(doomed.map((s) => `${s.dataset}@${s.name}`)));
}

/** The owners a snapshot of `from` recorded, at the place of `to` in its pool (as a clone moves them). */
function movedOwners(owners: readonly SnapshotOwner[], from: string, to: string): SnapshotOwner[] {
  const [a, b] = [relOf(from), relOf(to)];
  return owners.map(([path, uid, gid]) => {
    const rest = a === '' ? path : path.slice(a.length).replace(/^\//, '');
    return [b === '' ? rest : rest === '' ? b : `${b}/${rest}`, uid, gid];
  });
}

/** `zfs destroy -r TARGET` of a target replicated from scratch (run.py:603); a held snapshot stops it, as ZFS's EBUSY. */
export async function destroyTarget(appliance: Appliance, target: string): Promise<void> {
  const { store } = appliance;
  await serializedByPool(appliance, poolOf(target), async () => {
    const plan = store.write(() => {
      const datasets = listDatasets(store.db).filter((d) => isChild(d.id, target));
      const snapshots = listSnapshots(store.db).filter((s) => isChild(s.dataset, target));
      const holds = listHolds(store.db);
      const held = snapshots.find((s) => holds.has(s.id));
      // zfs_destroy_snaps_nvl's text for EBUSY (libzfs: "cannot destroy snapshot %s", zfs_standard_error).
      if (held) throw new ReplicationError(`cannot destroy snapshot ${held.id}: dataset is busy`);
      return { datasets, snapshots };
    });
    const hosts = plan.datasets
      .filter((d) => datasetType(d) === 'FILESYSTEM')
      .map((d) => sandboxPath(appliance, `/mnt/${d.id}`).host)
      .sort((a, b) => b.length - a.length);
    for (const host of hosts) await removeTree(host, store.mntDir);
    store.write(() => {
      deleteDatasets(
        store.db,
        plan.datasets.map((d) => d.id),
      );
      deleteSnapshots(
        store.db,
        plan.snapshots.map((s) => s.id),
      );
    });
    for (const s of plan.snapshots) await removeTree(snapshotCopyDir(appliance, s.copy), snapshotsDir(store.stateDir));
  });
}

/**
 * `zfs create -p NAME`'s refusal when an existing ancestor of NAME is a volume (libzfs check_parents:
 * "parent is not a filesystem"), or null; NAME itself existing, as a volume too, is `-p`'s no-op.
 */
export function createBelowVolumeError(all: readonly DatasetRecord[], name: string): string | null {
  if (all.some((d) => d.id === name)) return null;
  const parts = name.split('/');
  for (let n = parts.length - 1; n >= 1; n--) {
    const found = all.find((d) => d.id === parts.slice(0, n).join('/'));
    if (found) return datasetType(found) === 'VOLUME' ? `cannot create '${name}': parent is not a filesystem` : null;
  }
  return null;
}

/** `zfs create -p PARENT` (zettarepl/dataset/create.py:11-12): each missing ancestor, a plain filesystem. */
export function createParents(appliance: Appliance, parent: string): void {
  const { store } = appliance;
  store.write(() => {
    const all = listDatasets(store.db);
    const pool = poolOf(parent);
    // zfs create's words for a pool that is not there.
    if (!all.some((d) => d.id === pool))
      throw new ReplicationError(`cannot create '${parent}': no such pool '${pool}'`);
    const refused = createBelowVolumeError(all, parent);
    if (refused !== null) throw new ReplicationError(refused);
    const parts = parent.split('/');
    for (let n = 2; n <= parts.length; n++) {
      const id = parts.slice(0, n).join('/');
      if (all.some((d) => d.id === id)) continue;
      insertDataset(store.db, { id, pool, properties: {}, user_properties: {}, created_at: appliance.now() });
      mkdirSync(sandboxPath(appliance, `/mnt/${id}`).host, { mode: 0o755 });
    }
  });
}

/** What a receive writes of a sent snapshot: the fields `zfs send` carries in its stream. */
export interface IncomingSnapshot {
  /** The dataset it was taken of, on the sending side (its recorded owners' paths start there). */
  readonly sourceDataset: string;
  readonly name: string;
  readonly referenced: number;
  readonly guid: string;
  readonly user_properties: Record<string, string>;
  readonly owners: readonly SnapshotOwner[];
  readonly created_at: number;
  /** A volume's `volsize` and `volblocksize`; none for a filesystem. */
  readonly volume: DatasetRecord['properties'];
}

/** A snapshot row as sent: its source dataset's volume properties with it. */
export function incomingOf(source: SnapshotRecord, from: DatasetRecord | undefined): IncomingSnapshot {
  const volume: DatasetRecord['properties'] = {};
  for (const k of ['volsize', 'volblocksize'])
    if (from && Object.hasOwn(from.properties, k)) volume[k] = from.properties[k]!;
  return {
    sourceDataset: source.dataset,
    name: splitId(source.id)[1],
    referenced: source.referenced,
    guid: source.guid,
    user_properties: source.user_properties,
    owners: source.owners,
    created_at: source.created_at,
    volume,
  };
}

/**
 * One snapshot received into `target` (`zfs recv -s -F`, zettarepl/transport/zfscli/__init__.py:73-84):
 * `fill` writes the snapshot's files into its new copy directory (a local copy, or a stream from
 * another appliance); a missing target is made; on an incremental receive, the target's snapshots
 * after the base go (a held one stops it, as ZFS refuses its destroy); the snapshot's row and copy
 * are added in one transaction; then the target's files are the snapshot's. A `fill` that fails
 * leaves nothing behind.
 */
export async function receiveSnapshot(
  appliance: Appliance,
  source: IncomingSnapshot,
  target: string,
  base: string | null,
  fill: (dir: string) => Promise<unknown>,
): Promise<string> {
  const { store } = appliance;
  const id = `${target}@${source.name}`;
  return serializedByPool(appliance, poolOf(target), async () => {
    const copy = randomUUID();
    const forget = await noteCopyInFlight(store.stateDir, copy);
    const dir = snapshotCopyDir(appliance, copy);
    let later: SnapshotKey[];
    const owners = movedOwners(source.owners, source.sourceDataset, target);
    try {
      await fill(dir);
      // Each receive reads only the rows it checks, by index: the target's base and the target's
      // snapshots after it. Reading every snapshot row here made a run quadratic in the snapshots
      // it sends (bench/HISTORY.md, 2026-11-29).
      later = store.write(() => {
        const datasets = listDatasets(store.db);
        const exists = datasets.some((d) => d.id === target);
        const baseRow = base === null ? undefined : snapshotKey(store.db, `${target}@${base}`);
        // zfs_receive_one's refusals (libzfs_sendrecv.c) when the target changed since the run
        // planned (destroyed, or another run received into it): never a silent re-creation.
        if (base !== null && !exists)
          throw new ReplicationError(`cannot receive incremental stream: destination ${q(target)} does not exist`);
        if (base !== null && !baseRow)
          throw new ReplicationError(
            `cannot receive incremental stream: most recent snapshot of ${target} does not\nmatch incremental source`,
          );
        const existing = base === null ? snapshotKeysAfter(store.db, target, NO_TXG)[0] : undefined;
        if (existing)
          throw new ReplicationError(
            `cannot receive new filesystem stream: destination has snapshots (eg. ${existing.id})\nmust destroy them to overwrite it`,
          );
        if (!exists) {
          // dmu_recv_begin_check: a new dataset is received below a filesystem only
          // (ZFS_ERR_WRONG_PARENT, libzfs's "invalid parent dataset"); a missing parent is ENOENT.
          // A pool's name alone is refused before (zfs_receive_one: "destination '%s' does not exist").
          const slash = target.lastIndexOf('/');
          if (slash < 0) throw new ReplicationError(`cannot receive: destination '${target}' does not exist`);
          const parent = datasets.find((d) => d.id === target.slice(0, slash));
          if (!parent) throw new ReplicationError('cannot receive new filesystem stream: dataset does not exist');
          if (datasetType(parent) === 'VOLUME')
            throw new ReplicationError('cannot receive new filesystem stream: invalid parent dataset');
          insertDataset(store.db, {
            id: target,
            pool: poolOf(target),
            properties: { ...source.volume },
            user_properties: {},
            created_at: appliance.now(),
          });
          if (!Object.hasOwn(source.volume, 'volsize'))
            mkdirSync(sandboxPath(appliance, `/mnt/${target}`).host, { mode: 0o755 });
        }
        const after = baseRow === undefined ? [] : snapshotKeysAfter(store.db, target, baseRow.txg);
        // dmu_recv_end_check: -F destroys the later snapshots, and a held one is EBUSY; libzfs
        // words the failed incremental receive "cannot receive incremental stream" (zfs_standard_error).
        if (after.some((s) => isHeld(store.db, s.id)))
          throw new ReplicationError('cannot receive incremental stream: dataset is busy');
        deleteSnapshots(
          store.db,
          after.map((s) => s.id),
        );
        insertSnapshot(store.db, {
          id,
          dataset: target,
          pool: poolOf(target),
          copy,
          referenced: source.referenced,
          guid: source.guid,
          user_properties: source.user_properties,
          owners,
          created_at: source.created_at,
        });
        return after;
      });
    } catch (err) {
      await removeTree(dir, snapshotsDir(store.stateDir));
      throw err;
    } finally {
      await forget();
    }
    for (const s of later) await removeTree(snapshotCopyDir(appliance, s.copy), snapshotsDir(store.stateDir));
    const all = store.read(() => listDatasets(store.db));
    const d = all.find((x) => x.id === target)!;
    const mount = mountOf(appliance, d, all);
    if (mount) {
      await restoreTree(dir, mount.host, store.mntDir, mount.skip);
      store.write(() => restoreOwners(store.db, d.pool, mount.rel, mount.childRels, owners));
    }
    return id;
  });
}

/** A local receive: the source snapshot's own copy copied. */
function receive(appliance: Appliance, source: SnapshotRecord, target: string, base: string | null): Promise<string> {
  const from = appliance.store.read(() => listDatasets(appliance.store.db)).find((d) => d.id === source.dataset);
  return receiveSnapshot(appliance, incomingOf(source, from), target, base, (dir) =>
    copyTree(snapshotCopyDir(appliance, source.copy), snapshotsDir(appliance.store.stateDir), dir, new Set()),
  );
}

/** handle_readonly (run.py:837-869): SET and REQUIRE leave the target readonly=on, set where no ancestor in the target tree has it. */
function handleReadonly(
  appliance: Appliance,
  spec: LocalReplicationSpec,
  step: DatasetStep,
  known: Map<string, boolean>,
): void {
  if (spec.readonly === 'IGNORE') return;
  const { store } = appliance;
  store.write(() => {
    const d = listDatasets(store.db).find((x) => x.id === step.target);
    if (!d) return;
    const parent = step.target.slice(0, step.target.lastIndexOf('/'));
    const properties = { ...d.properties };
    if (known.has(parent) && known.get(step.target) === false) delete properties.readonly;
    known.set(step.target, true);
    if (!(known.get(parent) ?? false)) properties.readonly = 'ON';
    updateDataset(store.db, { ...d, properties });
  });
}

/**
 * Runs the replication once: each source dataset in name order (run.py:234-248), then the task's
 * retention on its target (zettarepl.py:438-476, which zettarepl runs after any run that ended,
 * failed or not). Throws the first part's ReplicationError; anything else (the progress callback
 * throwing, say) ends the run where it is, with what was received kept.
 */
export async function runLocalReplication(
  appliance: Appliance,
  spec: LocalReplicationSpec,
  progress: ReplicationProgress,
): Promise<ReplicationResult> {
  const received: string[] = [];
  const destroyed: string[] = [];
  let sent = 0;
  let total = 0;
  try {
    for (const part of [...spec.sourceDatasets].sort()) {
      checkTarget(spec, await loadWorld(appliance, spec), part);
      destroyed.push(...(await preRetention(appliance, spec, part)));
      const world = await loadWorld(appliance, spec);
      const plan = planReplicationPart(spec, world, part);
      for (const target of plan.destroy) await destroyTarget(appliance, target);
      if (plan.error) throw plan.error;
      if (plan.createParent !== null) createParents(appliance, plan.createParent);
      total += plan.steps.reduce((n, s) => n + s.sends.length, 0);
      const byId = new Map(world.records.map((s) => [s.id, s]));
      const known = readonlyAfterPlan(world, plan);
      for (const step of plan.steps) {
        let base = step.incrementalBase;
        for (const send of step.sends) {
          progress((100 * sent) / total, `Sending ${sent + 1} of ${total}: ${step.source}@${send.snapshot}`);
          for (const name of send.receives) {
            const source = byId.get(`${step.source}@${name}`)!;
            received.push(await receive(appliance, source, step.target, base));
            // A full receive may have made the dataset: readonly at once (run.py:832-834).
            if (base === null) handleReadonly(appliance, spec, step, known);
            base = name;
          }
          sent++;
        }
        handleReadonly(appliance, spec, step, known);
      }
    }
  } catch (err) {
    if (err instanceof ReplicationError) destroyed.push(...(await postRetention(appliance, spec)));
    throw err;
  }
  destroyed.push(...(await postRetention(appliance, spec)));
  return { received, destroyed };
}

async function postRetention(appliance: Appliance, spec: LocalReplicationSpec): Promise<string[]> {
  const { snapshots, held } = retentionSides(appliance);
  const doomed = replicationRetention(spec, snapshots, held, appliance.now());
  return destroyFree(appliance, new Set(doomed.map((s) => `${s.dataset}@${s.name}`)));
}
