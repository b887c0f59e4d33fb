import type { MethodContract } from '../contract/method.js';
import type { RoleCatalogue } from '../roles/index.js';

/** The releases stor emulates and judges by name (docs/RELEASES.md "Supported releases"). */
export const RELEASE_NAMES = ['25.10.1', '25.10.6', '25.10.7', '26.0'] as const;
export type ReleaseName = (typeof RELEASE_NAMES)[number];

/**
 * One TrueNAS release as stor knows it, read from that release's source: what the emulator
 * answers as it and what the client judges a target of it by. One file per release beside this one.
 */
export interface Release {
  name: ReleaseName;
  /** The middleware ref it was read from (a tag, or a branch or commit where the release has no tag yet). */
  source: string;
  /** `system.version_short` (MW/plugins/system/product.py `sw_info().version`). */
  versionShort: string;
  /** `system.version` (`sw_info().fullname`). */
  version: string;
  /**
   * `GET /api/versions`, in its order: every `MW/api/v*` directory with an `__init__.py`, sorted,
   * v24.10 left out (MW/main.py:168-184, :1300-1304). Each is also a WebSocket path `/api/<v>`.
   */
  apiVersions: readonly string[];
  /** Served as `/api/<v>` though `/api/versions` leaves it out (MW/main.py:1302 filters v24.10 from the list only). */
  unlistedApiVersions: readonly string[];
  /** Its role catalogue (MW/role.py `ROLES`). */
  catalogue(): RoleCatalogue;
  /** Its contract: 25.10.1's entries, with the release's overrides where its models changed. */
  contract(): ReadonlyMap<string, MethodContract>;
  /** Whether PRIVILEGE_WRITE includes itself in its MW/role.py (and so breaks login). */
  privilegeWriteIncludesItself: boolean;
  /**
   * How an API key logs in on it: `plain` (the key in `auth.login_ex` API_KEY_PLAIN, 25.10.x) or
   * `scram` (SCRAM-SHA-512, 26.0: its contract holds the SCRAM entries, CONTRACT_26_0_0_SCRAM).
   * The emulator's `keyLogin` setting may choose the other (`contractFor`).
   */
  keyLogin: 'plain' | 'scram';
  /**
   * Whether root may be a member of builtin_administrators only and may not leave it (user.update's
   * `groups`, group.create/update's `users`): from 25.10.2 on (TS-25.10.6 MW/plugins/account.py:1634-1658,
   * 2439-2451, 2485-2494; stable/26 :1730-1753, 2620-2632, 2665-2674); 25.10.1 has no such rule.
   */
  rootGroupRules: boolean;
  /**
   * Whether filesystem.statfs, put and get open their path with openat2's RESOLVE_NO_SYMLINKS, so
   * a symlink anywhere on it fails (statfs: `CallError('Symlinks are not permitted.', ELOOP)`,
   * put/get: safe_open's OSError ELOOP): 26.0 (stable/26 MW/plugins/filesystem.py:575, :610,
   * :630-649); 25.10.x opens with os.open/open, following them.
   */
  noSymlinkPaths: boolean;
  /**
   * Whether user.set_password raises its ValidationErrors at once for a user that does not exist
   * (stable/26 MW/plugins/account.py:1943-1948); before, it went on to a TypeError (TS-26.0.0-BETA.3
   * :1940-1950, TS-25.10.1 :1804-1843).
   */
  setPasswordRefusesUnknownUser: boolean;
  /**
   * Whether pool.query's entries carry `all_sed` and a typed `scan`, `null` for a pool no scan ever
   * ran on (stable/26 MW/api/v26_0_0/pool.py:40-45, MW/plugins/zpool/query_impl.py:67-79); 25.10.x
   * has no `all_sed` and py-libzfs's scan dict, every value null (MW/api/v25_10_1/pool.py:66-79).
   */
  poolEntryAllSed: boolean;
  /**
   * Whether pool.dataset.create checks each `user_properties` key: managed by TrueNAS, a valid ZFS
   * user property name, given once (stable/26 MW/plugins/pool_/dataset.py:351-366); 25.10.x checks
   * update's only (TS-25.10.1 :357-378, the same in TS-25.10.6 and release/25.10.7).
   */
  createChecksUserProperties: boolean;
  /**
   * Whether pool.snapshot.query refuses `extra.retention` without an `id` filter or a `limit`
   * (`[EINVAL] \`id\` or \`limit\` is required if \`retention\` is requested`, TS-25.10.1
   * MW/plugins/zfs_/snapshot.py:104-106, the same at TS-25.10.6 and release/25.10.7); 26.0's query
   * annotates whatever it found (stable/26 MW/plugins/pool_/snapshot.py:243-290).
   */
  retentionNeedsIdOrLimit: boolean;
  /**
   * Whether pool.snapshot.hold/release/delete go through zfs.resource.snapshot (stable/26
   * MW/plugins/pool_/snapshot.py:66-90, 373-392): its exceptions and ValidationErrors, where
   * 25.10.x's zfs.snapshot raises `Failed to hold snapshot: …` CallErrors (MW/plugins/zfs_/snapshot_actions.py).
   */
  snapshotActionsThroughZfsResource: boolean;
  /**
   * The keys of a core.get_methods entry: 25.10's (`item_method`, `require_websocket`; TS-25.10.1
   * MW/service/core_service.py:364-380) or 26.0's, built once for its methods cache
   * (`no_authz_required`, `cli_private`; stable/26 MW/service/core_service.py:362-378).
   */
  getMethodsEntry: '25.10' | '26.0';
  /**
   * The methods of stor's marked `cli_private` in their decorator, which core.get_methods' CLI
   * target leaves out (TS-25.10.1 MW/service/core_service.py:308-309; stable/26 :413-414).
   */
  cliPrivateMethods: readonly string[];
  /**
   * Whether validate_model joins a union's members' errors whose location ends in a tag with `[`
   * or `(` (`literal['INHERIT']`) into one under the union, after the others (stable/26 and
   * TS-26.0.0-BETA.3 MW/api/base/handler/accept.py:112-133); 25.10.x lists each under its tag
   * (TS-25.10.1 :70-84, the same at TS-25.10.6 and release/25.10.7). appliance/params.ts words them.
   */
  joinUnionErrors: boolean;
  /**
   * The Python its middleware runs on, whose `re` compiles a `~` filter's pattern (its refusals'
   * words and exception class, appliance/query/python.ts): 3.11 on 25.10.x (Debian bookworm's; its
   * MW/.github/workflows/lint.yml:27 sets up 3.11 at TS-25.10.1 and TS-25.10.6), 3.13 on 26.0
   * (Debian trixie's, stable/26 MW/utils/timezone_choices.py:50; lint.yml:27 sets up 3.13 and
   * MW/utils/threading.py:117 relies on "py3.13+").
   */
  python: '3.11' | '3.13';
}
