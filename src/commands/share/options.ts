import { flag, list, value } from '../framework/declare.js';
import { NFS_SHARE_DEFAULTS } from '../../core/contract/sharing-nfs.js';
import { SMB_SHARE_DEFAULTS } from '../../core/contract/sharing-smb.js';
import { storedNetwork } from '../../core/net/ip-network.js';
import { casefold, type Share, type ShareKind } from './model.js';

/** `Literal["SYS", "KRB5", "KRB5I", "KRB5P"]` (MW/api/v25_10_1/nfs.py). */
const NFS_SECURITY = ['SYS', 'KRB5', 'KRB5I', 'KRB5P'];

/** The NFS share's settings, as `share nfs create` and `share update` take them. */
export const nfsOptions = {
  networks: list('<cidr,…>', 'only these networks may mount it (10.0.0.0/24); none: every network'),
  hosts: list('<host,…>', 'only these hosts may mount it (names or addresses); none: every host'),
  maprootUser: value('<user>', 'root on a client is this user'),
  maprootGroup: value('<group>', "root's group on a client is this group"),
  mapallUser: value('<user>', 'every client user is this user'),
  mapallGroup: value('<group>', "every client user's group is this group"),
  security: list('<flavor,…>', `security flavors: ${NFS_SECURITY.join(', ')} (KRB5* need NFSv4)`, {
    suggest: NFS_SECURITY,
  }),
};

/** The SMB share's settings, as `share smb create` and `share update` take them. */
export const smbOptions = {
  purpose: value('<purpose>', 'DEFAULT_SHARE, MULTIPROTOCOL_SHARE, TIMEMACHINE_SHARE, … (`sharing.smb.presets`)', {
    complete: 'smb-purpose',
  }),
};

export const commonCreateOptions = {
  ro: flag('read-only: clients may not write'),
  comment: value('<text>', 'a comment stored with the share'),
  disabled: flag('create it disabled: not shared until `stor share enable`'),
  existOk: flag(
    'exit 0 when the share is there as asked, changing nothing (for re-run scripts); one that differs is an error',
  ),
  dryRun: flag('say what would be created and whether the appliance would refuse; change nothing'),
};

/** Every setting either kind's create takes, as flags give them (undefined: not given). */
export interface ShareSettings {
  networks?: string[];
  hosts?: string[];
  maprootUser?: string;
  maprootGroup?: string;
  mapallUser?: string;
  mapallGroup?: string;
  security?: string[];
  purpose?: string;
  ro?: boolean;
  browsable?: boolean;
  comment?: string;
  /** Undefined: not said; create's `--disabled` flag is false when not given. */
  disabled?: boolean;
  path?: string;
  name?: string;
}

/** The flags of one kind only, by their command-line names, for refusing the other kind's. */
export const KIND_ONLY: Record<ShareKind, readonly (keyof ShareSettings)[]> = {
  nfs: ['networks', 'hosts', 'maprootUser', 'maprootGroup', 'mapallUser', 'mapallGroup', 'security'],
  smb: ['purpose', 'browsable', 'name'],
};

/** The appliance's fields for the settings given, as the share would store them (networks in CIDR form). */
export function fieldsOf(kind: ShareKind, s: ShareSettings): Record<string, unknown> {
  const f: Record<string, unknown> =
    kind === 'nfs'
      ? {
          path: s.path,
          networks: s.networks?.map(storedNetwork),
          hosts: s.hosts,
          ro: s.ro,
          maproot_user: s.maprootUser,
          maproot_group: s.maprootGroup,
          mapall_user: s.mapallUser,
          mapall_group: s.mapallGroup,
          security: s.security?.map((x) => x.toUpperCase()),
        }
      : {
          name: s.name,
          path: s.path,
          purpose: s.purpose?.toUpperCase(),
          readonly: s.ro,
          browsable: s.browsable,
        };
  f.comment = s.comment;
  f.enabled = s.disabled === undefined ? undefined : !s.disabled;
  return Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined));
}

/** What a create makes when a setting is not given: the create models' defaults (MW/api/v25_10_1/nfs.py, smb.py). */
export const CREATE_DEFAULTS: Record<ShareKind, Record<string, unknown>> = {
  nfs: NFS_SHARE_DEFAULTS,
  smb: SMB_SHARE_DEFAULTS,
};

/** Whether `share` is the one a create of `kind` with these settings names: the same path (NFS) or name in any case (SMB). */
export const namedBy = (kind: ShareKind, share: Share, s: ShareSettings): boolean =>
  share.kind === kind &&
  (share.kind === 'smb' ? casefold(share.name) === casefold(s.name ?? '') : share.path === s.path);
