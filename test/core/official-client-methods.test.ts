/**
 * Every method of a release's contract through the official client:
 * against `stor serve --emulate truenas-25.10.1`, `truenas-25.10.7` and `truenas-26.0`, each method is
 * called the way `midclt call` calls it (`truenas_api_client.Client.call`, truenas/api_client at
 * TS-25.10.1), once with a valid argument and once with an invalid one. The valid call must answer
 * what the release's result schema (the contract's zod schema) accepts, with no field the release
 * lacks; the invalid one must fail with the release's error as midclt prints it: a -32602
 * `ValidationErrors` (`[EINVAL] attribute: message`, MW/api/base/handler/accept.py:49,
 * MW/api/base/server/ws_handler/rpc.py:122-127) or the method's own CallError reason.
 *
 * The calls run in one Python process (official-client-methods.py beside this file, which prints
 * an error the way `midclt call` does before it exits 1; two are checked against midclt itself), in
 * the table's order: the objects later calls need (a user, a group, a dataset, a snapshot…) are made
 * by earlier valid calls, and each invalid call runs before its valid one.
 *
 * Needs STOR_TEST_API_CLIENT (a PYTHONPATH giving `truenas_api_client` and websocket-client ≥ 1.3.2,
 * docs/NODE.md "SQLite, CI and other majors"); without it the tests are skipped, saying why.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../src/core/appliance/settings.js';
import { contractViolations } from '../../src/core/contract/conformance.js';
import { contractFor, type ReleaseName } from '../../src/core/releases/index.js';
import { serviceNamespaceContract } from '../../src/core/contract/service-namespace.js';
import { startTestServer } from '../helpers/server.js';
import {
  KEYCHAIN_METHODS,
  NFS_METHODS,
  REPLICATION_METHODS,
  SNAPSHOT_TASK_METHODS,
  findClient,
  midclt,
  runClient,
  type Outcome,
} from '../conformance/official-client.js';

const client = findClient();

/** An earlier call's result (or a field of it), filled in by the runner. */
const ref = (label: string, ...path: (string | number)[]) => ({ $ref: label, path });
/** The current TOTP code for the secret of an `otpauth://` URI an earlier call answered. */
const totp = (uri: ReturnType<typeof ref>) => ({ $totp: uri });

/** What midclt prints for a -32602: one `[EINVAL] attribute: message` line per error (truenas_api_client/exc.py:88-109). */
const invalid = (...pairs: [string, string][]) => ({
  class: 'ValidationErrors',
  stderr: pairs.map(([a, m]) => `[EINVAL] ${a || 'ALL'}: ${m}`).join('\n'),
});
/** Too many positional arguments (MW/api/base/handler/accept.py:49). */
const tooMany = (expected: number, found = expected + 1) =>
  invalid(['', `Too many arguments (expected ${expected}, found ${found})`]);
/** InstanceNotFound: a ValidationError with no attribute and ENOENT (MW/service_exception.py:115-118, MW/service/crud_service.py:242), sent as -32602. */
const notFound = (message: string) => ({ class: 'ValidationErrors', stderr: `[ENOENT] ALL: ${message}` });
/** A CallError: midclt prints its reason first, then the trace (truenas_api_client/__init__.py:1083-1091). */
const callError = (errno: number, reason: string) => ({ class: 'ClientException', errno, reason });

type Expected = ReturnType<typeof invalid> | ReturnType<typeof callError>;

interface Case {
  method: string;
  valid: unknown[];
  bad: unknown[];
  error: Expected;
  /**
   * 26.0's error where its models differ from 25.10.1's. 25.10.7 (its /api/current is v25_10_5 on
   * release/25.10.7) has 25.10.1's for every model used here: their diff only reworded docs and
   * examples for these (api/v25_10_5/{core,pool,pool_dataset,pool_snapshot}.py).
   */
  error26?: Expected;
  /** Waits for the job's result (`midclt call -j`), which is what the contract's result describes. */
  job?: boolean;
  /** `admin` (the shared connection, logged in with the key), `key` (a new one, logged in), `anonymous` (a new one). */
  session?: 'admin' | 'key' | 'anonymous';
  /** Calls made first on the same connection (for login_ex_continue). */
  pre?: [string, unknown[]][];
  /** What the valid call must answer beyond its schema (matched as toMatchObject matches). */
  answers?: unknown;
  /** Releases it runs against; all when absent. */
  only?: ReleaseName[];
}

const PASSWORD = 'Midclt horse-battery 1';
const NEW_PASSWORD = 'Midclt horse-battery 2';

/** In call order: objects are made before the calls that need them and removed after. */
const CASES: Case[] = [
  { method: 'core.ping', valid: [], bad: [1], error: tooMany(0), answers: 'pong' },
  // CoreOptions ignores keys it does not know (MW/api/v25_10_1/core.py:291-298); a wrong type is refused.
  {
    method: 'core.set_options',
    valid: [{ legacy_jobs: true }],
    bad: [{ legacy_jobs: 'yes' }],
    error: invalid(['options.legacy_jobs', 'Input should be a valid boolean']),
    session: 'key',
  },
  { method: 'core.get_methods', valid: [], bad: [1], error: invalid(['service', 'Input should be a valid string']) },
  { method: 'system.version_short', valid: [], bad: [1], error: tooMany(0) },
  { method: 'system.version', valid: [], bad: [1], error: tooMany(0) },
  { method: 'system.info', valid: [], bad: [1], error: tooMany(0) },
  { method: 'system.boot_id', valid: [], bad: [1], error: tooMany(0) },
  { method: 'system.host_id', valid: [], bad: [1], error: tooMany(0) },
  { method: 'stor.emulation', valid: [], bad: [1], error: tooMany(0) },
  { method: 'alert.list', valid: [], bad: [1], error: tooMany(0), answers: [] },
  // Logged in: before login 25.10.1 reads `app.authenticated_credentials.may_create_auth_token` of None
  // and fails with an AttributeError (MW/plugins/auth.py:640), which the emulator copies.
  { method: 'auth.mechanism_choices', valid: [], bad: [1], error: tooMany(0) },
  { method: 'auth.me', valid: [], bad: [1], error: tooMany(0) },
  { method: 'auth.sessions', valid: [], bad: ['x'], error: invalid(['filters', 'Input should be a valid list']) },
  { method: 'auth.twofactor.config', valid: [], bad: [1], error: tooMany(0) },
  // An id no session has: false (MW/plugins/auth.py:307-309). Terminating the others leaves the caller's.
  {
    method: 'auth.terminate_session',
    valid: ['no-such-session'],
    bad: [1],
    error: invalid(['id', 'Input should be a valid string']),
    answers: false,
  },
  { method: 'auth.terminate_other_sessions', valid: [], bad: [1], error: tooMany(0), answers: true },
  { method: 'privilege.roles', valid: [], bad: ['x'], error: invalid(['filters', 'Input should be a valid list']) },
  { method: 'pool.query', valid: [], bad: ['x'], error: invalid(['filters', 'Input should be a valid list']) },
  {
    method: 'pool.get_instance',
    valid: [ref('pool.query', 0, 'id')],
    bad: ['x'],
    error: invalid(['id', 'Input should be a valid integer']),
  },
  {
    method: 'core.subscribe',
    valid: ['user.query'],
    bad: [1],
    error: invalid(['event', 'Input should be a valid string']),
  },
  {
    method: 'core.unsubscribe',
    valid: [ref('core.subscribe')],
    bad: [1],
    error: invalid(['id_', 'Input should be a valid string']),
  },

  // Accounts: a group, a user with a password in it, a privilege for the group, an API key.
  {
    method: 'group.create',
    valid: [{ name: 'midcltg' }],
    bad: [{}],
    error: invalid(['group_create.name', 'Field required']),
  },
  { method: 'group.query', valid: [], bad: ['x'], error: invalid(['filters', 'Input should be a valid list']) },
  {
    method: 'group.get_instance',
    valid: [ref('group.create')],
    bad: ['x'],
    error: invalid(['id', 'Input should be a valid integer']),
  },
  {
    method: 'group.update',
    valid: [ref('group.create'), { name: 'midcltg2' }],
    bad: [ref('group.create'), { gid: 3000 }],
    error: invalid(['group_update.gid', 'Extra inputs are not permitted']),
  },
  {
    method: 'user.create',
    valid: [
      { username: 'midclt1', full_name: 'Midclt One', group: ref('group.create'), password: PASSWORD, smb: false },
    ],
    bad: [{ username: 'midclt1' }],
    error: invalid(['user_create.full_name', 'Field required']),
  },
  { method: 'user.query', valid: [], bad: ['x'], error: invalid(['filters', 'Input should be a valid list']) },
  { method: 'user.get_next_uid', valid: [], bad: [1], error: tooMany(0) },
  { method: 'group.get_next_gid', valid: [], bad: [1], error: tooMany(0) },
  {
    method: 'user.shell_choices',
    valid: [[ref('group.create')]],
    bad: ['x'],
    error: invalid(['group_ids', 'Input should be a valid list']),
  },
  {
    method: 'user.get_instance',
    valid: [ref('user.create', 'id')],
    bad: ['x'],
    error: invalid(['id', 'Input should be a valid integer']),
  },
  {
    method: 'user.update',
    valid: [ref('user.create', 'id'), { full_name: 'Midclt Uno' }],
    bad: [ref('user.create', 'id'), { uid: 3000 }],
    error: invalid(['user_update.uid', 'Extra inputs are not permitted']),
  },
  {
    method: 'user.set_password',
    valid: [{ username: 'midclt1', old_password: PASSWORD, new_password: NEW_PASSWORD }],
    bad: [{ username: 'midclt1' }],
    error: invalid(['set_password_data.new_password', 'Field required']),
  },
  // A privilege for the group, so its user may log in (a user without one gets AUTH_ERR, MW/plugins/auth.py).
  {
    method: 'privilege.create',
    valid: [
      {
        name: 'midclt-priv',
        local_groups: [ref('group.get_instance', 'gid')],
        roles: ['READONLY_ADMIN'],
        web_shell: false,
      },
    ],
    bad: [{ name: 'midclt-priv' }],
    error: invalid(['privilege_create.web_shell', 'Field required']),
  },
  { method: 'privilege.query', valid: [], bad: ['x'], error: invalid(['filters', 'Input should be a valid list']) },
  {
    method: 'privilege.get_instance',
    valid: [ref('privilege.create', 'id')],
    bad: ['x'],
    error: invalid(['id', 'Input should be a valid integer']),
  },
  {
    method: 'privilege.update',
    valid: [ref('privilege.create', 'id'), { roles: ['SHARING_ADMIN'] }],
    bad: [ref('privilege.create', 'id'), { bogus: 1 }],
    error: invalid(['privilege_update.bogus', 'Extra inputs are not permitted']),
  },
  {
    method: 'auth.login',
    answers: true,
    valid: ['midclt1', NEW_PASSWORD],
    bad: [1, 2],
    error: invalid(['username', 'Input should be a valid string'], ['password', 'Input should be a valid string']),
    session: 'anonymous',
  },
  {
    method: 'auth.login_with_api_key',
    answers: true,
    valid: [{ $key: true }],
    bad: [1],
    error: invalid(['api_key', 'Input should be a valid string']),
    session: 'anonymous',
  },
  {
    method: 'auth.login_ex',
    answers: { response_type: 'SUCCESS' },
    valid: [{ mechanism: 'PASSWORD_PLAIN', username: 'midclt1', password: NEW_PASSWORD }],
    bad: [{ mechanism: 'BOGUS' }],
    error: invalid([
      'login_data',
      "Input tag 'BOGUS' found using 'mechanism' does not match any of the expected tags: 'API_KEY_PLAIN', 'PASSWORD_PLAIN', 'TOKEN_PLAIN', 'OTP_TOKEN'",
    ]),
    // 26 adds SCRAM to AuthLoginExArgs' union (MW/api/v26_0_0/auth.py at stable/26).
    error26: invalid([
      'login_data',
      "Input tag 'BOGUS' found using 'mechanism' does not match any of the expected tags: 'API_KEY_PLAIN', 'PASSWORD_PLAIN', 'TOKEN_PLAIN', 'OTP_TOKEN', 'SCRAM'",
    ]),
    session: 'anonymous',
  },
  {
    method: 'auth.generate_token',
    valid: [600],
    bad: ['x'],
    error: invalid(['ttl', 'Input should be a valid integer']),
  },
  {
    method: 'auth.login_with_token',
    answers: true,
    valid: [ref('auth.generate_token')],
    bad: [1],
    error: invalid(['token', 'Input should be a valid string']),
    session: 'anonymous',
  },
  { method: 'auth.logout', answers: true, valid: [], bad: [1], error: tooMany(0), session: 'key' },
  {
    method: 'api_key.create',
    valid: [{ name: 'midclt-key', username: 'truenas_admin' }],
    bad: [{ username: 'truenas_admin' }],
    error: invalid(['api_key_create.name', 'Field required']),
  },
  { method: 'api_key.query', valid: [], bad: ['x'], error: invalid(['filters', 'Input should be a valid list']) },
  {
    method: 'api_key.get_instance',
    valid: [ref('api_key.create', 'id')],
    bad: ['x'],
    error: invalid(['id', 'Input should be a valid integer']),
  },
  { method: 'api_key.my_keys', valid: [], bad: [1], error: tooMany(0) },
  {
    method: 'api_key.update',
    valid: [ref('api_key.create', 'id'), { name: 'midclt-key2' }],
    bad: [ref('api_key.create', 'id'), { bogus: 1 }],
    error: invalid(['api_key_update.bogus', 'Extra inputs are not permitted']),
  },
  {
    method: 'api_key.convert_raw_key',
    valid: [ref('api_key.create', 'key')],
    bad: [1],
    error: invalid(['raw_key', 'Input should be a valid string']),
    only: ['26.0'],
  },
  {
    method: 'api_key.delete',
    valid: [ref('api_key.create', 'id')],
    bad: ['x'],
    error: invalid(['id', 'Input should be a valid integer']),
  },

  // Two-factor: on, a secret for midclt1, a PASSWORD_PLAIN login it continues with the code, off.
  {
    method: 'auth.twofactor.update',
    valid: [{ enabled: true, window: 1 }],
    bad: [{ window: 'x' }],
    error: invalid(['auth_twofactor_update.window', 'Input should be a valid integer']),
  },
  {
    method: 'user.renew_2fa_secret',
    valid: ['midclt1', {}],
    bad: ['midclt1', { interval: 'x' }],
    error: invalid(['twofactor_options.interval', 'Input should be a valid integer']),
    // 26: `interval: Literal[30, 60]` (MW/api/v26_0_0/user.py:476 at stable/26).
    error26: invalid(['twofactor_options.interval', 'Input should be 30 or 60']),
  },
  {
    method: 'auth.login_ex_continue',
    answers: { response_type: 'SUCCESS' },
    pre: [['auth.login_ex', [{ mechanism: 'PASSWORD_PLAIN', username: 'midclt1', password: NEW_PASSWORD }]]],
    valid: [
      { mechanism: 'OTP_TOKEN', otp_token: totp(ref('user.renew_2fa_secret', 'twofactor_config', 'provisioning_uri')) },
    ],
    bad: [{ mechanism: 'OTP_TOKEN' }],
    error: invalid(['login_data.otp_token', 'Field required']),
    session: 'anonymous',
  },
  {
    method: 'user.unset_2fa_secret',
    valid: ['midclt1'],
    bad: [1],
    error: invalid(['username', 'Input should be a valid string']),
  },

  // Storage: a dataset, a directory in it, a snapshot, its clone.
  {
    method: 'pool.dataset.create',
    valid: [{ name: 'tank/midclt' }],
    bad: [{}],
    // 25.10.1: a plain union, so pydantic reports each member by class (MW/api/v25_10_1/pool_dataset.py:535-536);
    // 26 discriminates on `type`, FILESYSTEM by default (MW/api/v26_0_0/pool_dataset.py:663-667 at stable/26).
    error: invalid(
      ['data.PoolDatasetCreateFilesystem.name', 'Field required'],
      ['data.PoolDatasetCreateVolume.name', 'Field required'],
      ['data.PoolDatasetCreateVolume.volsize', 'Field required'],
    ),
    error26: invalid(['data.FILESYSTEM.name', 'Field required']),
  },
  { method: 'pool.dataset.query', valid: [], bad: ['x'], error: invalid(['filters', 'Input should be a valid list']) },
  {
    method: 'pool.dataset.checksum_choices',
    valid: [],
    bad: [1],
    error: tooMany(0),
    answers: { ON: 'ON', BLAKE3: 'BLAKE3' },
  },
  {
    method: 'pool.dataset.get_instance',
    valid: ['tank/midclt'],
    bad: [1],
    error: invalid(['id', 'Input should be a valid string']),
  },
  {
    method: 'pool.dataset.update',
    valid: ['tank/midclt', { comments: 'midclt' }],
    bad: ['tank/midclt', { bogus: 1 }],
    error: invalid(['data.bogus', 'Extra inputs are not permitted']),
  },
  {
    method: 'filesystem.mkdir',
    valid: [{ path: '/mnt/tank/midclt/dir' }],
    bad: [{}],
    error: invalid(['filesystem_mkdir.path', 'Field required']),
  },
  {
    method: 'filesystem.stat',
    valid: ['/mnt/tank/midclt/dir'],
    bad: [1],
    error: invalid(['path', 'Input should be a valid string']),
  },
  {
    method: 'filesystem.listdir',
    valid: ['/mnt/tank/midclt'],
    bad: [1],
    error: invalid(['path', 'Input should be a valid string']),
  },
  {
    method: 'filesystem.statfs',
    valid: ['/mnt/tank/midclt'],
    bad: [1],
    error: invalid(['path', 'Input should be a valid string']),
  },
  {
    method: 'filesystem.setperm',
    valid: [{ path: '/mnt/tank/midclt/dir', mode: '750' }],
    bad: [{ mode: '750' }],
    error: invalid(['filesystem_setperm.path', 'Field required']),
    job: true,
  },
  {
    method: 'filesystem.chown',
    valid: [{ path: '/mnt/tank/midclt/dir', uid: ref('user.create', 'uid') }],
    bad: [{ uid: 0 }],
    error: invalid(['filesystem_chown.path', 'Field required']),
    job: true,
  },
  { method: 'core.get_jobs', valid: [], bad: ['x'], error: invalid(['filters', 'Input should be a valid list']) },
  {
    method: 'core.job_wait',
    valid: [ref('core.get_jobs', 0, 'id')],
    bad: ['x'],
    error: invalid(['id', 'Input should be a valid integer']),
    job: true,
  },
  {
    method: 'core.job_abort',
    valid: [ref('core.get_jobs', 0, 'id')],
    bad: ['x'],
    error: invalid(['id', 'Input should be a valid integer']),
  },
  {
    method: 'core.download',
    valid: ['filesystem.get', ['/mnt/tank/midclt/dir'], 'dir'],
    bad: ['filesystem.get'],
    error: invalid(['args', 'Field required'], ['filename', 'Field required']),
  },
  {
    method: 'pool.snapshot.create',
    valid: [{ dataset: 'tank/midclt', name: 's1' }],
    bad: [{ name: 's1' }],
    // A plain union in both releases (MW/api/v25_10_1/pool_snapshot.py:196-197).
    error: invalid(
      ['data.PoolSnapshotCreateWithName.dataset', 'Field required'],
      ['data.PoolSnapshotCreateWithSchema.dataset', 'Field required'],
      ['data.PoolSnapshotCreateWithSchema.naming_schema', 'Field required'],
      ['data.PoolSnapshotCreateWithSchema.name', 'Extra inputs are not permitted'],
    ),
  },
  { method: 'pool.snapshot.query', valid: [], bad: ['x'], error: invalid(['filters', 'Input should be a valid list']) },
  {
    method: 'pool.snapshot.get_instance',
    valid: ['tank/midclt@s1'],
    bad: [1],
    error: invalid(['id', 'Input should be a valid string']),
  },
  {
    method: 'pool.snapshot.hold',
    valid: ['tank/midclt@s1'],
    bad: ['tank/midclt@nope'],
    error: callError(14, '[EFAULT] Failed to hold snapshot: Snapshot tank/midclt@nope not found'),
    // zfs.resource.snapshot.hold_impl's exception as it is (MW/plugins/zfs/snapshot_hold_release_impl.py:98-103 at TS-26.0.0-BETA.3).
    error26: callError(22, "'tank/midclt@nope' not found"),
  },
  {
    method: 'pool.snapshot.release',
    valid: ['tank/midclt@s1'],
    bad: [1],
    error: invalid(['id', 'Input should be a valid string']),
  },
  {
    method: 'pool.snapshot.clone',
    valid: [{ snapshot: 'tank/midclt@s1', dataset_dst: 'tank/midclt-clone' }],
    bad: [{ snapshot: 'tank/midclt@s1' }],
    error: invalid(['data.dataset_dst', 'Field required']),
  },
  {
    method: 'pool.snapshot.rollback',
    valid: ['tank/midclt@s1'],
    bad: [1],
    error: invalid(['id', 'Input should be a valid string']),
  },
  {
    method: 'pool.dataset.delete',
    valid: ['tank/midclt-clone'],
    bad: [1],
    error: invalid(['id', 'Input should be a valid string']),
  },
  {
    method: 'pool.snapshot.delete',
    valid: ['tank/midclt@s1'],
    bad: [1],
    error: invalid(['id', 'Input should be a valid string']),
  },

  // Last: the privilege, the user and the group go.
  {
    method: 'privilege.delete',
    valid: [ref('privilege.create', 'id')],
    bad: ['x'],
    error: invalid(['id', 'Input should be a valid integer']),
  },
  {
    method: 'user.delete',
    valid: [ref('user.create', 'id'), { delete_group: false }],
    bad: ['x'],
    error: invalid(['id', 'Input should be a valid integer']),
  },
  {
    method: 'group.delete',
    valid: [ref('group.create')],
    bad: ['x'],
    error: invalid(['id', 'Input should be a valid integer']),
  },
];

/**
 * Arguments that pass the models but that a method refuses itself (an id or path that does not
 * exist), run after the table: the method's own error, as midclt prints it.
 */
const REFUSALS: { method: string; args: unknown[]; error: Expected; error26?: Expected }[] = [
  // CRUDService.get_instance: `{verbose_name} {id} does not exist`, verbose_name the class name
  // without "Service" (MW/service/crud_service.py:242, MW/service/base.py:36); delete looks it up first.
  { method: 'user.get_instance', args: [99999], error: notFound('User 99999 does not exist') },
  { method: 'group.get_instance', args: [99999], error: notFound('Group 99999 does not exist') },
  { method: 'privilege.get_instance', args: [99999], error: notFound('Privilege 99999 does not exist') },
  { method: 'api_key.get_instance', args: [99999], error: notFound('ApiKey 99999 does not exist') },
  { method: 'pool.get_instance', args: [99999], error: notFound('Pool 99999 does not exist') },
  { method: 'pool.dataset.get_instance', args: ['tank/nope'], error: notFound('PoolDataset tank/nope does not exist') },
  {
    method: 'pool.snapshot.get_instance',
    args: ['tank@nope'],
    error: notFound('PoolSnapshot tank@nope does not exist'),
  },
  { method: 'user.delete', args: [99999], error: notFound('User 99999 does not exist') },
  { method: 'group.delete', args: [99999], error: notFound('Group 99999 does not exist') },
  { method: 'privilege.delete', args: [99999], error: notFound('Privilege 99999 does not exist') },
  { method: 'api_key.delete', args: [99999], error: notFound('ApiKey 99999 does not exist') },
  { method: 'pool.dataset.delete', args: ['tank/nope'], error: notFound('PoolDataset tank/nope does not exist') },
  // libzfs's NOENT raised as InstanceNotFound (MW/plugins/zfs_/snapshot.py:246-248).
  {
    method: 'pool.snapshot.delete',
    args: ['tank@nope'],
    error: notFound('Snapshot tank@nope not found'),
    // ZFSPathNotFoundException's text made InstanceNotFound (MW/plugins/pool_/snapshot.py:383-385 at TS-26.0.0-BETA.3).
    error26: notFound("'tank@nope' not found"),
  },
  { method: 'core.job_abort', args: [99999], error: notFound('Job with id 99999 does not exist') }, // MW/service/core_service.py:109-111
  // re.match's re.error once the filter reaches an item, in the release's Python's words (3.11 on 25.10.x,
  // 3.13 on 26.0: no TEMPLATE flag); no validator compiles the pattern
  // (TS-25.10.1 MW/utils/filter_list.py:153-157, TS-26.0.0-BETA.3 MW/api/base/validators/filter_ops.py:29-32).
  {
    method: 'user.query',
    args: [[['username', '~', '(?t:a)']]],
    error: callError(22, 'bad inline flags: cannot turn on global flag at position 3'),
    error26: callError(22, 'unknown extension ?t at position 1'),
  },
  {
    method: 'filesystem.stat',
    args: ['/mnt/tank/nope'],
    error: callError(2, '[ENOENT] Path /mnt/tank/nope not found'),
  },
  {
    method: 'filesystem.listdir',
    args: ['/mnt/tank/nope'],
    error: callError(2, '[ENOENT] Directory /mnt/tank/nope does not exist'),
  },
  // os.mkdir's FileNotFoundError, unhandled: sent with EINVAL and str(e) (MW/api/base/server/ws_handler/rpc.py:378-391).
  {
    method: 'filesystem.mkdir',
    args: [{ path: '/mnt/tank/nope/deeper' }],
    error: callError(22, "[Errno 2] No such file or directory: '/mnt/tank/nope/deeper'"),
  },
  // An unknown user: `entry` stays the empty list and `entry['password_history']` is a TypeError (MW/plugins/account.py:1799-1843);
  // stable/26 raises the ValidationErrors at once (MW/plugins/account.py:1943-1948).
  {
    method: 'user.set_password',
    args: [{ username: 'nope', new_password: 'x' }],
    error: callError(22, 'list indices must be integers or slices, not str'),
    error26: invalid(['user.set_password.username', 'nope: user does not exist.']),
  },
  { method: 'user.renew_2fa_secret', args: ['nope', {}], error: callError(2, "[ENOENT] User 'nope' does not exist") },
  { method: 'user.unset_2fa_secret', args: ['nope'], error: callError(2, "[ENOENT] User 'nope' does not exist") },
  {
    method: 'pool.snapshot.clone',
    args: [{ snapshot: 'tank@nope', dataset_dst: 'tank/c' }],
    error: callError(14, '[EFAULT] Failed to clone snapshot: Snapshot tank@nope not found'),
    // zfs.resource.snapshot.clone_impl's exception as it is (MW/plugins/zfs/rename_promote_clone_impl.py:35 over utils.py:123-131 at TS-26.0.0-BETA.3).
    error26: callError(22, "'tank@nope' not found"),
  },
  {
    method: 'pool.snapshot.rollback',
    args: ['tank@nope'],
    error: callError(14, "[EFAULT] Failed to rollback snapshot: cannot open 'tank@nope': dataset does not exist"),
    // zfs.resource.snapshot.rollback_impl's (MW/plugins/zfs/snapshot_rollback_impl.py:93-97 at TS-26.0.0-BETA.3).
    error26: callError(22, "'tank@nope' not found"),
  },
  {
    method: 'pool.snapshot.release',
    args: ['tank@nope'],
    error: callError(14, '[EFAULT] Failed to release snapshot: Snapshot tank@nope not found'),
    error26: callError(22, "'tank@nope' not found"),
  },
  // 26 only (MW/plugins/api_key.py:426-427 at stable/26).
  {
    method: 'api_key.convert_raw_key',
    args: ['nope'],
    error: invalid(['api_key_convert_raw_key', 'Not a valid raw API key']),
  },
];

/**
 * Methods midclt cannot call over its WebSocket, and why: a job's file pipe is only reachable over
 * HTTP, so the client's `call` has no way to hand it bytes or take them.
 */
const SKIPPED: Record<string, string> = {
  ...Object.fromEntries(
    [
      'sharing.smb.query',
      'sharing.smb.get_instance',
      'sharing.smb.create',
      'sharing.smb.update',
      'sharing.smb.delete',
      'sharing.smb.presets',
      'sharing.smb.share_precheck',
      'sharing.smb.getacl',
      'sharing.smb.setacl',
      'smb.config',
      'smb.update',
    ].map((m) => [m, 'in official-client-smb.test.ts, which makes the SMB user and share directory they need']),
  ),
  ...Object.fromEntries(
    Object.keys(serviceNamespaceContract).map((m) => [m, 'test/core/official-client-service.test.ts calls it']),
  ),
  'filesystem.put':
    "upload-only: its input pipe is opened by POST /_upload (MW/main.py:1439, MW/apps/file_app.py:118); called over the WebSocket, 25.10.1's job checks its pipes and fails with ValueError \"Pipe 'input' is not open\" (MW/job.py:330-332, 369-376), whatever the argument",
  'filesystem.get':
    'download-only: its output pipe is read through the URL core.download answers (core.download of filesystem.get is in the table); called over the WebSocket it fails the same way with "Pipe \'output\' is not open" (MW/job.py:330-332, 369-376)',
  ...Object.fromEntries(
    NFS_METHODS.map((m) => [
      m,
      'its own table, with the dataset its shares need: test/core/official-client-nfs.test.ts',
    ]),
  ),
  ...Object.fromEntries(
    SNAPSHOT_TASK_METHODS.map((m) => [
      m,
      'its own table, with the dataset its tasks need: test/core/official-client-snapshottask.test.ts',
    ]),
  ),
  ...Object.fromEntries(
    KEYCHAIN_METHODS.map((m) => [
      m,
      'its own table, with the keys its credentials need: test/core/official-client-keychain.test.ts',
    ]),
  ),
  ...Object.fromEntries(
    REPLICATION_METHODS.map((m) => [
      m,
      'its own table, with the datasets and snapshot task its tasks need: test/core/official-client-replication.test.ts',
    ]),
  ),
  ...Object.fromEntries(
    ['replication.run', 'replication.run_onetime'].map((m) => [
      m,
      'jobs that copy snapshots taken first, waited on as midclt call -j waits: test/core/official-client-replication-run.test.ts',
    ]),
  ),
};

/** The key placeholder `{$key: true}` becomes the server's administrator key. */
function withKey(params: unknown[], key: string): unknown[] {
  return params.map((p) => (p && typeof p === 'object' && '$key' in p ? key : p));
}

for (const release of ['25.10.1', '25.10.7', '26.0'] as const) {
  describe(`every method of ${release}'s contract through the official client (stor serve --emulate truenas-${release})`, () => {
    const contract = contractFor(release);
    const cases = CASES.filter((c) => !c.only || c.only.includes(release));

    it('the table covers every method the contract lists, except the named skips', () => {
      const covered = new Set([...cases.map((c) => c.method), ...Object.keys(SKIPPED)]);
      expect([...contract.keys()].filter((m) => !covered.has(m))).toEqual([]);
      expect(cases.map((c) => c.method).filter((m) => !contract.has(m))).toEqual([]);
    });

    it("each valid call answers the release's result shape; each invalid one, and each argument a method refuses itself, fails with the release's error as midclt prints it", async (ctx) => {
      if ('reason' in client) return ctx.skip(client.reason);
      const server = await startTestServer(EMULATIONS[`truenas-${release}`]);
      const steps = cases.flatMap((c) => [
        {
          label: `${c.method} bad`,
          method: c.method,
          params: withKey(c.bad, server.adminKey),
          job: c.job,
          session: c.session,
          pre: c.pre,
        },
        {
          label: c.method,
          method: c.method,
          params: withKey(c.valid, server.adminKey),
          job: c.job,
          session: c.session,
          pre: c.pre,
        },
      ]);
      const refusals = REFUSALS.filter((r) => contract.has(r.method));
      steps.push(
        ...refusals.map((r) => ({
          label: `${r.method} refused`,
          method: r.method,
          params: r.args,
          job: false,
          session: undefined,
          pre: undefined,
        })),
      );
      const outcomes = await runClient(client.env, server.rpcUrl, server.adminKey, steps);
      const failures: string[] = [];
      const answered: Record<string, unknown> = {};
      const checkRefusal = (call: string, bad: Outcome | undefined, want: Expected) => {
        const got = bad?.ok ? `answered ${bad.json}` : (bad?.stderr ?? 'no outcome');
        if (!bad || bad.ok || bad.class !== want.class)
          failures.push(`${call}: want ${want.class}, got ${bad?.class}: ${got}`);
        else if (
          'reason' in want
            ? !(bad.errno === want.errno && bad.stderr!.startsWith(want.reason))
            : bad.stderr !== want.stderr
        )
          failures.push(
            `${call}: want ${'reason' in want ? `errno ${want.errno} ${want.reason}` : want.stderr}, got errno ${bad.errno}: ${got}`,
          );
      };
      for (const c of cases) {
        const good = outcomes.get(c.method);
        if (!good?.ok)
          failures.push(
            `${c.method} ${JSON.stringify(c.valid)}: ${good?.stderr ?? 'no outcome'} ${JSON.stringify(good?.pre ?? [])}`,
          );
        else {
          const result: unknown = JSON.parse(good.json!);
          if (c.answers !== undefined) answered[c.method] = result;
          const violations = contractViolations(contract.get(c.method)!.result, result);
          if (violations.length)
            failures.push(`${c.method} result: ${violations.join('; ')} in ${good.json!.slice(0, 300)}`);
        }
        checkRefusal(
          `${c.method} ${JSON.stringify(c.bad)}`,
          outcomes.get(`${c.method} bad`),
          (release === '26.0' && c.error26) || c.error,
        );
      }
      for (const r of refusals)
        checkRefusal(
          `${r.method} ${JSON.stringify(r.args)}`,
          outcomes.get(`${r.method} refused`),
          (release === '26.0' && r.error26) || r.error,
        );
      expect(failures).toEqual([]);
      // The runner prints errors as midclt does: `midclt call` itself, in its own process, exits 1
      // and prints the same for a ValidationErrors and for a CallError (its trace included).
      for (const [method, arg] of [
        ['auth.sessions', '"x"'],
        ['pool.snapshot.hold', 'tank/midclt@nope'],
      ] as const) {
        const r = await midclt(client.env, [
          '-u',
          server.rpcUrl,
          ...client.keyLogin(server.adminKey),
          'call',
          method,
          arg,
        ]);
        expect([r.code, r.stdout, r.stderr.trimEnd()]).toEqual([
          1,
          '',
          outcomes.get(`${method} bad`)!.stderr!.trimEnd(),
        ]);
      }
      expect(answered).toMatchObject(
        Object.fromEntries(cases.filter((c) => c.answers !== undefined).map((c) => [c.method, c.answers])),
      );
    });
  });
}
