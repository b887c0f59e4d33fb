import { randomUUID } from 'node:crypto';
import {
  DEFAULT_SHARE_ACL,
  SMB_AUDIT_DEFAULTS,
  SMB_PURPOSE_ENUM_ORDER,
  sharingSmbContract,
  type SmbOptionsValue,
  type SmbShareAcl,
  type SmbShareCreate,
  type SmbShareEntry,
  type SmbShareUpdate,
} from '../../contract/sharing-smb.js';
import { sharingSmbContract26, type SharingSmbEntry26 } from '../../contract/v26_0_0/sharing-smb.js';
import { ERRNO, RpcError, rpcErrors, type ValidationTriple } from '../../errors.js';
import {
  deleteSmbShare,
  findSmbShare,
  insertSmbShare,
  listSmbShares,
  updateSmbShare,
  type NewSmbShare,
  type SmbShareRecord,
} from '../../store/shares-smb.js';
import { AccountsSnapshot } from '../accounts/accounts.js';
import type { Appliance } from '../appliance.js';
import { statEntry } from '../files/stat.js';
import { statfsOf } from '../files/statfs.js';
import { shareRefusalText } from '../../refusals/sharing.js';
import { implement, type CallContext } from '../method.js';
import { getInstance, query } from '../query/index.js';
import { casefold } from '../query/python.js';
import {
  asksLocked,
  auxParamErrors,
  isExternalPath,
  smbConfigOf,
  smbShareEntries,
  smbShareEntryOf,
  storedOptions,
} from '../shares/smb.js';
import { datasetOfPath } from '../shares/share-path.js';

// The handlers of contract/sharing-smb.ts, as SharingSMBService answers them (MW/plugins/smb.py:713-1714).
// Every check is 25.10.1's, in its order and words; what needs Samba (smb.conf, share_info.tdb,
// mDNS) is not run: the share and its ACL are stored, and nothing is served.

type Schema = 'sharingsmb_create' | 'sharingsmb_update';

/** A share as validate() reads it: the stored fields but its ACL, without an id while it is new. */
type ShareData = Omit<SmbShareRecord, 'id' | 'purpose' | 'share_acl'> & {
  id?: number;
  purpose: SmbShareEntry['purpose'];
};

/** The options as stored and answered: `purpose` is `Field(exclude=True)` (MW/api/v25_10_1/smb.py:281 and each model). */
function dumpOptions(options: SmbOptionsValue | null | undefined): Record<string, unknown> {
  if (!options) return {};
  const rest: Record<string, unknown> = { ...options };
  delete rest.purpose;
  return rest;
}

/** `filters = [['name', 'C=', name]]`: equal but for case (MW/utils/filter_list.py `C=`, casefold). */
const sameName = (a: string, b: string) => casefold(a) === casefold(b);

/** `is_time_machine_share` (MW/plugins/smb_/utils.py:63-70). */
function isTimeMachineShare(data: ShareData): boolean {
  if (data.purpose === 'TIMEMACHINE_SHARE') return true;
  if (data.purpose === 'LEGACY_SHARE') return data.options.timemachine === true;
  return false;
}

/** Whether an error thrown by filesystem.stat is its ENOENT `Path … not found` (MW/plugins/smb.py:1222-1227). */
const isNotFound = (err: unknown, path: string) =>
  err instanceof RpcError && err.data?.error === ERRNO.ENOENT && err.data.reason === `[ENOENT] Path ${path} not found`;

/**
 * `check_path_resides_within_volume_sync` (MW/validators.py:154-200): under /mnt/, and in a pool
 * once every link is followed. The `.zfs` control directory is not emulated.
 */
function residesInPool(appliance: Appliance, path: string): boolean {
  const [, mnt, pool] = path.split('/');
  if (!path.startsWith('/mnt/') || mnt !== 'mnt' || pool === undefined || !appliance.pools().includes(pool))
    return false;
  try {
    // The sandbox refuses a path whose links lead out of its pool (files/sandbox.ts).
    statEntry(appliance, path);
  } catch (err) {
    if (err instanceof RpcError && err.data?.error === ERRNO.EXDEV) return false;
  }
  return true;
}

/**
 * `validate_path_field` (MW/service/sharing_service.py:60-80) with SharingSMBService's
 * `validate_external_path` and `validate_local_path` (MW/plugins/smb.py:1207-1228), the latter
 * `validate_mount_info` (:1137-1205): a path that does not exist, or is a symbolic link. The rest of
 * validate_mount_info holds on every emulated path (ZFS, extended attributes on, no foreign child
 * mounts).
 */
function validatePathField(appliance: Appliance, data: ShareData, schema: Schema, errors: ValidationTriple[]): void {
  const name = `${schema}.path`;
  const path = data.path;
  if (isExternalPath(path)) {
    // MW/plugins/smb.py:1207-1210
    if (path !== 'EXTERNAL') errors.push([name, `${path}: Path must be set to "EXTERNAL"`, ERRNO.EINVAL]);
    return;
  }
  // MW/validators.py:189-193
  if (!residesInPool(appliance, path))
    errors.push([name, 'The path must reside within a pool mount point', ERRNO.EINVAL]);
  try {
    // MW/plugins/smb.py:1173-1176
    if (statEntry(appliance, path).type === 'SYMLINK')
      errors.push([name, shareRefusalText.smbSymlink(path), ERRNO.EINVAL]);
  } catch (err) {
    // MW/plugins/smb.py:1224-1228
    if (!isNotFound(err, path)) throw err;
    errors.push([name, 'Path does not exist.', ERRNO.EINVAL]);
  }
}

/**
 * `SharingSMBService.validate` (MW/plugins/smb.py:1251-1351), in its order. Two of its quirks are
 * 25.10.1's and kept: the second name check looks for a share named `name` (it is handed the
 * field's name, not the value, :1279-1280), and `old` is never passed, so an update is checked as
 * a create of the share's new state but for the first name check, which leaves out its own id.
 */
function validate(
  appliance: Appliance,
  accounts: AccountsSnapshot,
  shares: readonly SmbShareRecord[],
  data: ShareData,
  schema: Schema,
): ValidationTriple[] {
  const errors: ValidationTriple[] = [];
  const others = shares.filter((s) => s.id !== (data.id ?? 0));
  // MW/plugins/smb.py:1253-1254
  if (others.some((s) => sameName(s.name, data.name)))
    errors.push([`${schema}.name`, 'Share names are case-insensitive and must be unique', ERRNO.EINVAL]);

  // MW/plugins/smb.py:1256
  validatePathField(appliance, data, schema, errors);
  const timemachine = isTimeMachineShare(data);

  // MW/plugins/smb.py:1259-1288
  if (data.path && data.purpose !== 'EXTERNAL_SHARE') {
    if (data.path.startsWith('EXTERNAL')) {
      errors.push([
        `${schema}.path`,
        'External paths may only be set for shares with an EXTERNAL_SHARE purpose',
        ERRNO.EINVAL,
      ]);
    } else {
      // `filesystem.stat` unguarded: a path that does not exist ends the call with its CallError.
      const st = statEntry(appliance, data.path);
      if (data.options.acl === false && st.acl) {
        errors.push([
          `${schema}.acl`,
          `ACL detected on ${data.path}. ACLs must be stripped prior to creation of SMB share.`,
          ERRNO.EINVAL,
        ]);
      }
    }
    if (data.purpose === 'VEEAM_REPOSITORY_SHARE') {
      // `system.is_enterprise`: the emulator is no Enterprise system.
      errors.push([`${schema}.purpose`, 'Veeam repository shares require a TrueNAS enterprise license.', ERRNO.EINVAL]);
      // VEEAM_REPO_BLOCKSIZE (MW/plugins/smb_/constants.py:9) against filesystem.statfs's blocksize.
      if (statfsOf(appliance, data.path).blocksize !== 131072) {
        errors.push([
          `${schema}.path`,
          'The ZFS dataset recordsize property for a dataset used by a Veeam Repository SMB share must be set to 128 KiB.',
          ERRNO.EINVAL,
        ]);
      }
    }
  }

  // MW/plugins/smb.py:1288-1289 with validate_share_name (:1230-1239): `share_field.NAME`, the string 'name'.
  if (shares.some((s) => sameName(s.name, 'name')))
    errors.push([`${schema}.name`, 'Share with this name already exists.', ERRNO.EEXIST]);

  // MW/plugins/smb.py:1291-1297: mDNS service announcement is on in a fresh install's network
  // configuration, and the emulator has no other.

  const smbConfig = smbConfigOf(appliance, accounts);
  // MW/plugins/smb.py:1303-1330
  if (data.audit.enable) {
    if (smbConfig.enable_smb1)
      errors.push([
        `${schema}.audit.enable`,
        'SMB auditing is not supported if SMB1 protocol is enabled',
        ERRNO.EINVAL,
      ]);
    let hasLimit = false;
    for (const key of ['watch_list', 'ignore_list'] as const) {
      data.audit[key].forEach((group, idx) => {
        const g = accounts.groups.find((x) => x.name === group);
        if (!g) {
          errors.push([`${schema}.audit.${key}.${idx}`, `${group}: group does not exist.`, ERRNO.EINVAL]);
          return;
        }
        if (!accounts.groupEntry(g).sid)
          errors.push([`${schema}.audit.${key}.${idx}`, `${group}: not an SMB group.`, ERRNO.EINVAL]);
        hasLimit = true;
      });
    }
    if (!hasLimit) {
      errors.push([
        `${schema}.audit.enable`,
        'Watch list or ignore list is required to enable auditing for an SMB share.',
        ERRNO.EINVAL,
      ]);
    }
  }

  const aapl = shareRefusalText.appleExtensionsNeeded;
  // MW/plugins/smb.py:1329-1348
  if (data.options.afp && !smbConfig.aapl_extensions) errors.push([`${schema}.options.afp`, aapl, ERRNO.EINVAL]);
  if (timemachine && !smbConfig.aapl_extensions) errors.push([`${schema}.purpose`, aapl, ERRNO.EINVAL]);
  if (data.purpose === 'FCP_SHARE' && !smbConfig.aapl_extensions)
    errors.push([`${schema}.purpose`, aapl, ERRNO.EINVAL]);

  if (data.purpose === 'LEGACY_SHARE') {
    // legacy_share_validate (MW/plugins/smb.py:1241-1249), home_exists (:1377-1391) without `old`.
    if (data.options.home && shares.some((s) => s.options.home === true))
      errors.push([`${schema}.options.home`, 'Only one share is allowed to be a home share.', ERRNO.EINVAL]);
    const aux = data.options.auxsmbconf;
    if (typeof aux === 'string' && aux) {
      // validate_aux_params raises its own ValidationErrors: only its errors reach the caller.
      const auxErrors = auxParamErrors(aux, `${schema}.options.auxsmbconf`);
      if (auxErrors.length > 0) throw rpcErrors.validation(auxErrors);
    }
  }
  return errors;
}

/** `legacy_afp_check` (MW/plugins/smb.py:1019-1044): AFP compatibility agrees with shares on related paths. */
function legacyAfpErrors(shares: readonly SmbShareRecord[], data: ShareData, schema: Schema): ValidationTriple[] {
  const errors: ValidationTriple[] = [];
  const within = (a: string, b: string) => a === b || a.startsWith(b.endsWith('/') ? b : `${b}/`);
  for (const share of shares) {
    if (share.options.afp !== true || !share.enabled || share.id === data.id) continue;
    if ((data.options.afp ?? false) === true) continue;
    if (within(share.path, data.path) || within(data.path, share.path)) {
      errors.push([
        `${schema}.afp`,
        'Compatibility settings for legacy AFP shares (paths that once hosted AFP shares that have been converted to SMB shares) must be consistent with the legacy AFP compatibility settings of any existing SMB ' +
          `share that exports the same paths. The new share [${data.name}] conflicts with share [${share.name}] on path [${share.path}].`,
        ERRNO.EINVAL,
      ]);
    }
  }
  return errors;
}

const AUX_RESTRICTED =
  'Changes to auxiliary parameters for SMB shares are restricted to users with full administrative privileges.';

const UUID_RE = /^(urn:uuid:)?\{?[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\}?$/i;

function recordOf(data: ShareData): NewSmbShare {
  return {
    purpose: data.purpose,
    name: data.name,
    path: data.path,
    enabled: data.enabled,
    comment: data.comment,
    readonly: data.readonly,
    browsable: data.browsable,
    access_based_share_enumeration: data.access_based_share_enumeration,
    audit: data.audit,
    options: storedOptions(data.options),
    share_acl: null,
  };
}

function entryOf(appliance: Appliance, id: number): SmbShareEntry {
  const share = findSmbShare(appliance.store.db, id);
  if (!share) throw rpcErrors.instanceNotFound('SharingSMB', id);
  return smbShareEntryOf(share, true);
}

/** The share a getacl or setacl names: HOMES is the home share, any other name case-insensitively (MW/plugins/smb.py:1621-1633). */
function aclShare(shares: readonly SmbShareRecord[], shareName: string): SmbShareRecord | undefined {
  if (shareName.toUpperCase() === 'HOMES') return shares.find((s) => s.options.home === true);
  return shares.find((s) => sameName(s.name, shareName));
}

/**
 * getacl's entries (MW/plugins/smb.py:1674-1714): everyone is `everyone@`; a local SMB account's SID
 * its id and name, as idmap maps it; any other SID neither.
 */
function describeAcl(accounts: AccountsSnapshot, shareName: string, acl: SmbShareRecord['share_acl']): SmbShareAcl {
  const bySid = new Map<string, { id_type: 'USER' | 'GROUP'; id: number; name: string }>();
  for (const u of accounts.users) {
    const { sid } = accounts.userEntry(u, false);
    if (sid) bySid.set(sid, { id_type: 'USER', id: u.uid, name: u.username });
  }
  for (const g of accounts.groups) {
    const { sid } = accounts.groupEntry(g);
    if (sid) bySid.set(sid, { id_type: 'GROUP', id: g.gid, name: g.name });
  }
  const entries: readonly { ae_who_sid: string; ae_perm: string; ae_type: string }[] = acl ?? DEFAULT_SHARE_ACL;
  return {
    share_name: shareName,
    share_acl: entries.map((e) => {
      if (e.ae_who_sid === 'S-1-1-0') return { ...e, ae_who_id: null, ae_who_str: 'everyone@' };
      const mapped = bySid.get(e.ae_who_sid);
      if (!mapped) return { ...e, ae_who_id: null, ae_who_str: null };
      return { ...e, ae_who_id: { id_type: mapped.id_type, id: mapped.id }, ae_who_str: mapped.name };
    }) as SmbShareAcl['share_acl'],
  };
}

function shareDataOf(share: SmbShareRecord): ShareData {
  return { ...share, purpose: share.purpose as ShareData['purpose'] };
}

const fullAdmin = (ctx: CallContext) => ctx.session.isFullAdmin;

/** do_create (MW/plugins/smb.py:727-803): the new share's id. */
function createShare(ctx: CallContext, input: SmbShareCreate): number {
  const { store } = ctx.appliance;
  const data: ShareData = {
    ...input,
    // MW/plugins/smb.py:735-736
    audit: { ...SMB_AUDIT_DEFAULTS, ...input.audit },
    options: dumpOptions(input.options),
  };
  return store.write(() => {
    const errors: ValidationTriple[] = [];
    const aux = data.options.auxsmbconf;
    // MW/plugins/smb.py:739-747
    if (!fullAdmin(ctx) && aux) errors.push(['sharingsmb_create.options.auxsmbconf', AUX_RESTRICTED, ERRNO.EINVAL]);
    const shares = listSmbShares(store.db);
    const accounts = AccountsSnapshot.load(store.db);
    errors.push(...validate(ctx.appliance, accounts, shares, data, 'sharingsmb_create'));
    errors.push(...legacyAfpErrors(shares, data, 'sharingsmb_create'));
    if (errors.length > 0) throw rpcErrors.validation(errors);
    // MW/plugins/smb.py:754-761
    if (data.purpose === 'LEGACY_SHARE' || data.purpose === 'TIMEMACHINE_SHARE') {
      const vuid = data.options.vuid;
      if (!vuid) data.options.vuid = randomUUID();
      else if (typeof vuid !== 'string' || !UUID_RE.test(vuid))
        throw rpcErrors.validationOne('sharingsmb_create.options.vuid', 'Invalid UUID');
    }
    return insertSmbShare(store.db, recordOf(data));
  });
}

/** do_update (MW/plugins/smb.py:834-981), up to the stored change. */
function updateShare(ctx: CallContext, id: number, input: SmbShareUpdate): void {
  const { store } = ctx.appliance;
  store.write(() => {
    const oldShare = findSmbShare(store.db, id);
    if (!oldShare) throw rpcErrors.instanceNotFound('SharingSMB', id);
    const old = shareDataOf(oldShare);
    // MW/plugins/smb.py:848-850: the fields given replace the old; audit merges.
    const given = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as SmbShareUpdate;
    const { options: givenOptions, audit: givenAudit, ...fields } = given;
    const next: ShareData = {
      ...old,
      ...fields,
      options: 'options' in given ? dumpOptions(givenOptions) : { ...old.options },
      audit: { ...old.audit, ...(givenAudit ?? {}) },
      id,
    };
    const shares = listSmbShares(store.db);
    const accounts = AccountsSnapshot.load(store.db);
    const errors = [
      ...validate(ctx.appliance, accounts, shares, next, 'sharingsmb_update'),
      ...legacyAfpErrors(shares, next, 'sharingsmb_update'),
    ];
    // MW/plugins/smb.py:861-867
    if (!fullAdmin(ctx) && (old.options.auxsmbconf ?? null) !== (next.options.auxsmbconf ?? null))
      errors.push(['sharingsmb_update.options.auxsmbconf', AUX_RESTRICTED, ERRNO.EINVAL]);
    // MW/plugins/smb.py:869-884
    if (next.purpose === 'LEGACY_SHARE' || next.purpose === 'TIMEMACHINE_SHARE') {
      if ('vuid' in next.options && next.options.vuid === null) {
        // A null keeps the share's UUID; a share that had none gets one.
        next.options.vuid = old.options.vuid ? old.options.vuid : randomUUID();
      } else if ('vuid' in next.options) {
        const vuid = next.options.vuid;
        if (typeof vuid !== 'string' || !UUID_RE.test(vuid))
          errors.push(['sharingsmb_update.options.vuid', 'Invalid UUID', ERRNO.EINVAL]);
      }
    }
    if (errors.length > 0) throw rpcErrors.validation(errors);
    updateSmbShare(store.db, { ...recordOf(next), id, share_acl: oldShare.share_acl });
  });
}

export const sharingSmbMethods = [
  implement(sharingSmbContract['sharing.smb.query'], ({ appliance }, filters, options) =>
    query(smbShareEntries(appliance, asksLocked(options)), filters, options),
  ),
  implement(sharingSmbContract['sharing.smb.get_instance'], ({ appliance }, id, options) =>
    getInstance(smbShareEntries(appliance, asksLocked(options)), id, options, 'SharingSMB'),
  ),
  // do_create (MW/plugins/smb.py:727-803).
  implement(sharingSmbContract['sharing.smb.create'], (ctx, data) => entryOf(ctx.appliance, createShare(ctx, data))),
  // do_update (MW/plugins/smb.py:834-981).
  implement(sharingSmbContract['sharing.smb.update'], (ctx, id, data) => {
    updateShare(ctx, id, data);
    return entryOf(ctx.appliance, id);
  }),
  // do_delete (MW/plugins/smb.py:983-1017): the share's ACL goes with it (remove_share_acl).
  implement(sharingSmbContract['sharing.smb.delete'], ({ appliance: { store } }, id) =>
    store.write(() => {
      if (!findSmbShare(store.db, id)) throw rpcErrors.instanceNotFound('SharingSMB', id);
      deleteSmbShare(store.db, id);
      return true as const;
    }),
  ),
  // MW/plugins/smb.py:1531-1537: `{x.name: {'verbose_name': x.value} for x in SMBSharePurpose}`.
  implement(sharingSmbContract['sharing.smb.presets'], () =>
    Object.fromEntries(SMB_PURPOSE_ENUM_ORDER.map((p) => [p, { verbose_name: p }])),
  ),
  // MW/plugins/smb.py:1353-1375.
  implement(sharingSmbContract['sharing.smb.share_precheck'], ({ appliance }, data) => {
    const errors: ValidationTriple[] = [];
    const accounts = appliance.accounts();
    // No directory service is emulated (directoryservices.config's `enable` is false): a local SMB user is needed.
    if (!accounts.users.some((u) => u.smb)) {
      errors.push([
        'sharing.smb.share_precheck',
        'TrueNAS server must be joined to a directory service or have at least one local SMB user before creating an SMB share.',
        ERRNO.EINVAL,
      ]);
    }
    if (data.name !== null) {
      // validate_share_name (MW/plugins/smb.py:1230-1239), here handed the name itself.
      const name = data.name;
      if (listSmbShares(appliance.store.db).some((s) => sameName(s.name, name)))
        errors.push(['sharing.smb.share_precheck.name', 'Share with this name already exists.', ERRNO.EEXIST]);
    }
    if (errors.length > 0) throw rpcErrors.validation(errors);
    return null;
  }),
  // getacl (MW/plugins/smb.py:1651-1714).
  implement(sharingSmbContract['sharing.smb.getacl'], ({ appliance }, data) => {
    const share = aclShare(listSmbShares(appliance.store.db), data.share_name);
    if (!share) throw rpcErrors.validation([['sharing_smb_getacl.share_name', 'Share does not exist', ERRNO.EINVAL]]);
    return describeAcl(appliance.accounts(), data.share_name, share.share_acl);
  }),
  // setacl (MW/plugins/smb.py:1539-1649).
  implement(sharingSmbContract['sharing.smb.setacl'], ({ appliance }, data) => {
    const { store } = appliance;
    return store.write(() => {
      const accounts = AccountsSnapshot.load(store.db);
      const errors: ValidationTriple[] = [];
      const normalized: NonNullable<SmbShareRecord['share_acl']> = [];
      data.share_acl.forEach((entry, idx) => {
        const out = { ae_perm: entry.ae_perm, ae_type: entry.ae_type, ae_who_sid: entry.ae_who_sid };
        if (out.ae_who_sid) {
          // MW/plugins/smb.py:1583-1590 (SID_LOCAL_USER_PREFIX, SID_LOCAL_GROUP_PREFIX: MW/plugins/idmap_/idmap_constants.py:12-13)
          if (out.ae_who_sid.startsWith('S-1-22-1-') || out.ae_who_sid.startsWith('S-1-22-2-')) {
            errors.push([
              `sharing_smb_setacl.share_acl.${idx}.sid`,
              'SID entries for SMB Share ACLs may not be specially-encoded Unix User IDs or Groups.',
              ERRNO.EINVAL,
            ]);
          } else normalized.push({ ...out, ae_who_sid: out.ae_who_sid });
          return;
        }
        // MW/plugins/smb.py:1593: an entry naming its principal by ae_who_str alone reaches
        // `entry['ae_who_id']['id_type']` with ae_who_id None.
        if (!entry.ae_who_id) throw rpcErrors.exception('TypeError', "'NoneType' object is not subscriptable");
        const who = entry.ae_who_id;
        // MW/plugins/smb.py:1593-1608: user.query / group.query with `get`: none is MatchNotFound.
        const sid =
          who.id_type === 'USER'
            ? (() => {
                const u = accounts.users.find((x) => x.uid === who.id);
                if (!u) throw rpcErrors.matchNotFound();
                return accounts.userEntry(u, false).sid;
              })()
            : (() => {
                const g = accounts.groups.find((x) => x.gid === who.id);
                if (!g) throw rpcErrors.matchNotFound();
                return accounts.groupEntry(g).sid;
              })();
        if (sid === null) {
          errors.push([
            `sharing_smb_setacl.share_acl.${idx}.ae_who_id`,
            'User or group does must exist and be an SMB account.',
            ERRNO.EINVAL,
          ]);
          return;
        }
        normalized.push({ ...out, ae_who_sid: sid });
      });
      const shares = listSmbShares(store.db);
      const share = aclShare(shares, data.share_name);
      if (!share) errors.push(['smb_share_acl.share_name', 'Share does not exist', ERRNO.EINVAL]);
      if (errors.length > 0 || !share) throw rpcErrors.validation(errors);
      // MW/plugins/smb.py:1637-1648: an empty list removes the ACL (everyone, full control).
      updateSmbShare(store.db, { ...share, share_acl: normalized.length > 0 ? normalized : null });
      return describeAcl(accounts, data.share_name, normalized.length > 0 ? normalized : null);
    });
  }),
];

/**
 * 26.0's entry: `dataset` and `relative_path` as `resolve_dataset_path` finds them (stable/26
 * MW/plugins/smb.py:1308, MW/service/sharing_service.py:150-185, MW/utils/mount.py:20-115: the
 * normalized path's dataset and the rest, '' at its root; null for both through a symbolic link,
 * where nothing exists, and for an external share), `tier` null with tiering off.
 */
function entry26(appliance: Appliance, e: SmbShareEntry): SharingSmbEntry26 {
  if (isExternalPath(e.path)) return { ...e, dataset: null, relative_path: null, tier: null };
  return { ...e, ...datasetOfPath(appliance, e.path), tier: null };
}

/** 26.0's sharing.smb.* entries whose answers changed: 25.10.1's handlers, their entries extended. */
export const sharingSmbMethods26 = [
  implement(sharingSmbContract26['sharing.smb.query'], ({ appliance }, filters, options) =>
    query(
      smbShareEntries(appliance, asksLocked(options)).map((e) => entry26(appliance, e)),
      filters,
      options,
    ),
  ),
  implement(sharingSmbContract26['sharing.smb.get_instance'], ({ appliance }, id, options) =>
    getInstance(
      smbShareEntries(appliance, asksLocked(options)).map((e) => entry26(appliance, e)),
      id,
      options,
      'SharingSMB',
    ),
  ),
  implement(sharingSmbContract26['sharing.smb.create'], (ctx, data) =>
    entry26(ctx.appliance, entryOf(ctx.appliance, createShare(ctx, data))),
  ),
  implement(sharingSmbContract26['sharing.smb.update'], (ctx, id, data) => {
    updateShare(ctx, id, data);
    return entry26(ctx.appliance, entryOf(ctx.appliance, id));
  }),
];
