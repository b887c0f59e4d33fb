import type { FieldValue } from '../output/render.js';
import { type Replication, retentionOf, routeOf, runStateOf, runTimeOf, whenOf } from './model.js';

type Shown = Pick<
  Replication,
  | 'name'
  | 'direction'
  | 'transport'
  | 'source_datasets'
  | 'target_dataset'
  | 'recursive'
  | 'exclude'
  | 'naming_schema'
  | 'also_include_naming_schema'
  | 'auto'
  | 'schedule'
  | 'retention_policy'
  | 'lifetime_value'
  | 'lifetime_unit'
  | 'allow_from_scratch'
  | 'readonly'
  | 'enabled'
> &
  Partial<Pick<Replication, 'id' | 'state'>> & {
    /** The credential's entry as stored, or its id as sent. */
    ssh_credentials: unknown;
    /** The bound tasks as stored, or their ids as sent. */
    periodic_snapshot_tasks: readonly ({ id: number } | number)[];
  };

/** A replication task as labelled lines: the fields a person reads. */
export function replicationRecord(r: Shown): [string, FieldValue][] {
  const tasks = r.periodic_snapshot_tasks.map((t) => (typeof t === 'number' ? t : t.id));
  return [
    ...(r.id !== undefined ? [['id', r.id] as [string, FieldValue]] : []),
    ['name', r.name],
    ['direction', r.direction],
    ['transport', r.transport],
    ...(r.ssh_credentials !== null && r.ssh_credentials !== undefined
      ? [['ssh credentials', credentialOf(r.ssh_credentials)] as [string, FieldValue]]
      : []),
    ['source → target', routeOf(r)],
    ['recursive', r.recursive],
    ['exclude', r.exclude],
    ['periodic snapshot tasks', tasks.map(String)],
    ['naming schema', r.naming_schema],
    ['also include naming schema', r.also_include_naming_schema],
    ['when', whenOf({ auto: r.auto, schedule: r.schedule, periodic_snapshot_tasks: tasks })],
    ['retention', retentionOf(r)],
    ['allow from scratch', r.allow_from_scratch],
    ['readonly', r.readonly],
    ['enabled', r.enabled],
    ...(r.state !== undefined
      ? [
          ['state', runStateOf({ state: r.state })] as [string, FieldValue],
          ['last run', runTimeOf({ state: r.state }) ?? '-'] as [string, FieldValue],
        ]
      : []),
  ];
}

/** A credential as the entry holds it (`{id, name, …}`) or as sent (its id). */
const credentialOf = (c: unknown): string => {
  if (typeof c === 'number') return String(c);
  const e = c as { id?: unknown; name?: unknown };
  return typeof e.name === 'string' ? `${String(e.id)} (${e.name})` : String(e.id);
};
