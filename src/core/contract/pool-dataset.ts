import * as z from 'zod';
import { crud } from './crud.js';
import { nonEmptyStr, roles, str, once } from './method.js';
import { pydanticUnion } from './pydantic-union.js';
import { method, service } from './service.js';

// `MW/api/v25_10_1/pool_dataset.py`; role prefix DATASET with a separate DATASET_DELETE
// (`MW/plugins/pool_/dataset.py` Config: role_prefix, role_separate_delete).

/**
 * PoolDatasetEntryProperty: one ZFS property as an entry shows it. ForUpdateMetaclass makes every
 * field NotRequired.
 */
export const datasetProperty = once(() =>
  z.object({
    parsed: z.unknown(),
    rawvalue: z.string().nullable().optional(),
    value: z.string().nullable().optional(),
    source: z.string().nullable().optional(),
    source_info: z.unknown(),
  }),
);

/** PoolDatasetEntry (ForUpdateMetaclass: every field NotRequired; which appear depends on the type and on `extra`). */
export const poolDatasetEntry = once(() =>
  z
    .object({
      id: z.string(),
      type: z.string(),
      name: z.string(),
      pool: z.string(),
      encrypted: z.boolean(),
      encryption_root: z.string().nullable(),
      key_loaded: z.boolean().nullable(),
      children: z.array(z.unknown()),
      user_properties: z.record(z.string(), z.unknown()),
      locked: z.boolean(),
      comments: datasetProperty(),
      quota_warning: datasetProperty(),
      quota_critical: datasetProperty(),
      refquota_warning: datasetProperty(),
      refquota_critical: datasetProperty(),
      managedby: datasetProperty(),
      deduplication: datasetProperty(),
      aclmode: datasetProperty(),
      acltype: datasetProperty(),
      xattr: datasetProperty(),
      atime: datasetProperty(),
      casesensitivity: datasetProperty(),
      checksum: datasetProperty(),
      exec: datasetProperty(),
      sync: datasetProperty(),
      compression: datasetProperty(),
      compressratio: datasetProperty(),
      origin: datasetProperty(),
      quota: datasetProperty(),
      refquota: datasetProperty(),
      reservation: datasetProperty(),
      refreservation: datasetProperty(),
      copies: datasetProperty(),
      snapdir: datasetProperty(),
      readonly: datasetProperty(),
      recordsize: datasetProperty(),
      sparse: datasetProperty(),
      volsize: datasetProperty(),
      volblocksize: datasetProperty(),
      key_format: datasetProperty(),
      encryption_algorithm: datasetProperty(),
      used: datasetProperty(),
      usedbychildren: datasetProperty(),
      usedbydataset: datasetProperty(),
      usedbyrefreservation: datasetProperty(),
      usedbysnapshots: datasetProperty(),
      available: datasetProperty(),
      special_small_block_size: datasetProperty(),
      pbkdf2iters: datasetProperty(),
      creation: datasetProperty(),
      snapdev: datasetProperty(),
      mountpoint: z.string().nullable(),
    })
    .partial()
    // `extra="allow"`: what `extra.snapshots_count` / `extra.snapshots` add (`snapshot_count`,
    // `snapshots`, and the internal `_snapshots_properties` left in the entry) goes through
    // (MW/plugins/pool_/dataset_query_utils.py:926-939); pydantic's schema says `additionalProperties: true`.
    .catchall(z.unknown()),
);

export type PoolDatasetEntry = z.output<ReturnType<typeof poolDatasetEntry>>;

const inherit = once(() => z.literal('INHERIT'));
const onOff = once(() => z.enum(['ON', 'OFF', 'INHERIT']));
const INHERIT_TAG = "literal['INHERIT']";
/** `Annotated[int, Field(ge=0, le=100)] | Literal["INHERIT"]`. */
const percent = once(() => pydanticUnion({ 'constrained-int': z.int().min(0).max(100), [INHERIT_TAG]: inherit() }));
/** `int | Literal["INHERIT"]`. */
const intOrInherit = once(() => pydanticUnion({ int: z.int(), [INHERIT_TAG]: inherit() }));
/** `Annotated[int, Field(ge=1024 ** 3)] | Literal[0, None]`: a quota is at least 1 GiB, or 0/null for none. */
const quotaBytes = once(() =>
  pydanticUnion({ 'constrained-int': z.int().min(1024 ** 3), 'literal[0,None]': z.literal([0, null]) }),
);

const ZSTD_LEVELS = Array.from({ length: 19 }, (_, i) => `ZSTD-${i + 1}`);
const ZSTD_FAST_LEVELS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 500, 1000].map(
  (n) => `ZSTD-FAST-${n}`,
);
export const COMPRESSION_CHOICES = [
  'ON',
  'OFF',
  'LZ4',
  'GZIP',
  'GZIP-1',
  'GZIP-9',
  'ZSTD',
  'ZSTD-FAST',
  'ZLE',
  'LZJB',
  ...ZSTD_LEVELS,
  ...ZSTD_FAST_LEVELS,
] as const;

/** A ZFS dataset name as libzfs `validate_dataset_name` takes it (ZFS `dataset_namecheck`). */
export function isValidDatasetName(name: string): boolean {
  if (name.length === 0 || name.length >= 256) return false;
  const parts = name.split('/');
  if (!/^[A-Za-z]/.test(parts[0]!)) return false;
  return parts.every((p) => /^[A-Za-z0-9_.: -]+$/.test(p) && p !== '.' && p !== '..');
}

const datasetName = once(() =>
  nonEmptyStr().refine(isValidDatasetName, 'Please provide a valid dataset name according to ZFS standards'),
);

const userProperty = once(() => z.strictObject({ key: str().regex(/.*:.*/), value: str() }));

/** PoolCreateEncryptionOptions (`MW/api/v25_10_1/pool.py`). */
export const encryptionOptions = once(() =>
  z.strictObject({
    generate_key: z.boolean().default(false),
    pbkdf2iters: z.int().min(100000).default(350000),
    algorithm: z
      .enum(['AES-128-CCM', 'AES-192-CCM', 'AES-256-CCM', 'AES-128-GCM', 'AES-192-GCM', 'AES-256-GCM'])
      .default('AES-256-GCM'),
    passphrase: str().min(8).nullable().default(null),
    key: str().length(64).nullable().default(null),
  }),
);

/** PoolDatasetCreate: the fields both types take, with their defaults. */
const commonCreate = once(() => ({
  name: datasetName(),
  comments: str().default('INHERIT'),
  sync: z.enum(['STANDARD', 'ALWAYS', 'DISABLED', 'INHERIT']).default('INHERIT'),
  snapdev: z.enum(['HIDDEN', 'VISIBLE', 'INHERIT']).optional(),
  compression: z.enum([...COMPRESSION_CHOICES, 'INHERIT']).default('INHERIT'),
  exec: onOff().default('INHERIT'),
  managedby: nonEmptyStr().default('INHERIT'),
  quota_warning: percent().default('INHERIT'),
  quota_critical: percent().default('INHERIT'),
  refquota_warning: percent().default('INHERIT'),
  refquota_critical: percent().default('INHERIT'),
  reservation: z.int().optional(),
  refreservation: z.int().optional(),
  special_small_block_size: intOrInherit().optional(),
  copies: intOrInherit().default('INHERIT'),
  snapdir: z.enum(['DISABLED', 'VISIBLE', 'HIDDEN', 'INHERIT']).default('INHERIT'),
  deduplication: z.enum(['ON', 'VERIFY', 'OFF', 'INHERIT']).default('INHERIT'),
  checksum: z
    .enum(['ON', 'OFF', 'FLETCHER2', 'FLETCHER4', 'SHA256', 'SHA512', 'SKEIN', 'EDONR', 'BLAKE3', 'INHERIT'])
    .default('INHERIT'),
  readonly: onOff().default('INHERIT'),
  share_type: z.enum(['GENERIC', 'MULTIPROTOCOL', 'NFS', 'SMB', 'APPS']).default('GENERIC'),
  encryption_options: encryptionOptions().default(() => encryptionOptions().parse({})),
  encryption: z.boolean().default(false),
  inherit_encryption: z.boolean().default(true),
  user_properties: z.array(userProperty()).default([]),
  create_ancestors: z.boolean().default(false),
}));

/** PoolDatasetCreateFilesystem. */
const filesystemOnly = once(() => ({
  aclmode: z.enum(['PASSTHROUGH', 'RESTRICTED', 'DISCARD', 'INHERIT']).optional(),
  acltype: z.enum(['OFF', 'NFSV4', 'POSIX', 'INHERIT']).optional(),
  atime: onOff().optional(),
  casesensitivity: z.enum(['SENSITIVE', 'INSENSITIVE', 'INHERIT']).optional(),
  quota: quotaBytes().optional(),
  refquota: quotaBytes().optional(),
  recordsize: str().optional(),
}));

/**
 * `pool.dataset.recordsize_choices` on a pool that is not dRAID, with ZFS's default
 * zfs_max_recordsize of 16M (MW/plugins/pool_/dataset_recordsize.py:13-31,34-43): update and create
 * take a recordsize only as one of these words, exactly (MW/plugins/pool_/dataset.py:301-305).
 */
export const RECORDSIZE_CHOICES = [
  '512',
  '512B',
  '1K',
  '2K',
  '4K',
  '8K',
  '16K',
  '32K',
  '64K',
  '128K',
  '256K',
  '512K',
  '1M',
  '2M',
  '4M',
  '8M',
  '16M',
] as const;

/** `ZFS_CHECKSUM_CHOICES` but OFF, in its order (MW/plugins/pool_/utils.py:19), as checksum_choices answers them. */
export const CHECKSUM_CHOICES = [
  'ON',
  'FLETCHER2',
  'FLETCHER4',
  'SHA256',
  'SHA512',
  'SKEIN',
  'EDONR',
  'BLAKE3',
] as const;

export const VOLBLOCKSIZE_CHOICES = ['512', '512B', '1K', '2K', '4K', '8K', '16K', '32K', '64K', '128K'] as const;

/** PoolDatasetCreateVolume. */
const volumeOnly = once(() => ({
  force_size: z.boolean().optional(),
  sparse: z.boolean().optional(),
  volsize: z.int(),
  volblocksize: z.enum(VOLBLOCKSIZE_CHOICES).optional(),
}));

export const createFilesystem = once(() =>
  z.strictObject({ ...commonCreate(), type: z.literal('FILESYSTEM').default('FILESYSTEM'), ...filesystemOnly() }),
);
export const createVolume = once(() =>
  z.strictObject({ ...commonCreate(), type: z.literal('VOLUME').default('VOLUME'), ...volumeOnly() }),
);

/** `data: PoolDatasetCreateFilesystem | PoolDatasetCreateVolume`, no discriminator. */
export const poolDatasetCreate = once(() =>
  pydanticUnion({ PoolDatasetCreateFilesystem: createFilesystem(), PoolDatasetCreateVolume: createVolume() }),
);
export type PoolDatasetCreate = z.output<ReturnType<typeof poolDatasetCreate>>;

const updateUserProperty = once(() =>
  z.strictObject({ key: userProperty().shape.key, value: str().optional(), remove: z.boolean().optional() }),
);

/**
 * PoolDatasetUpdate: both types' fields, none required and no defaults (ForUpdateMetaclass), less
 * the Excluded ones (name, type, casesensitivity, share_type, sparse, volblocksize, encryption*).
 */
export const poolDatasetUpdate = once(() =>
  z.strictObject({
    comments: commonCreate().comments.unwrap().optional(),
    sync: commonCreate().sync.unwrap().optional(),
    snapdev: commonCreate().snapdev,
    compression: commonCreate().compression.unwrap().optional(),
    exec: onOff().optional(),
    managedby: nonEmptyStr().optional(),
    quota_warning: percent().optional(),
    quota_critical: percent().optional(),
    refquota_warning: percent().optional(),
    refquota_critical: percent().optional(),
    reservation: z.int().optional(),
    refreservation: z.int().optional(),
    special_small_block_size: intOrInherit().optional(),
    copies: intOrInherit().optional(),
    snapdir: commonCreate().snapdir.unwrap().optional(),
    deduplication: commonCreate().deduplication.unwrap().optional(),
    checksum: commonCreate().checksum.unwrap().optional(),
    readonly: onOff().optional(),
    user_properties: z.array(userProperty()).optional(),
    create_ancestors: z.boolean().optional(),
    aclmode: filesystemOnly().aclmode,
    acltype: filesystemOnly().acltype,
    atime: filesystemOnly().atime,
    quota: filesystemOnly().quota,
    refquota: filesystemOnly().refquota,
    recordsize: filesystemOnly().recordsize,
    force_size: volumeOnly().force_size,
    volsize: z.int().optional(),
    user_properties_update: z.array(updateUserProperty()).optional(),
  }),
);
export type PoolDatasetUpdate = z.output<ReturnType<typeof poolDatasetUpdate>>;

const deleteOptions = once(() =>
  z.strictObject({ recursive: z.boolean().default(false), force: z.boolean().default(false) }),
);

const datasets = crud(poolDatasetEntry, () => z.string(), {
  read: roles('DATASET_READ'),
  write: roles('DATASET_WRITE'),
});

export const poolDatasetContract = service('pool.dataset', {
  query: datasets.query('List datasets (filters, options); every dataset flat, the pool roots included.'),
  get_instance: datasets.get_instance('One dataset by id (its full name, e.g. tank/a).'),
  create: datasets.create(
    'Create a dataset {name: "pool/a/b", create_ancestors, comments, …} or a volume {type: VOLUME, volsize}.',
    'data',
    poolDatasetCreate,
    poolDatasetEntry,
  ),
  update: datasets.update(
    'Change properties of a dataset; INHERIT resets one to the inherited value.',
    'data',
    poolDatasetUpdate,
    poolDatasetEntry,
  ),
  delete: datasets.delete(
    'Delete a dataset {recursive, force}; children need recursive; a pool root keeps itself.',
    // `Literal[None, True]`: null when ZFS says the dataset was already gone.
    () => z.literal(true).nullable(),
    {
      access: roles('DATASET_DELETE'),
      options: { schema: deleteOptions, default: () => ({ recursive: false, force: false }) },
    },
  ),
  // MW/plugins/pool_/dataset_info.py:18-23; PoolDatasetChecksumChoicesResult (MW/api/v25_10_1/pool_dataset.py:514-523).
  checksum_choices: method({
    summary: 'The checksums a dataset may use, {NAME: NAME}: every ZFS checksum but OFF.',
    access: roles('DATASET_READ'),
    params: () => [],
    result: () =>
      z.strictObject(
        Object.fromEntries(CHECKSUM_CHOICES.map((c) => [c, z.literal(c)])) as {
          [K in (typeof CHECKSUM_CHOICES)[number]]: z.ZodLiteral<K>;
        },
      ),
  }),
});
