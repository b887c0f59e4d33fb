// A snapshot's removal date: the user property `org.truenas:destroy_at_<host id's first 8>`
// (MW/plugins/snapshot_/removal_date.py:10-12, TS-25.10.1). When a periodic snapshot task is
// deleted or changed with `fixate_removal_date`, each snapshot it owned is given the date its
// lifetime would have ended, so retention still destroys it then though no task owns it any more
// (MW/plugins/zettarepl_/snapshot_removal_date.py:80-110); retention reads the property back
// (:25-52) and keeps the snapshot until the date passes (zettarepl/retention/
// snapshot_removal_date_snapshot_owner.py:32-33, release/25.10.1). The dates are wall clocks: the
// name's time plus the lifetime, written by datetime.isoformat() with no offset, and an offset in a
// value is dropped when compared (`.replace(tzinfo=None)`).

import { lifetimeMs, type Lifetime } from '../../lifetime.js';
import type { ParseSnapshotName, RetentionSnapshot, SnapshotRef } from './retention.js';

/** The property's name on an appliance with this host id (MW/plugins/snapshot_/removal_date.py:10-12). */
export function removalDateProperty(hostId: string): string {
  return `org.truenas:destroy_at_${hostId.slice(0, 8)}`;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** datetime.isoformat() of a naive wall clock: `2026-01-05T10:00:00`, microseconds only when there are some. */
export function formatRemovalDate(wall: Date): string {
  const base =
    `${pad(wall.getUTCFullYear(), 4)}-${pad(wall.getUTCMonth() + 1)}-${pad(wall.getUTCDate())}` +
    `T${pad(wall.getUTCHours())}:${pad(wall.getUTCMinutes())}:${pad(wall.getUTCSeconds())}`;
  const ms = wall.getUTCMilliseconds();
  return ms === 0 ? base : `${base}.${pad(ms * 1000, 6)}`;
}

const REMOVAL_DATE =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,6}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/** Whether isodate.parse_datetime reads the value as an aware datetime: it ends in an offset (`Z`, `+05:00`). */
export const removalDateIsAware = (value: string): boolean => REMOVAL_DATE.exec(value)?.[8] !== undefined;

/**
 * The property's value as retention compares it: isodate.parse_datetime's wall clock, any offset
 * dropped; undefined for a value it cannot read (the middleware logs and skips it, :43-47).
 */
export function parseRemovalDate(value: string): Date | undefined {
  const m = REMOVAL_DATE.exec(value);
  if (!m) return undefined;
  const field = (i: number) => Number(m[i] ?? '0');
  const [year, month, day, hour, minute, second] = [
    field(1),
    field(2),
    field(3),
    field(4),
    field(5),
    field(6),
  ] as const;
  const ms = Math.floor(Number((m[7] ?? '0').padEnd(6, '0')) / 1000);
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms));
  // A field out of range (month 13, Feb 30) is not a date isodate reads.
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) {
    return undefined;
  }
  return date;
}

/** A removal date to set on one snapshot. */
export interface RemovalDateChange extends SnapshotRef {
  readonly removalDate: Date;
}

/**
 * The removal dates fixate_removal_date sets for a task's snapshots: the name's time plus the
 * lifetime, unless the snapshot already carries one as late or later (snapshot_removal_date.py:80-110).
 * A name the schema does not parse gets none (the middleware logs it, :87-91).
 */
export function fixateRemovalDates(
  task: { readonly namingSchema: string; readonly lifetime: Lifetime },
  snapshots: readonly RetentionSnapshot[],
  parse: ParseSnapshotName,
): RemovalDateChange[] {
  const changes: RemovalDateChange[] = [];
  for (const s of snapshots) {
    const taken = parse(task.namingSchema, s.name);
    if (taken === undefined) continue;
    const removalDate = new Date(taken.getTime() + lifetimeMs(task.lifetime));
    if (s.removalDate !== undefined && s.removalDate.getTime() >= removalDate.getTime()) continue;
    changes.push({ dataset: s.dataset, name: s.name, removalDate });
  }
  return changes;
}
