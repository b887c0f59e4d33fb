import { sharingNfsContract, type NfsShareUpdate } from '../../contract/sharing-nfs.js';
import { sharingNfsContract26 } from '../../contract/v26_0_0/sharing-nfs.js';
import { rpcErrors } from '../../errors.js';
import {
  deleteNfsShares,
  insertNfsShare,
  listNfsShares,
  updateNfsShare,
  type NfsShareRecord,
} from '../../store/shares-nfs.js';
import type { Appliance } from '../appliance.js';
import { implement } from '../method.js';
import { getInstance, query } from '../query/index.js';
import { sanitizeShare, validateShare, type NfsCheckContext, type NfsShareData } from '../shares/nfs-checks.js';
import { nfsShareEntries, nfsShareEntries26 } from '../shares/nfs-entries.js';
import { resolveHostnames } from '../shares/nfs-hosts.js';

// The handlers of contract/sharing-nfs.ts (and 26.0's entries, contract/v26_0_0/sharing-nfs.ts), as
// SharingNFSService answers them (MW/plugins/nfs.py:428-966). Shares are stored and checked; no NFS
// server runs, so nothing is exported (docs/RELEASES.md "What the emulator serves, and what it does not").

/** `verbose_name` of SharingNFSService (MW/service/base.py:36): `SharingNFS 7 does not exist`. */
const VERBOSE = 'SharingNFS';

/** A stored share's fields as validate sees them (create's fields), with its id. */
const shareData = ({ id, ...fields }: NfsShareRecord): NfsShareData => ({ ...fields, id });

/**
 * validate (MW/plugins/nfs.py:535-658) around its one wait: the checks up to the first
 * `verrors.check()`, then the names of every share's hosts resolved (no lock held while the
 * resolver answers), then the rest in the write that stores the share, against the shares as they
 * are then. `write(share)` stores it and answers its id.
 */
async function validated(
  appliance: Appliance,
  data: NfsShareData,
  ctx: NfsCheckContext,
  write: (share: NfsShareData) => number,
): Promise<number> {
  const { store } = appliance;
  const share = sanitizeShare(data, ctx);
  const others = (all: NfsShareRecord[]) => all.filter((s) => s.id !== share.id);
  const known = store.read(() => others(listNfsShares(store.db)));
  const dns = await resolveHostnames([...known.flatMap((s) => s.hosts), ...share.hosts], appliance.hostLookup);
  return store.write(() => {
    const all = listNfsShares(store.db);
    if (share.id !== undefined && !all.some((s) => s.id === share.id))
      throw rpcErrors.instanceNotFound(VERBOSE, share.id);
    validateShare(appliance, share, others(all), dns, ctx);
    return write(share);
  });
}

/** do_create (MW/plugins/nfs.py:442-481): validate, store; answers the new share's id. */
function createShare(appliance: Appliance, data: NfsShareData, namesFoundEntry: boolean): Promise<number> {
  const { db } = appliance.store;
  return validated(appliance, data, { schema: 'sharingnfs_create', namesFoundEntry }, ({ id: _id, ...fields }) =>
    insertNfsShare(db, fields),
  );
}

/** do_update (MW/plugins/nfs.py:483-512): the stored share with `data` laid over it, validated as a whole. */
function updateShare(
  appliance: Appliance,
  id: number,
  data: NfsShareUpdate,
  namesFoundEntry: boolean,
): Promise<number> {
  const { store } = appliance;
  const old = store.read(() => listNfsShares(store.db).find((s) => s.id === id));
  if (!old) throw rpcErrors.instanceNotFound(VERBOSE, id);
  const merged: NfsShareData = { ...shareData(old), ...data, id };
  return validated(appliance, merged, { schema: 'sharingnfs_update', namesFoundEntry }, (share) => {
    updateNfsShare(store.db, { ...share, id });
    return id;
  });
}

const c = sharingNfsContract;

export const sharingNfsMethods = [
  implement(c['sharing.nfs.query'], ({ appliance }, filters, options) =>
    query(nfsShareEntries(appliance, options), filters, options),
  ),
  implement(c['sharing.nfs.get_instance'], ({ appliance }, id, options) =>
    getInstance(nfsShareEntries(appliance, options), id, options, VERBOSE),
  ),
  // `return await self.get_instance(id)` (MW/plugins/nfs.py:481, 512).
  implement(c['sharing.nfs.create'], async ({ appliance }, data) => {
    const id = await createShare(appliance, data, false);
    return getInstance(nfsShareEntries(appliance, {}), id, {}, VERBOSE);
  }),
  implement(c['sharing.nfs.update'], async ({ appliance }, id, data) => {
    await updateShare(appliance, id, data, false);
    return getInstance(nfsShareEntries(appliance, {}), id, {}, VERBOSE);
  }),
  // do_delete (MW/plugins/nfs.py:514-533): get_instance first, then the row; answers True.
  implement(c['sharing.nfs.delete'], ({ appliance: { store } }, id) =>
    store.write(() => {
      if (!listNfsShares(store.db).some((s) => s.id === id)) throw rpcErrors.instanceNotFound(VERBOSE, id);
      deleteNfsShares(store.db, [id]);
      return true as const;
    }),
  ),
];

const c26 = sharingNfsContract26;

/**
 * 26.0's entries (stable/26 MW/api/v26_0_0/nfs.py): the same handlers answering SharingNFSEntry,
 * and sanitize's words naming the entry found (stable/26 MW/plugins/nfs_/validators.py:47-49, 86-88).
 */
export const sharingNfsMethods26 = [
  implement(c26['sharing.nfs.query'], ({ appliance }, filters, options) =>
    query(nfsShareEntries26(appliance, options), filters, options),
  ),
  implement(c26['sharing.nfs.get_instance'], ({ appliance }, id, options) =>
    getInstance(nfsShareEntries26(appliance, options), id, options, VERBOSE),
  ),
  implement(c26['sharing.nfs.create'], async ({ appliance }, data) => {
    const id = await createShare(appliance, data, true);
    return getInstance(nfsShareEntries26(appliance, {}), id, {}, VERBOSE);
  }),
  implement(c26['sharing.nfs.update'], async ({ appliance }, id, data) => {
    await updateShare(appliance, id, data, true);
    return getInstance(nfsShareEntries26(appliance, {}), id, {}, VERBOSE);
  }),
];
