import type { CommandContext } from '../framework/context.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { sizeCell } from '../output/format.js';
import type { PoolDatasetEntry } from '../../core/contract/pool-dataset.js';
import { bytesOf, checkSpaceProperties, commentOf, datasetId, readDataset } from './model.js';
import { sourceOf } from './update-plan.js';
import { arg, defineCommand } from '../framework/declare.js';

/** One ZFS property as 25.10.1 shows it in a dataset entry (PoolDatasetEntryProperty). */
export interface DatasetProperty {
  parsed: unknown;
  rawvalue: string | null;
  value: string | null;
  /** LOCAL, INHERITED, DEFAULT or NONE. */
  source: string | null;
  /** For INHERITED: the dataset it comes from. */
  source_info: string | null;
}

/** `stor dataset show --json`: the 25.10.1 entry of one dataset, its properties kept as the appliance gives them. */
export interface DatasetShown {
  id: string;
  name: string;
  pool: string;
  type: string;
  /** Null for a volume. */
  mountpoint: string | null;
  encrypted: boolean | null;
  encryption_root: string | null;
  locked: boolean | null;
  comments: string | null;
  /** Bytes; null when the appliance did not report them. */
  used: number | null;
  available: number | null;
  /** Its direct children, by id. */
  children: string[];
  snapshot_count: number | null;
  /** Every ZFS property of the entry (compression, quota, recordsize, …), by the entry's own names. */
  properties: Record<string, DatasetProperty>;
  /** User properties (`ns:key`), by key, with their values; comments is among them as 25.10.1 keeps it. */
  user_properties: Record<string, string | null>;
}

/** Entry fields that are not properties. */
const NOT_PROPERTIES = new Set([
  'id',
  'name',
  'pool',
  'type',
  'mountpoint',
  'encrypted',
  'encryption_root',
  'key_loaded',
  'locked',
  'children',
  'user_properties',
  'snapshot_count',
  'snapshots',
]);

const isProperty = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && ('rawvalue' in v || 'value' in v || 'source' in v);

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The entry as `DatasetShown`: properties and user properties out of it, children as ids. */
export function datasetShown(entry: PoolDatasetEntry & { id: string }): DatasetShown {
  const properties: Record<string, DatasetProperty> = {};
  for (const [name, v] of Object.entries(entry)) {
    if (NOT_PROPERTIES.has(name) || name.startsWith('_') || !isProperty(v)) continue;
    properties[name] = {
      parsed: v.parsed ?? null,
      rawvalue: text(v.rawvalue),
      value: text(v.value),
      source: text(v.source),
      source_info: text(v.source_info),
    };
  }
  const user = Object.fromEntries(
    Object.entries(entry.user_properties ?? {}).map(([k, v]) => [k, isProperty(v) ? text(v.value) : null]),
  );
  const children = (entry.children ?? []).flatMap((c) =>
    typeof c === 'object' && c !== null && typeof (c as { id?: unknown }).id === 'string'
      ? [(c as { id: string }).id]
      : [],
  );
  return {
    id: entry.id,
    name: entry.name ?? entry.id,
    pool: entry.pool ?? entry.id.split('/')[0]!,
    type: entry.type ?? 'FILESYSTEM',
    mountpoint: entry.mountpoint ?? null,
    encrypted: entry.encrypted ?? null,
    encryption_root: entry.encryption_root ?? null,
    locked: entry.locked ?? null,
    comments: commentOf(entry),
    used: bytesOf(entry.used),
    available: bytesOf(entry.available),
    children: children.filter((c) => !c.slice(entry.id.length + 1).includes('/')).sort(),
    snapshot_count: typeof entry.snapshot_count === 'number' ? entry.snapshot_count : null,
    properties,
    user_properties: user,
  };
}

/** `stor dataset show <id>`: one dataset's every property with its source, space, children, snapshots and comment. */
export async function datasetShow(ctx: CommandContext, ref: string): Promise<CommandResult<DatasetShown>> {
  const t = await ctx.transport();
  const entry = await readDataset(t, datasetId(ref), { retrieve_children: true, snapshots_count: true });
  checkSpaceProperties('pool.dataset.query', [entry]);
  const data = datasetShown(entry);
  const shownProperty = (name: string, p: DatasetProperty) => {
    const source = sourceOf(p);
    return `${p.value ?? '-'}${source && source !== 'none' ? `  (${source})` : ''}`;
  };
  return recordResult(data, {
    heading: `Dataset ${data.id}`,
    fields: [
      ['type', data.type],
      ['mountpoint', data.mountpoint],
      ['used', sizeCell(data.used)],
      ['available', sizeCell(data.available)],
      ['comments', data.comments],
      ['snapshots', data.snapshot_count],
      ['encrypted', data.encrypted],
      ...Object.entries(data.properties)
        .filter(([name]) => !['used', 'available'].includes(name))
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, p]): [string, string] => [name, shownProperty(name, p)]),
      ...Object.entries(data.user_properties)
        .filter(([k]) => k !== 'comments')
        .map(([k, v]): [string, string | null] => [k, v]),
    ],
    list: { label: 'children', items: data.children },
  });
}

export const datasetShowCommand = defineCommand({
  summary:
    'show one dataset: every property with its source (local, inherited from which parent, default), space, children, snapshots',
  effect: 'read',
  fanOut: 'read',
  calls: ['pool.dataset.query'],
  args: { dataset: arg.required('full name (tank/projects) or mountpoint (/mnt/tank/projects)', 'dataset') },
  examples: ['stor dataset show tank/projects', 'stor dataset show /mnt/tank/projects --json'],
  run: (ctx, { dataset }) => datasetShow(ctx, dataset),
});
