import { z } from 'zod';

/**
 * The fields of each method's result that the commands read, as 25.10.1 shapes them
 * (MW/api/v25_10_1/*.py). Lenient on purpose: unknown keys are allowed (and dropped), and a field
 * 25.10.1 may omit is optional, so a newer appliance's extra fields or an absent optional field
 * never break a command; a field a command cannot do without is required.
 * Schemas only: this module is loaded by every command that talks to an appliance.
 */

/** A ZFS property as `pool.dataset.*` shows it (PoolDatasetEntryProperty); only what is read. */
const zfsProperty = <T extends z.ZodType>(parsed: T) => z.object({ parsed: parsed.optional(), value: z.string().nullable().optional() });

/**
 * PoolDatasetEntry. Every field is NotRequired there (ForUpdateMetaclass); a comment is
 * `user_properties.comments`, present only when set — there is no top-level `comments` in 25.10.x
 * (MW/plugins/pool_/dataset_query_utils.py `normalize_user_properties`).
 */
const datasetEntry = z.object({
  id: z.string(),
  name: z.string(),
  pool: z.string(),
  mountpoint: z.string().nullable().optional(),
  used: zfsProperty(z.number()).optional(),
  available: zfsProperty(z.number()).optional(),
  compression: zfsProperty(z.unknown()).optional(),
  user_properties: z.object({ comments: z.object({ value: z.string().nullable() }).optional() }).optional(),
});

/** `filesystem.stat` (facts §6.1). */
const statResult = z.object({
  realpath: z.string().optional(),
  type: z.string(),
  size: z.number(),
  mode: z.number(),
  uid: z.number(),
  gid: z.number(),
  mtime: z.number(),
  user: z.string().nullable().optional(),
  group: z.string().nullable().optional(),
  is_mountpoint: z.boolean().optional(),
});

export const RESULTS = {
  'filesystem.stat': statResult,
  'filesystem.listdir': z.array(
    z.object({ name: z.string(), path: z.string(), type: z.string(), size: z.number(), mode: z.number(), uid: z.number(), gid: z.number() }),
  ),
  'pool.dataset.query': z.array(datasetEntry),
  'pool.dataset.get_instance': datasetEntry,
  'pool.dataset.create': datasetEntry,
} as const;

export type ResultMethod = keyof typeof RESULTS;
export type ResultOf<M extends ResultMethod> = z.output<(typeof RESULTS)[M]>;
export type DatasetEntry = ResultOf<'pool.dataset.get_instance'>;
