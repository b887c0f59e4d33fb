import * as z from 'zod';
import { crud } from '../crud.js';
import { extendAfter, once, roles } from '../method.js';
import { service } from '../service.js';
import { sharingSmbContract, smbShareEntry } from '../sharing-smb.js';
import { tierInfo } from './pool-dataset.js';

// What 26.0 changed in the sharing.smb.* methods (`git diff TS-25.10.1:MW/api/v25_10_1/smb.py
// stable/26:MW/api/v26_0_0/smb.py`):
// - SmbShareEntry is SharingSMBEntry and gains `dataset` and `relative_path` (the dataset holding
//   `path` and the path below its mountpoint, null for an external share, MW/api/v26_0_0/smb.py:998-1013,
//   filled by MW/service/sharing_service.py:154-185 at stable/26) and `tier` (null while ZFS
//   tiering is off, as on a fresh install: v26_0_0/pool-dataset.ts). Create and update exclude
//   the three (MW/api/v26_0_0/smb.py:1146-1151).
// - the options discriminated by `purpose` with `Discriminator('purpose')` rather than
//   `Field(discriminator=…)`: the same validation. LegacyOpt.path_suffix is a NonEmptyString, no
//   longer a naming schema (:468); the emulator keeps 25.10.1's check of it (README "Deviations left").
// - SMBShareAclEntry.ae_perm may read CUSTOM (:88-94), and `ae_who_str` leaves the docs.
// - presets, share_precheck, getacl, setacl, delete: unchanged models.

/** SharingSMBEntry (MW/api/v26_0_0/smb.py:915-1071): `dataset` and `relative_path` after `path`, `tier` last, as declared. */
const sharingSmbEntry26 = once(() =>
  extendAfter(smbShareEntry(), 'path', {
    dataset: z.string().nullable(),
    relative_path: z.string().nullable(),
  }).extend({ tier: tierInfo().nullable() }),
);
export type SharingSmbEntry26 = z.input<ReturnType<typeof sharingSmbEntry26>>;

const shares = crud(sharingSmbEntry26, () => z.int(), {
  read: roles('SHARING_SMB_READ'),
  write: roles('SHARING_SMB_WRITE'),
});
const base = sharingSmbContract;

export const sharingSmbContract26 = service('sharing.smb', {
  query: shares.query(base['sharing.smb.query'].summary),
  get_instance: shares.get_instance(base['sharing.smb.get_instance'].summary),
  create: shares.create(
    base['sharing.smb.create'].summary,
    'data',
    () => base['sharing.smb.create'].params[0].schema,
    sharingSmbEntry26,
  ),
  update: shares.update(
    base['sharing.smb.update'].summary,
    'data',
    () => base['sharing.smb.update'].params[1].schema,
    sharingSmbEntry26,
  ),
});
