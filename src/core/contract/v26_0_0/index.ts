import type { MethodContract } from '../method.js';
import { alertContract26 } from './alert.js';
import { nfsContract26 } from './nfs.js';
import { apiKeyContract26 } from './api-key.js';
import { authContract26 } from './auth.js';
import { poolContract26 } from './pool.js';
import { poolDatasetContract26 } from './pool-dataset.js';
import { poolSnapshotContract26 } from './pool-snapshot.js';
import { poolSnapshotTaskContract26 } from './pool-snapshottask.js';
import { replicationContract26 } from './replication.js';
import { sharingNfsContract26 } from './sharing-nfs.js';
import { sharingSmbContract26 } from './sharing-smb.js';
import { smbContract26 } from './smb.js';
import { serviceNamespaceRemoved26 } from './service-namespace.js';
import { userContract26 } from './user.js';

/**
 * 26.0's API (`MW/api/v26_0_0/`, branch stable/26 = 26.0.0-RC.1) where it differs from
 * 25.10.1's in the methods stor serves: only the entries that changed; every other method is
 * 25.10.1's (`contractFor` in src/core/releases/index.ts joins them). Read from
 * `git diff --stat stable/26:MW/api/v25_10_1 stable/26:MW/api/v26_0_0` and each file's diff:
 * - user.*: `webshare`, renew_2fa_secret's interval (user.ts here).
 * - auth.*, api_key.*: SCRAM login and key records (auth.ts, api-key.ts here; CONTRACT_26_0_0_SCRAM).
 * - privilege.py: the six privilege.* methods unchanged; privilege.become_readonly added (not served).
 * - group.py, system_product.py's version/version_short, filesystem.py's stat/listdir/mkdir/setperm/
 *   chown/get/put/statfs, system.py, keychain.py, cronjob.py, core.py's methods: unchanged
 *   (core.download: descriptions only). core.get_methods' model is `dict` in both, but 26 builds its
 *   entries for a methods cache with other keys (stable/26 MW/service/core_service.py:362-378): the
 *   release's `getMethodsEntry` (appliance/method-metadata.ts), not a contract entry.
 * - alert.py: Alert declares `id` first (alert.ts here); alert.list_categories gains options (not served).
 * - pool_dataset.py: entries gain `tier` (TierInfo | null), create's encryption pbkdf2iters at least
 *   1,300,000 and `data` discriminated by type (pool-dataset.ts here); pool_snapshot.py: create takes
 *   `suspend_vms` (pool-snapshot.ts here); pool_snapshottask.py: the entry's fields in a new order,
 *   `id` first (pool-snapshottask.ts here). auth_two_factor.py: unchanged; the OTP `interval` of 30 or 60
 *   is user.renew_2fa_secret's (user.py:474-481; user.ts here).
 * - replication.py: bound tasks `id` first, run's `options`, target_unmatched_snapshots' lists (replication.ts here).
 * - pool.py: PoolEntry gains `all_sed` and a typed `scan` (pool.ts here).
 * - nfs.py: SharingNFSEntry gains `dataset`, `relative_path` and `tier` (sharing-nfs.ts here); nfs.update's
 *   argument may be left out (nfs.ts here), the rest of nfs.* unchanged.
 * - smb.py: share entries gain dataset/relative_path/tier (sharing-smb.ts here); the SMB service's
 *   record trades enable_smb1 for minimum_protocol (smb.ts here).
 * - service.py: start, stop, restart and reload removed (service-namespace.ts here); the rest unchanged.
 * - Removed in 26 (`removed_in='v26'`): none of stor's (pool.ddt_prefetch, pool.is_upgraded and
 *   tn_connect.ip_choices are: MW/plugins/pool_/dedup.py:27, pool_/info.py:135, truenas_connect/update.py:293).
 */
/**
 * 26.0's SCRAM key login: auth.login_ex/login_ex_continue/mechanism_choices and the api_key.*
 * entries whose records carry SCRAM data, api_key.convert_raw_key among them. Part of 26.0's
 * contract; the emulator's `keyLogin` setting lays them over another release's or takes them out
 * of 26.0's (releases/overrides.ts `withKeyLogin`; docs/RELEASES.md "Emulator behaviours").
 */
export const CONTRACT_26_0_0_SCRAM: Readonly<Record<string, MethodContract>> = {
  ...authContract26,
  ...apiKeyContract26,
};

export const CONTRACT_26_0_0_OVERRIDES: Readonly<Record<string, MethodContract>> = {
  ...userContract26,
  ...poolContract26,
  ...poolDatasetContract26,
  ...poolSnapshotContract26,
  ...poolSnapshotTaskContract26,
  ...replicationContract26,
  ...sharingNfsContract26,
  ...sharingSmbContract26,
  ...smbContract26,
  ...alertContract26,
  ...nfsContract26,
  ...CONTRACT_26_0_0_SCRAM,
};

/** Methods 26.0 no longer serves, of stor's. */
export const CONTRACT_26_0_0_REMOVED: readonly string[] = [...serviceNamespaceRemoved26];
