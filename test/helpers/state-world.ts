/**
 * A target as desired state reads it (state/kinds/kind.ts World), written as plain data: the
 * adapters' plan, prune, refuse and export are pure on it, so their tests need no server. The
 * objects carry the fields the adapters read, in 25.10.1's shapes (group.query, user.query,
 * privilege.query, api_key.query, pool.dataset.query).
 */
import type { ApiKey } from '../../src/commands/api-key/model.js';
import type { Group } from '../../src/commands/group/model.js';
import type { Privilege } from '../../src/commands/privilege/model.js';
import type { Dataset } from '../../src/commands/state/datasets.js';
import { STATE_KINDS } from '../../src/commands/state/kinds/index.js';
import type { Objects, World } from '../../src/commands/state/kinds/kind.js';
import { markKey, markValue, readMarks, type MarkedKind } from '../../src/commands/state/ownership.js';
import type { User } from '../../src/commands/user/model.js';
import type { PoolSnapshotTaskEntry } from '../../src/core/contract/pool-snapshottask.js';
import type { ReplicationEntry } from '../../src/core/contract/replication.js';
import type { NfsShareEntry } from '../../src/core/contract/sharing-nfs.js';
import type { SmbShareEntry } from '../../src/core/contract/sharing-smb.js';
import type { LockoutRule } from '../../src/core/roles/analyze.js';
import { RELEASES } from '../../src/core/releases/index.js';

export const group = (id: number, name: string, users: number[] = [], extra: Partial<Group> = {}): Group =>
  ({ id, gid: 3000 + id, name, builtin: false, immutable: false, smb: false, users, roles: [], ...extra }) as Group;

export const user = (
  id: number,
  username: string,
  primary: string | null,
  groups: number[] = [],
  extra: Partial<User> = {},
): User =>
  ({
    id,
    uid: 3000 + id,
    username,
    full_name: username,
    group: { id: null, bsdgrp_group: primary },
    groups,
    builtin: false,
    immutable: false,
    locked: false,
    password_disabled: true,
    smb: false,
    shell: '/usr/bin/zsh',
    home: '/var/empty',
    twofactor_auth_configured: false,
    api_keys: [],
    roles: [],
    ...extra,
  }) as unknown as User;

export const privilege = (
  id: number,
  name: string,
  groups: string[],
  roles: string[],
  extra: Partial<Privilege> = {},
): Privilege =>
  ({
    id,
    builtin_name: null,
    name,
    local_groups: groups.map((g, i) => ({ gid: 4000 + i, name: g })),
    roles,
    web_shell: false,
    ...extra,
  }) as unknown as Privilege;

export const apiKey = (id: number, name: string, username: string | null, expiresMs: number | null = null): ApiKey =>
  ({
    id,
    name,
    username,
    created_at: { $date: 0 },
    expires_at: expiresMs === null ? null : { $date: expiresMs },
    revoked: false,
    revoked_reason: null,
  }) as ApiKey;

const own = (value: string) => ({ value, rawvalue: value, source: 'LOCAL', parsed: value });

/** A filesystem; `marked`: it carries stor's own mark (stor made it). */
export const dataset = (id: string, marked = false, userProperties: Record<string, unknown> = {}): Dataset =>
  ({
    id,
    type: 'FILESYSTEM',
    user_properties: { ...userProperties, ...(marked ? { 'stor.own:dataset': own(id) } : {}) },
  }) as unknown as Dataset;

/** An NFS share as 25.10.1's sharing.nfs.query answers it (MW/api/v25_10_1/nfs.py:126-213): a fresh share's values unless `extra` says. */
export const nfsShare = (id: number, path: string, extra: Partial<NfsShareEntry> = {}): NfsShareEntry => ({
  id,
  path,
  aliases: [],
  comment: '',
  networks: [],
  hosts: [],
  ro: false,
  maproot_user: null,
  maproot_group: null,
  mapall_user: null,
  mapall_group: null,
  security: [],
  enabled: true,
  locked: false,
  expose_snapshots: false,
  ...extra,
});

/** An SMB share as 25.10.1's sharing.smb.query answers it (MW/api/v25_10_1/smb.py:598-702): a fresh default share unless `extra` says. */
export const smbShare = (
  id: number,
  name: string,
  path: string,
  extra: Partial<SmbShareEntry> = {},
): SmbShareEntry => ({
  id,
  purpose: 'DEFAULT_SHARE',
  name,
  path,
  enabled: true,
  comment: '',
  readonly: false,
  browsable: true,
  access_based_share_enumeration: false,
  locked: false,
  audit: { enable: false, watch_list: [], ignore_list: [] },
  options: { aapl_name_mangling: false, hostsallow: [], hostsdeny: [] },
  ...extra,
});

/** A periodic snapshot task as 25.10.1's pool.snapshottask.query answers it (MW/api/v25_10_1/pool_snapshottask.py:68-80): a fresh task's values unless `extra` says. */
export const snapshotTask = (
  id: number,
  dataset: string,
  naming_schema = 'auto-%Y-%m-%d_%H-%M',
  extra: Partial<PoolSnapshotTaskEntry> = {},
): PoolSnapshotTaskEntry => ({
  dataset,
  recursive: false,
  lifetime_value: 2,
  lifetime_unit: 'WEEK',
  enabled: true,
  exclude: [],
  naming_schema,
  allow_empty: true,
  schedule: { minute: '00', hour: '*', dom: '*', month: '*', dow: '*', begin: '00:00', end: '23:59' },
  id,
  state: { state: 'PENDING' },
  vmware_sync: false,
  ...extra,
});

/**
 * A replication task as 25.10.1's replication.query answers it (MW/api/v25_10_1/replication.py:41-176):
 * a LOCAL PUSH of `source` to `target`, bound to `tasks` (as the entry carries them), the create
 * model's defaults unless `extra` says.
 */
export const replication = (
  id: number,
  name: string,
  tasks: PoolSnapshotTaskEntry[] = [],
  extra: Partial<ReplicationEntry> = {},
): ReplicationEntry =>
  ({
    name,
    direction: 'PUSH',
    transport: 'LOCAL',
    ssh_credentials: null,
    netcat_active_side: null,
    netcat_active_side_listen_address: null,
    netcat_active_side_port_min: null,
    netcat_active_side_port_max: null,
    netcat_passive_side_connect_address: null,
    sudo: false,
    source_datasets: ['tank/a'],
    target_dataset: 'tank/backup/a',
    recursive: false,
    exclude: [],
    properties: true,
    properties_exclude: [],
    properties_override: {},
    replicate: false,
    encryption: false,
    encryption_inherit: null,
    encryption_key: null,
    encryption_key_format: null,
    encryption_key_location: null,
    periodic_snapshot_tasks: tasks.map(({ vmware_sync: _v, state: _s, ...t }) => ({ ...t, state: '{}' })),
    naming_schema: [],
    also_include_naming_schema: [],
    name_regex: null,
    auto: true,
    schedule: null,
    restrict_schedule: null,
    only_matching_schedule: false,
    allow_from_scratch: false,
    readonly: 'SET',
    hold_pending_snapshots: false,
    retention_policy: 'NONE',
    lifetime_value: null,
    lifetime_unit: null,
    lifetimes: [],
    compression: null,
    speed_limit: null,
    large_block: true,
    embed: false,
    compressed: true,
    retries: 5,
    logging_level: null,
    enabled: true,
    id,
    state: { state: 'PENDING' },
    job: null,
    has_encrypted_dataset_keys: false,
    ...extra,
  }) as ReplicationEntry;

export interface WorldParts {
  groups?: Group[];
  users?: User[];
  privileges?: Privilege[];
  api_keys?: ApiKey[];
  datasets?: Dataset[];
  /** Any section's objects, by its place (`shares.nfs`): the kinds the fields above do not name. */
  objects?: Partial<Objects>;
  /** Objects stor made, by mark kind: their names (each with the id it has in the parts above), or `[name, id]`. */
  made?: Partial<Record<MarkedKind, (string | [string, number])[]>>;
  rule?: LockoutRule;
  me?: string;
}

/** The world: a pool root `tank` carrying the marks of `made`, the 25.10.1 catalogue, and the lockout rule (25.10.1's own by default). */
export function world(parts: WorldParts = {}): World {
  const ids: Record<string, Map<string, number>> = {
    group: new Map((parts.groups ?? []).map((g) => [g.name, g.id])),
    user: new Map((parts.users ?? []).map((u) => [u.username, u.id])),
    privilege: new Map((parts.privileges ?? []).map((p) => [p.name, p.id])),
    api_key: new Map((parts.api_keys ?? []).map((k) => [k.name, k.id])),
  };
  const marks: Record<string, unknown> = {};
  for (const [kind, names] of Object.entries(parts.made ?? {})) {
    for (const made of names ?? []) {
      const [name, id] = typeof made === 'string' ? [made, ids[kind]!.get(made)!] : made;
      marks[markKey(kind, name)] = own(markValue(name, id));
    }
  }
  const root = dataset('tank', false, marks);
  const datasets = [root, ...(parts.datasets ?? [])];
  const release = RELEASES['25.10.1'];
  return {
    objects: {
      ...(Object.fromEntries(STATE_KINDS.map((k) => [k, []])) as unknown as Objects),
      ...parts.objects,
      groups: parts.groups ?? [],
      users: parts.users ?? [],
      privileges: parts.privileges ?? [],
      api_keys: parts.api_keys ?? [],
      datasets,
    },
    roles: {
      catalogue: release.catalogue(),
      source: 'built-in 25.10.1',
      model: {
        rule: parts.rule ?? 'self-including',
        name: 'TrueNAS 25.10.1',
        basis: 'a test',
        release: '25.10.1',
        emulator: false,
      },
    },
    me: parts.me ?? 'truenas_admin',
    marks: readMarks([root as { id: string; user_properties?: Record<string, unknown> }]),
  };
}
