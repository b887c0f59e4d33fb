import { ERRNO, rpcErrors, type ValidationTriple } from '../../errors.js';
import type { GroupRecord } from '../../store/groups.js';
import type { UserRecord } from '../../store/users.js';
import { ALLOWED_BUILTIN_GIDS, type AccountsSnapshot } from './accounts.js';

/**
 * Checks user.* and group.* share with privilege rules (MW/plugins/account.py,
 * MW/plugins/account_/privilege.py, builtin_administrator.py).
 */

/** Directory-service accounts have API ids from here on (`BASE_SYNTHETIC_DATASTORE_ID`). */
export const BASE_SYNTHETIC_DATASTORE_ID = 100_000_000;

export const DEFAULT_HOME_PATH = '/var/empty';
export const NO_LOGIN_SHELL = '/usr/sbin/nologin';

/**
 * `get_password_enabled_users` (MW/plugins/account_/builtin_administrator.py:17-50): members of the
 * groups (primary or supplementary) other than `excludeUserId` that are neither locked nor
 * password-disabled and have a password (`unixhash_is_valid`, MW/plugins/account.py:129-130).
 */
export function hasPasswordEnabledUser(
  accounts: AccountsSnapshot,
  gids: readonly number[],
  excludeUserId: number,
): boolean {
  const groupIds = new Set(accounts.groups.filter((g) => gids.includes(g.gid)).map((g) => g.id));
  return accounts.users.some(
    (u) =>
      u.id !== excludeUserId &&
      (u.groups.some((id) => groupIds.has(id)) || groupIds.has(u.group_id)) &&
      !u.locked &&
      !u.password_disabled &&
      u.password_hash !== null,
  );
}

/**
 * `before_user_deactivation` (MW/plugins/account_/privilege.py:309-320): the error text whenever,
 * without this user, no grantee of a Local Administrator privilege is an unlocked user with a
 * password, whether or not this user was one; null otherwise. (The seed gives truenas_admin a
 * password, as an install does, so a fresh state has one: store/seed.ts.)
 */
export function deactivationRefusal(accounts: AccountsSnapshot, user: UserRecord, errorText: string): string | null {
  for (const p of accounts.privileges.filter((x) => x.builtin_name === 'LOCAL_ADMINISTRATOR')) {
    if (!hasPasswordEnabledUser(accounts, p.local_groups, user.id))
      return `${errorText} will have built-in privilege '${p.name}'.`;
  }
  return null;
}

/** `before_group_delete` (privilege.py:323-331). */
export function refuseIfPrivilegeUsesGroup(accounts: AccountsSnapshot, group: GroupRecord): void {
  const p = accounts.privileges.find((x) => x.local_groups.includes(group.gid));
  if (p) {
    throw rpcErrors.call(
      ERRNO.EACCES,
      `This group is used by privilege '${p.name}'. Please remove it from that privilege first, then delete the group.`,
    );
  }
}

/** `validate_sudo_commands` (account.py:132-165), as far as it needs no file system. */
export function validateSudoCommands(at: string, commands: readonly string[]): ValidationTriple[] {
  if (commands.includes('ALL') && commands.length !== 1) {
    return [[`${at}.${commands.indexOf('ALL')}`, 'ALL cannot be used with other commands', ERRNO.EINVAL]];
  }
  const errors: ValidationTriple[] = [];
  commands.forEach((command, i) => {
    const executable = command.trim().split(/\s+/)[0] ?? '';
    if (executable !== 'ALL' && !executable.startsWith('/'))
      errors.push([`${at}.${i}`, 'Executable must be an absolute path', ERRNO.EINVAL]);
  });
  return errors;
}

/** `user.shell_choices` (account.py:1112-1140) on an appliance whose /etc/shells is the stock one. */
export function shellChoices(accounts: AccountsSnapshot, groupIds: readonly number[]): string[] {
  const gids = groupIds.map((id) => accounts.groupById.get(id)?.gid).filter((g): g is number => g !== undefined);
  const privileged = accounts.privilegesForGids(gids).length > 0;
  return [
    NO_LOGIN_SHELL,
    ...(privileged ? ['/usr/bin/cli', '/usr/bin/cli_console'] : []),
    ...['bash', 'rbash', 'dash', 'sh', 'zsh', 'tmux'].map((s) => `/usr/bin/${s}`),
  ];
}

/** The membership rule for supplementary groups (account.py:1610-1630). */
export function validateGroupIds(
  at: (field: string) => string,
  groups: readonly number[],
  accounts: AccountsSnapshot,
): ValidationTriple[] {
  const errors: ValidationTriple[] = [];
  if (groups.length > 64)
    errors.push([at('groups'), 'A user cannot belong to more than 64 auxiliary groups.', ERRNO.EINVAL]);
  groups.forEach((id, i) => {
    const g = accounts.groupById.get(id);
    if (!g) errors.push([at(`groups.${i}`), 'This group does not exist.', ERRNO.EINVAL]);
    if (id >= BASE_SYNTHETIC_DATASTORE_ID) {
      errors.push([at(`groups.${i}`), 'Local users may not be members of directory services groups.', ERRNO.EINVAL]);
    }
    if (g?.builtin && !ALLOWED_BUILTIN_GIDS.has(g.gid)) {
      errors.push([at(`groups.${i}`), `${g.name}: membership of this builtin group may not be altered.`, ERRNO.EINVAL]);
    }
  });
  return errors;
}

/**
 * The root user's groups from 25.10.2 on: builtin_administrators, and nothing else
 * (TS-25.10.6 MW/plugins/account.py:1634-1658; stable/26 :1730-1753).
 */
export function validateRootGroups(
  at: string,
  groups: readonly number[],
  accounts: AccountsSnapshot,
): ValidationTriple[] {
  const admins = accounts.groups.find((g) => g.name === 'builtin_administrators')?.id;
  const errors: ValidationTriple[] = [];
  if (admins === undefined || !groups.includes(admins))
    errors.push([at, 'The root user must remain a member of the builtin_administrators group.', ERRNO.EINVAL]);
  if (groups.length !== 1 || groups[0] !== admins)
    errors.push([at, 'The root user may only be a member of the builtin_administrators group.', ERRNO.EINVAL]);
  return errors;
}

/** `pyRepr` of the two characters full_name refuses. */
const ILLEGAL_FULL_NAME: readonly [string, string][] = [
  [':', "':'"],
  ['\n', "'\\n'"],
];

export function validateFullName(at: string, fullName: string): ValidationTriple[] {
  return ILLEGAL_FULL_NAME.filter(([c]) => fullName.includes(c)).map(([, repr]) => [
    at,
    `The ${repr} character is not allowed.`,
    ERRNO.EINVAL,
  ]);
}

/** `home_mode`: an octal mode the owner can read and enter (account.py:1593-1608). */
export function validateHomeMode(at: string, mode: string): ValidationTriple[] {
  const o = /^[0-7]+$/.test(mode) ? parseInt(mode, 8) : NaN;
  if (!Number.isInteger(o) || (o & 0o777) !== o)
    return [[at, 'Please provide a valid value for home_mode attribute', ERRNO.EINVAL]];
  const errors: ValidationTriple[] = [];
  if ((o & 0o400) === 0) errors.push([at, 'Home directory must be readable by User.', ERRNO.EINVAL]);
  if ((o & 0o100) === 0) errors.push([at, 'Home directory must be executable by User.', ERRNO.EINVAL]);
  return errors;
}

/**
 * `validate_homedir_path` (account.py:467-553) without the file-system probes (existence, ZFS,
 * immutability): the path rules, who else uses it, and that it lies in a pool. Returns whether the
 * path counts as a usable home directory.
 */
export function validateHome(
  at: string,
  data: { home: string; home_create?: boolean },
  others: readonly UserRecord[],
  pools: readonly string[],
  errors: ValidationTriple[],
): boolean {
  const home = data.home;
  const refuse = (message: string) => {
    errors.push([at, message, ERRNO.EINVAL]);
    return false;
  };
  if (!home.startsWith('/')) return refuse('"Home Directory" must be an absolute path.');
  if (home.includes(':')) return refuse('"Home Directory" cannot contain colons (:).');
  if (home === DEFAULT_HOME_PATH) return false;
  const before = errors.length;
  const owner = others.find((u) => u.home === home);
  if (owner) errors.push([at, `${home}: homedir already used by ${owner.username}.`, ERRNO.EEXIST]);
  if (!home.startsWith('/mnt'))
    errors.push([at, `"Home Directory" must begin with /mnt or set to ${DEFAULT_HOME_PATH}.`, ERRNO.EINVAL]);
  else if (home === '/mnt' || home === '/mnt/')
    errors.push([at, '"Home Directory" cannot be at root of "/mnt"', ERRNO.EINVAL]);
  if (errors.length > before) return false;
  const trimmed = home.replace(/\/+$/, '');
  if (!pools.some((p) => trimmed === `/mnt/${p}` || trimmed.startsWith(`/mnt/${p}/`))) {
    errors.push([at, `The path for the home directory "(${home})" must include a volume or dataset.`, ERRNO.EINVAL]);
  } else if (trimmed.split('/').length === 3 && !data.home_create) {
    errors.push([at, `The specified path is a ZFS pool mountpoint "(${home})".`, ERRNO.EINVAL]);
  }
  return errors.length === before;
}
