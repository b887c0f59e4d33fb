import type { SmbShareEntry } from '../../contract/sharing-smb.js';
import type { SmbServiceEntry } from '../../contract/smb.js';
import type { SmbEntry26 } from '../../contract/v26_0_0/smb.js';
import { listSmbShares, readSmbConfigChanges, type SmbShareRecord } from '../../store/shares-smb.js';
import type { AccountsSnapshot } from '../accounts/accounts.js';
import { ERRNO, type ValidationTriple } from '../../errors.js';
import type { Appliance } from '../appliance.js';

// SMB shares and the SMB service's settings as the handlers (methods/sharing-smb.ts, methods/smb.ts)
// and pool.dataset.delete (methods/pool-dataset.ts) read them. No SMB server runs: what is kept is
// what 25.10.1 would keep and answer (README "Emulator behaviours").

/**
 * `path_location` (MW/utils/path.py:25-29): EXTERNAL or EXTERNAL:… is a DFS proxy's, the rest local.
 */
export const isExternalPath = (path: string) => path === 'EXTERNAL' || path.startsWith('EXTERNAL:');

/**
 * A share's entry (SharingSMBService.extend, MW/plugins/smb.py:1393-1469, and sharing_task_extend,
 * MW/service/sharing_service.py:92-106). `locked` is null unless asked for: a query whose `select`
 * leaves it out does not work it out (sharing_task_extend_context, :23-43). A dataset is never
 * locked in the emulator (no key is kept, methods/pool-dataset.ts), so a local share's is false,
 * as is an external one's (sharing_task_determine_locked, :82-90).
 */
export function smbShareEntryOf(share: SmbShareRecord, withLocked: boolean): SmbShareEntry {
  return {
    id: share.id,
    purpose: share.purpose as SmbShareEntry['purpose'],
    name: share.name,
    path: share.path,
    enabled: share.enabled,
    comment: share.comment,
    readonly: share.readonly,
    browsable: share.browsable,
    access_based_share_enumeration: share.access_based_share_enumeration,
    locked: withLocked ? false : null,
    audit: share.audit,
    options: share.options as SmbShareEntry['options'],
  };
}

/** Runs of Python's `str.isspace()` characters: what `str.split()` without arguments splits on. */
const PY_WHITESPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/**
 * A share's options as 25.10.1 keeps them: hostsallow and hostsdeny in text columns, each
 * joined with ' ' by `compress` (MW/plugins/smb.py:1511-1515) and split with `str.split()` by
 * `extend` (:1405-1408 and each purpose's case, :1417-1448), so an entry holding whitespace becomes its words
 * and an empty one goes.
 */
export function storedOptions(options: Record<string, unknown>): Record<string, unknown> {
  const out = { ...options };
  for (const key of ['hostsallow', 'hostsdeny'] as const) {
    const list = out[key];
    if (Array.isArray(list))
      out[key] = (list as string[])
        .join(' ')
        .split(PY_WHITESPACE)
        .filter((w) => w !== '');
  }
  return out;
}

/** Whether a query's options ask for `locked` (MW/service/sharing_service.py:23-43). */
export function asksLocked(options: unknown): boolean {
  const select = (options as { select?: unknown } | null)?.select;
  if (!Array.isArray(select) || select.length === 0) return true;
  return select.some((s) => s === 'locked' || (Array.isArray(s) && s[0] === 'locked'));
}

export function smbShareEntries(appliance: Appliance, withLocked = true): SmbShareEntry[] {
  return listSmbShares(appliance.store.db).map((s) => smbShareEntryOf(s, withLocked));
}

/**
 * The SMB service's settings, 25.10.1's and 26.0's together: `minimum_protocol` holds what 25.10.1
 * calls `enable_smb1` (SMB1 is on), as 26's migration carries it over.
 */
export type SmbSettings = Omit<SmbServiceEntry, 'enable_smb1'> &
  Pick<SmbEntry26, 'minimum_protocol' | 'search_protocols' | 'stateful_failover'>;

/**
 * The settings on a fresh install: the `services_cifs` row of a new 25.10.1 (MW/alembic/initial.sql:208
 * and the columns added since, each with its default: MW/plugins/smb.py:60-84) as `smb_extend`
 * answers it (MW/plugins/smb.py:108-117); 26's three new columns with theirs (MW/plugins/smb.py:83-89
 * at stable/26). The server SID is made at the SMB configuration's first start
 * (`smb.set_system_sid`); the emulator's is the one its local accounts' SIDs carry. Over them, what
 * smb.update changed.
 */
export function smbSettingsOf(appliance: Appliance, accounts: AccountsSnapshot = appliance.accounts()): SmbSettings {
  const defaults: SmbSettings = {
    id: 1,
    netbiosname: 'truenas',
    netbiosalias: [],
    workgroup: 'WORKGROUP',
    description: 'TrueNAS Server',
    minimum_protocol: 'SMB2',
    unixcharset: 'UTF-8',
    localmaster: true,
    syslog: false,
    aapl_extensions: false,
    search_protocols: [],
    admin_group: null,
    guest: 'nobody',
    filemask: 'DEFAULT',
    dirmask: 'DEFAULT',
    ntlmv1_auth: false,
    multichannel: false,
    encryption: 'DEFAULT',
    bindip: [],
    server_sid: accounts.serverSid,
    smb_options: '',
    debug: false,
    stateful_failover: false,
  };
  return { ...defaults, ...(readSmbConfigChanges(appliance.store.db) as Partial<SmbSettings>), id: 1 };
}

/** `smb.config` as 25.10.1 answers it (SmbServiceEntry, MW/api/v25_10_1/smb.py:133-199). */
export function smbConfigOf(appliance: Appliance, accounts?: AccountsSnapshot): SmbServiceEntry {
  const { minimum_protocol, search_protocols: _s, stateful_failover: _f, ...rest } = smbSettingsOf(appliance, accounts);
  const { id, netbiosname, netbiosalias, workgroup, description, ...more } = rest;
  return { id, netbiosname, netbiosalias, workgroup, description, enable_smb1: minimum_protocol === 'SMB1', ...more };
}

/**
 * `validate_aux_params` (MW/plugins/smb.py:1089-1135): `key = value` lines, no blacklisted key
 * (AUX_PARAM_BLACKLIST, MW/plugins/smb_/util_param.py:15-34). Samba's own check of a global
 * parameter's value (lpctx_validate_parm) needs Samba, and is not made.
 */
const AUX_PARAM_BLACKLIST = new Set([
  'state directory',
  'private directory',
  'lock directory',
  'lock dir',
  'config backend',
  'private dir',
  'log level',
  'cache directory',
  'clustering',
  'ctdb socket',
  'socket options',
  'include',
  'wide links',
  'insecure wide links',
  'zfs_core:zfs_block_cloning',
  'zfs_core:zfs_integrity_streams',
  'use sendfile',
  'vfs objects',
]);
/** Python's str.splitlines(): \r\n, or any one of its line boundaries (\n \r \v \f \x1c-\x1e \x85 \u2028 \u2029). */
function splitLines(text: string): string[] {
  const boundaries = new Set([0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029]);
  const lines: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!boundaries.has(c)) continue;
    lines.push(text.slice(start, i));
    if (c === 0x0d && text.charCodeAt(i + 1) === 0x0a) i++;
    start = i + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

export function auxParamErrors(text: string, schemaName: string): ValidationTriple[] {
  const errors: ValidationTriple[] = [];
  for (const entry of splitLines(text)) {
    if (entry === '' || entry.startsWith('#') || entry.startsWith(';')) continue;
    const at = entry.indexOf('=');
    if (at < 0) {
      errors.push([schemaName, `Auxiliary parameters must be in the format of "key = value": ${entry}`, ERRNO.EINVAL]);
      continue;
    }
    const key = entry.slice(0, at);
    if (AUX_PARAM_BLACKLIST.has(key.trim())) {
      errors.push([
        schemaName,
        `${key} is a blacklisted auxiliary parameter. Changes to this parameter are not permitted.`,
        ERRNO.EINVAL,
      ]);
    }
  }
  return errors;
}
