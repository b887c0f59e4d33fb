import { insertDataset } from '../../src/core/store/datasets.js';
import { insertGroup } from '../../src/core/store/groups.js';
import { insertSnapshot } from '../../src/core/store/snapshots.js';
import { insertUser } from '../../src/core/store/users.js';
import type { TestAppliance } from './appliance.js';

/** What `fillWithManyRows` made, by name. */
export interface ManyRows {
  datasets: number;
  groups: number;
  users: number;
  snapshots: number;
}

const pad = (i: number) => String(i).padStart(4, '0');

/**
 * Fills a test appliance with more rows than a list verb's page: datasets, groups, users and
 * snapshots. A few go through the appliance's own methods (a volume, whose entry has no `atime` or
 * `recordsize` and a null `mountpoint`; a commented dataset; a user with its own group); the bulk
 * is written to the store in one transaction, as a create would leave it, since 1,200 creates one
 * by one take half a minute on a loaded machine and the rows, not the creates, are under test.
 * Names are inserted out of order (a descending counter) so that no query's natural order is
 * already the order a test asks for.
 */
export async function fillWithManyRows(t: TestAppliance, n = 1200): Promise<ManyRows> {
  await t.call(t.admin, 'pool.dataset.create', {
    name: 'tank/bulk',
    comments: 'bulk',
  });
  await t.call(t.admin, 'pool.dataset.create', { name: 'tank/vol', type: 'VOLUME', volsize: 1048576 });
  await t.call(t.admin, 'pool.dataset.create', { name: 'tank/bulk/zz-volume', type: 'VOLUME', volsize: 2097152 });
  await t.call(t.admin, 'group.create', { name: 'made-by-method' });
  await t.call(t.admin, 'user.create', {
    username: 'madebymethod',
    full_name: 'Made By Method',
    password_disabled: true,
    group_create: true,
    smb: false,
  });
  await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/bulk', name: 'by-method' });

  const groups = n;
  const { store } = t.appliance;
  store.write(() => {
    // Milliseconds, as the store keeps them.
    const now = Date.now();
    for (let i = n - 1; i >= 0; i--) {
      insertDataset(store.db, {
        id: `tank/bulk/d${pad(i)}`,
        pool: 'tank',
        properties: i % 5 === 0 ? { compression: 'ZSTD' } : {},
        user_properties: i % 7 === 0 ? { 'org.freenas:description': `comment ${i % 11}` } : {},
        created_at: now,
      });
    }
    const groupIds: number[] = [];
    for (let i = groups - 1; i >= 0; i--) {
      groupIds.push(
        insertGroup(store.db, {
          gid: 20000 + ((i * 37) % groups),
          name: `bulkgroup${pad(i)}`,
          builtin: false,
          smb: i % 3 === 0,
          sudo_commands: [],
          sudo_commands_nopasswd: [],
          userns_idmap: null,
        }),
      );
    }
    for (let i = groups - 1; i >= 0; i--) {
      insertUser(store.db, {
        uid: 30000 + ((i * 53) % groups),
        username: `bulkuser${pad(i)}`,
        full_name: `Bulk User ${i % 13}`,
        home: '/var/empty',
        shell: '/usr/sbin/nologin',
        group_id: groupIds[i]!,
        groups: i % 4 === 0 ? [groupIds[(i + 1) % groups]!] : [],
        builtin: false,
        smb: false,
        password_disabled: true,
        password_hash: null,
        locked: i % 9 === 0,
        // Most users have none: a field that is null on some rows and a string on others.
        email: i % 6 === 0 ? `u${i}@example.com` : null,
        sshpubkey: null,
        ssh_password_enabled: false,
        sudo_commands: [],
        sudo_commands_nopasswd: [],
        userns_idmap: null,
        last_password_change: null,
      });
    }
    for (let i = n - 1; i >= 0; i--) {
      const dataset = `tank/bulk/d${pad(i % 40)}`;
      insertSnapshot(store.db, {
        id: `${dataset}@s${pad(i)}`,
        dataset,
        pool: 'tank',
        copy: `bulk-${i}`,
        referenced: ((i * 7919) % 1000) * 4096,
        guid: String(1000000 + i),
        user_properties: {},
        owners: [],
        created_at: now - i * 1000,
      });
    }
  });
  return { datasets: n, groups, users: groups, snapshots: n };
}
