import { mkdirSync } from 'node:fs';
import { ERRNO, rpcErrors } from '../../errors.js';
import { insertDataset, listDatasets } from '../../store/datasets.js';
import type { Appliance } from '../appliance.js';
import { sandboxPath } from '../files/places.js';
import { createBelowVolumeError } from '../replication/run.js';

/**
 * `zfs create -p DATASET` on this appliance (zettarepl.create_dataset, MW/plugins/zettarepl.py:513-516;
 * zettarepl/dataset/create.py:11-12): the dataset and each missing ancestor, plain filesystems; one
 * that exists is left as it is, as `-p` does. A missing pool is zfs's words, as the command's
 * output is what the call fails with.
 */
export function createDatasetP(appliance: Appliance, dataset: string): null {
  const { store } = appliance;
  const pool = dataset.split('/')[0]!;
  store.write(() => {
    const datasets = listDatasets(store.db);
    const all = new Set(datasets.map((d) => d.id));
    if (!all.has(pool)) throw rpcErrors.call(ERRNO.EFAULT, `cannot create '${dataset}': no such pool '${pool}'`);
    const refused = createBelowVolumeError(datasets, dataset);
    if (refused !== null) throw rpcErrors.call(ERRNO.EFAULT, refused);
    const parts = dataset.split('/');
    for (let n = 2; n <= parts.length; n++) {
      const id = parts.slice(0, n).join('/');
      if (all.has(id)) continue;
      insertDataset(store.db, { id, pool, properties: {}, user_properties: {}, created_at: appliance.now() });
      mkdirSync(sandboxPath(appliance, `/mnt/${id}`).host, { mode: 0o755 });
    }
  });
  return null;
}
