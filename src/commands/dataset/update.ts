import type { CommandContext } from '../framework/context.js';
import { holdToPlan } from '../shared/plan-check.js';
import { predictedDenial } from '../shared/predict-access.js';
import { confirmChange } from '../shared/prompts.js';
import { toned, type CommandResult, type View } from '../output/render.js';
import { formatBytes } from '../output/format.js';
import { call } from '../../core/contract/client.js';
import {
  COMPRESSION_CHOICES,
  poolDatasetContract,
  RECORDSIZE_CHOICES,
  type PoolDatasetEntry,
} from '../../core/contract/pool-dataset.js';
import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import { datasetId, readDataset } from './model.js';
import {
  currentValue,
  desiredFromFlags,
  INHERITABLE_PROPERTIES,
  ON_OFF,
  planChanges,
  predictUpdateRefusal,
  sourceOf,
  SYNC_CHOICES,
  updateParams,
  wantsAnything,
  type DatasetChange,
  type DesiredDataset,
  type PropertyValue,
} from './update-plan.js';
import { arg, defineCommand, flag, kebab, list, value, yesFlag, type OptionValues } from '../framework/declare.js';
import { shellWord } from '../fleet/policy.js';

const size = (what: string) => value('<size>', `${what}: bytes or 10G, 512M, 1.5T; none (or 0) for no limit`);

const options = {
  comments: value('<text>', 'the comment stored with the dataset'),
  quota: size('limit on the dataset and its children (at least 1G)'),
  refquota: size('limit on the dataset itself, children not counted (at least 1G)'),
  reservation: size('space kept for the dataset and its children'),
  compression: value('<algorithm>', 'LZ4, ZSTD, GZIP-9, OFF, … (25.10.1 names its choices when wrong)', {
    suggest: COMPRESSION_CHOICES,
  }),
  atime: value('<on|off>', 'update access times on read', { suggest: ON_OFF }),
  readonly: value('<on|off>', 'refuse writes', { suggest: ON_OFF }),
  recordsize: value('<size>', 'block size for files: a power of two, 512 to 16M (128K, 1M)', {
    suggest: RECORDSIZE_CHOICES,
  }),
  sync: value('<mode>', 'STANDARD, ALWAYS or DISABLED', { suggest: SYNC_CHOICES }),
  exec: value('<on|off>', 'allow running programs from it', { suggest: ON_OFF }),
  inherit: list(
    '<properties>',
    `reset to the parent's value: ${INHERITABLE_PROPERTIES.join(', ')}; a user property key (ns:key) is removed`,
    { suggest: INHERITABLE_PROPERTIES },
  ),
  set: list('<key=value>', 'set a user property (the key has a colon: org.example:owner=alice); repeatable'),
  yes: yesFlag(),
  dryRun: flag('show the changes and whether 25.10.1 would take them; change nothing'),
};

export type DatasetUpdateOptions = OptionValues<typeof options>;

/** `stor dataset update --json` */
export interface DatasetUpdated {
  id: string;
  dry_run: boolean;
  /** False when the dataset already had every value asked for: nothing was sent. */
  changed: boolean;
  /** `{property, old, new}`: field names as pool.dataset.update takes them, user properties by key; sizes in bytes (0 is none); `INHERIT` resets. */
  changes: DatasetChange[];
  /** After the update, each changed property as read back: its value and where it comes from (`local`, `inherited from tank`, `default`). */
  now?: Record<string, { value: PropertyValue; source: string | null }>;
}

const SIZES = new Set(['quota', 'refquota', 'reservation']);

/** A value as the diff shows it: sizes in binary units (0 as none), text quoted, nothing as `-`. */
export function shownValue(property: string, v: PropertyValue): string {
  if (v === null) return '-';
  if (v === 'INHERIT') return 'inherit';
  if (SIZES.has(property) && typeof v === 'number') return v === 0 ? 'none' : formatBytes(v);
  if (property === 'comments' || property.includes(':')) return JSON.stringify(v);
  return String(v);
}

/** One change as a line of the plan: `compression: LZ4 → ZSTD`. */
export const changeLine = (c: DatasetChange): string =>
  `${c.property}: ${shownValue(c.property, c.old)} → ${shownValue(c.property, c.new)}`;

/**
 * `stor dataset update <id>`: reads the dataset, shows the changes as `property: old → new`,
 * predicts 25.10.1's refusal from reads (the role, the model, the plugin's checks, ZFS's quota
 * check), asks (or --yes), sends one pool.dataset.update, reads back and verifies. What already
 * holds is no change; with nothing to change it sends nothing and exits 0.
 */
export async function datasetUpdate(
  ctx: CommandContext,
  ref: string,
  options: DatasetUpdateOptions,
): Promise<CommandResult<DatasetUpdated>> {
  const desired = desiredFromFlags(options);
  if (!wantsAnything(desired)) {
    throw new StorError(E.NOTHING_TO_UPDATE, 'nothing to change', {
      hint: 'pass one of the options `stor dataset update --help` lists',
    });
  }
  const t = await ctx.transport();
  const id = datasetId(ref);
  const entry = await readDataset(t, id);
  const changes = planChanges(entry, desired);
  const data: DatasetUpdated = { id, dry_run: options.dryRun === true, changed: changes.length > 0, changes };
  if (changes.length === 0) {
    ctx.note(`stor: ${id} already has these values; nothing changed`);
    return { data, view: updatedView(data) };
  }
  // The refusal, predicted in the appliance's order: the role (the dispatcher), then the method's own checks.
  const refusal =
    (await predictedDenial(t, poolDatasetContract['pool.dataset.update'].access)) ??
    predictUpdateRefusal(entry, updateParams(changes));
  if (refusal) throw refusal;
  if (options.dryRun) {
    ctx.note('stor: dry run: nothing was changed');
    return { data, view: updatedView(data) };
  }
  const preview = previewLine(id, options);
  const asked = await confirmChange(
    ctx,
    `Update ${id}: ${changes.map(changeLine).join('; ')}?`,
    options.yes,
    `preview with \`${preview}\``,
  );
  // What was confirmed must still be the change: a value someone else changed meanwhile would
  // otherwise be overwritten unseen (plan-check.ts).
  const fresh = await holdToPlan(ctx, {
    shown: changes.map(changeLine),
    pick: (plan: DatasetUpdated) => plan.changes.map(changeLine),
    asked,
    reread: async () => planChanges(await readDataset(t, id), desired).map(changeLine),
    what: `${id} now has`,
    preview,
  });
  if (fresh.length === 0) {
    ctx.note(`stor: ${id} already has these values; nothing changed`);
    return {
      data: { ...data, changed: false, changes: [] },
      view: updatedView({ ...data, changed: false, changes: [] }),
    };
  }
  await call(t, 'pool.dataset.update', [id, updateParams(changes)]);
  const after = await readDataset(t, id);
  verify(id, after, desired);
  data.now = Object.fromEntries(
    changes.map((c) => [
      c.property,
      { value: currentValue(after, c.property), source: sourceOfChange(after, c.property) },
    ]),
  );
  return { data, view: updatedView(data) };
}

/** The command again with --dry-run, for the question's safe first step and a changed plan's hint. */
function previewLine(id: string, options: DatasetUpdateOptions): string {
  const words = ['stor', 'dataset', 'update', shellWord(id)];
  for (const [key, v] of Object.entries(options)) {
    if (key === 'yes' || key === 'dryRun' || v === undefined || v === false) continue;
    words.push(`--${kebab(key)}`, shellWord(Array.isArray(v) ? v.join(',') : String(v)));
  }
  return [...words, '--dry-run'].join(' ');
}

function sourceOfChange(entry: PoolDatasetEntry, property: string): string | null {
  if (property === 'comments' || property.includes(':')) return currentValue(entry, property) === null ? null : 'local';
  return sourceOf((entry as Record<string, unknown>)[property] as Parameters<typeof sourceOf>[0]);
}

/** Read back: nothing asked for may still differ, or the update did not do what it said. */
function verify(id: string, after: PoolDatasetEntry, desired: DesiredDataset): void {
  const left = planChanges(after, desired);
  if (left.length > 0) {
    throw new StorError(E.VERIFY_FAILED, `${id} does not read back as updated: ${left.map(changeLine).join('; ')}`, {
      details: left.map(changeLine),
      hint: `\`stor dataset show ${id}\` shows what it has now`,
    });
  }
}

function updatedView(data: DatasetUpdated): View {
  const line = (c: DatasetChange) => {
    const now = data.now?.[c.property];
    const shown = now
      ? `${shownValue(c.property, now.value)}${now.source && now.source !== 'local' ? ` (${now.source})` : ''}`
      : shownValue(c.property, c.new);
    return `${shownValue(c.property, c.old)} → ${shown}`;
  };
  return {
    kind: 'record',
    fields: [
      ['dataset', data.id],
      ['dry run', toned(data.dry_run, data.dry_run ? 'warning' : undefined)],
      ['changed', data.changed],
      ...data.changes.map((c): [string, string] => [c.property, line(c)]),
    ],
  };
}

export const datasetUpdateCommand = defineCommand({
  summary:
    'change a dataset: comment, quotas, compression, atime, readonly, recordsize, sync, exec, user properties (asks first)',
  effect: 'change',
  asks: true,
  args: { dataset: arg.required('full name or mountpoint', 'dataset') },
  options,
  examples: [
    'stor dataset update tank/projects --quota 10G --compression zstd --dry-run',
    'stor dataset update tank/projects --inherit compression,atime --set org.example:owner=alice --yes',
  ],
  fanOut: 'change',
  calls: ['pool.dataset.query', 'pool.dataset.update'],
  run: (ctx, { dataset }, opts) => datasetUpdate(ctx, dataset, opts),
});
