import { ERRNO, rpcErrors, type RpcError, type ValidationTriple } from '../errors.js';

/**
 * How sharing.nfs.create/update and sharing.smb.create/update refuse, in 25.10.1's words: the
 * emulator's NFS checks throw these (src/core/appliance/shares/nfs-checks.ts; its SMB and path
 * checks still word their own), and `stor share … --dry-run` predicts them from reads
 * (src/commands/share/write.ts).
 */

/** `sharingnfs_create` / `sharingsmb_update`, …: the schema a validation error names its fields by. */
export type ShareSchema = 'sharingnfs_create' | 'sharingnfs_update' | 'sharingsmb_create' | 'sharingsmb_update';

export const shareRefusalText = {
  /** MW/validators.py:189-193 (check_path_resides_within_volume). */
  outsidePool: 'The path must reside within a pool mount point',
  /** MW/plugins/nfs_/validators.py:23-55 (sanitize_networks). */
  badNetworks: (invalid: readonly string[]) =>
    `The following do not appear to be valid IPv4 or IPv6 networks: ${invalid.join(', ')}`,
  /** MW/plugins/nfs_/validators.py:58-89 (sanitize_hosts). */
  badHosts: (invalid: readonly string[]) => `Cannot contain spaces or quotes: ${invalid.join(', ')}`,
  /** MW/plugins/nfs.py:908-915 (validate_share_path). */
  nfsSymlink: (path: string) => `Symbolic links are not allowed: ${path}.`,
  /** MW/plugins/smb.py:1173-1176 (validate_mount_info). */
  smbSymlink: (path: string) => `${path}: is symbolic link.`,
  /** MW/plugins/smb.py:1336-1348: Time Machine and Final Cut Pro shares need smb.config's aapl_extensions. */
  appleExtensionsNeeded:
    'Apple SMB2/3 protocol extension support is required by this parameter. This feature may be enabled in the general SMB server configuration.',
  /** MW/plugins/smb.py:1253-1254. */
  smbNameTaken: 'Share names are case-insensitive and must be unique',
};

/** The validation error the method raises for these `[field, message]` pairs, fields below `schema`. */
export function shareRefusal(schema: ShareSchema, found: readonly [field: string, message: string][]): RpcError {
  return rpcErrors.validation(found.map(([f, m]): ValidationTriple => [`${schema}.${f}`, m, ERRNO.EINVAL]));
}

/** Python's `str.isspace()` characters and the double quote: `re.compile(r'.*[\s"]')` (MW/plugins/nfs_/validators.py:60). */
export const HOST_SPACE_OR_QUOTE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"]/;
