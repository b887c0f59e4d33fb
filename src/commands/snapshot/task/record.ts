import type { FieldValue } from '../../output/render.js';
import { cronLine, lifetimeText } from '../../shared/schedule.js';
import { stateOf, type SnapshotTask } from './model.js';

/** A task as labelled lines: the fields a person reads, the schedule as its cron line. */
export const taskRecord = (s: Omit<SnapshotTask, 'id' | 'state' | 'vmware_sync'> & Partial<SnapshotTask>) =>
  [
    ...(s.id !== undefined ? [['id', s.id] as [string, FieldValue]] : []),
    ['dataset', s.dataset],
    ['recursive', s.recursive],
    ['exclude', s.exclude],
    ['naming schema', s.naming_schema],
    ['lifetime', lifetimeText(s.lifetime_value, s.lifetime_unit)],
    ['schedule', cronLine(s.schedule)],
    ['allow empty', s.allow_empty],
    ['enabled', s.enabled],
    ...(s.state !== undefined ? [['state', stateOf({ state: s.state })] as [string, FieldValue]] : []),
  ] as [string, FieldValue][];
