/**
 * Datasets: matched by full name; the values, the calls and 25.10.1's refusal predicted at plan time
 * live in state/datasets.ts (made with `stor dataset update`'s module); this is the adapter.
 */
import { queryItems } from '../../../core/contract/client.js';
import { E } from '../../../core/error-catalogue.js';
import { StorError } from '../../../core/errors.js';
import { stateDatasetSchema } from '../../../core/state/index.js';
import {
  createDataset,
  deleteDataset,
  diffDataset,
  exportDatasets,
  predictDatasetRefusal,
  updateDataset,
  type Dataset,
} from '../datasets.js';
import { datasetMarked } from '../ownership.js';
import { stepOf, type KindAdapter, type World } from './kind.js';

const depth = (name: string): number => name.split('/').length;
const datasetsIn = (world: World): readonly Dataset[] => world.objects.datasets as readonly Dataset[];

export const datasets: KindAdapter<'datasets', Dataset> = {
  key: 'datasets',
  schema: stateDatasetSchema,
  // Flat (the default), every property: the file may name any.
  read: (t) => queryItems(t, 'pool.dataset.query', ['id']),
  live: datasetsIn,
  readOne: async (t, name) => ({ datasets: await queryItems(t, 'pool.dataset.query', ['id'], [['id', '=', name]]) }),

  // Parents before their children, whatever the file's order (a stable sort by depth: at one depth,
  // the file's order): pool.dataset.create makes no parent (create_ancestors false,
  // MW/api/v25_10_1/pool_dataset.py) and refuses a child first, "Parent dataset (…) does not exist."
  order: (wants) => [...wants].sort((a, b) => depth(a.name) - depth(b.name)),

  plan(want, world) {
    const have = datasetsIn(world).find((d) => d.id === want.name);
    return stepOf('datasets', want, have ? 'update' : 'create', diffDataset(want, have));
  },

  prune(world, named, gone, note) {
    const all = datasetsIn(world);
    // A share, a snapshot task or a replication that stays (the file names it, or stor did not make it)
    // keeps the dataset holding its path: 25.10.1's pool.dataset.delete takes the shares and tasks under it
    // with it (its attachment delegates, MW/plugins/pool_/dataset_attachments.py,
    // MW/plugins/snapshot.py:372-374), so deleting the dataset would delete them.
    const going = new Set(gone.map((c) => `${c.kind} ${c.name}`));
    const sharesStaying = [
      ...(world.objects['shares.nfs'] as readonly { path: string }[]).map((s) => ({
        id: `shares.nfs ${s.path}`,
        label: `nfs share ${s.path}`,
        path: s.path,
      })),
      ...(world.objects['shares.smb'] as readonly { name: string; path: string }[]).map((s) => ({
        id: `shares.smb ${s.name}`,
        label: `smb share ${s.name}`,
        path: s.path,
      })),
      ...(world.objects.snapshot_tasks as readonly { dataset: string; naming_schema: string }[]).map((s) => ({
        id: `snapshot_tasks ${s.dataset}@${s.naming_schema}`,
        label: `snapshot task ${s.dataset}@${s.naming_schema}`,
        path: `/mnt/${s.dataset}`,
      })),
      // A LOCAL or PUSH replication by its sources, a LOCAL or PULL one by its target (MW/plugins/replication.py:648-678).
      ...(
        world.objects.replications as readonly {
          name: string;
          direction: string;
          transport: string;
          source_datasets: string[];
          target_dataset: string;
        }[]
      ).flatMap((r) =>
        [
          ...(r.transport === 'LOCAL' || r.direction === 'PUSH' ? r.source_datasets : []),
          ...(r.transport === 'LOCAL' || r.direction === 'PULL' ? [r.target_dataset] : []),
        ].map((ds) => ({ id: `replications ${r.name}`, label: `replication ${r.name}`, path: `/mnt/${ds}` })),
      ),
    ].filter((s) => !going.has(s.id));
    const marked = new Set(
      all
        .filter((d) => !named.has(d.id) && datasetMarked(d.id, d.user_properties as Record<string, unknown>))
        .map((d) => d.id),
    );
    // A dataset with a dataset under it that stays (the file names it, stor did not make it, or it is
    // kept itself) stays too, as a group still in use does: pool.dataset.delete is not recursive
    // (datasets.ts deleteDataset) and 25.10.1 refuses it, "[ENOTEMPTY] … filesystem has children".
    const kept = new Set<string>();
    const out: string[] = [];
    // Children before their parents: the query lists a parent first.
    for (const d of [...all].reverse()) {
      if (!marked.has(d.id)) continue;
      const stays = all.find((c) => c.id.startsWith(`${d.id}/`) && (!marked.has(c.id) || kept.has(c.id)));
      const mount = `/mnt/${d.id}`;
      const share = sharesStaying.find((s) => s.path === mount || s.path.startsWith(`${mount}/`));
      if (stays) {
        kept.add(d.id);
        note(`dataset ${d.id}: stor made it, but ${stays.id} under it stays; --prune leaves it`);
      } else if (share) {
        kept.add(d.id);
        note(`dataset ${d.id}: stor made it, but ${share.label} in it stays; --prune leaves it`);
      } else out.push(d.id);
    }
    return out;
  },

  exists: (world, name) => datasetsIn(world).some((d) => d.id === name),

  /**
   * No dataset change the target would refuse: 25.10.1's answer, predicted from the reads the plan made
   * (datasets.ts predictDatasetRefusal), is the error, in its words, before anything is applied.
   */
  refuse(world, steps) {
    for (const s of steps) {
      if (s.change.action === 'delete' || !s.want) continue;
      const refusal = predictDatasetRefusal(
        s.want,
        datasetsIn(world).find((d) => d.id === s.change.name),
      );
      if (refusal) {
        refusal.hint = `the file's dataset ${s.change.name}: the target would refuse this ${s.change.action}; nothing was changed`;
        throw refusal;
      }
    }
  },

  async apply(t, step, { world }) {
    const { name, action } = step.change;
    if (action === 'create') await createDataset(t, step.want!);
    else if (action === 'update') {
      const have = datasetsIn(world).find((d) => d.id === name);
      if (!have) throw new StorError(E.NOT_FOUND, `no dataset ${name}`);
      await updateDataset(t, step.want!, have);
    } else await deleteDataset(t, name);
  },

  export: (world) => exportDatasets(datasetsIn(world)),
};
