import { readdirSync, rmSync, unlinkSync } from 'node:fs';
import { mkdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Store } from '../../store/store.js';
import { listSnapshots } from '../../store/snapshots.js';
import { alive } from './stray-uploads.js';

/**
 * Copies of snapshots being taken: `<state>/snapshots-in-flight/<pid>-<copy>`, one empty entry per
 * copy, made before the copy starts and removed once its row is saved or the copy removed. A
 * process killed mid-copy leaves its entry, so a later start finds the half copy with one read of
 * this (usually empty) directory instead of comparing every copy with the database.
 */
const IN_FLIGHT = 'snapshots-in-flight';

/** Where the copies live: in the state, never below `mnt/`, so no API path reaches them. */
export const snapshotsDir = (stateDir: string): string => join(stateDir, 'snapshots');
const ENTRY = /^(\d+)-([0-9a-f-]{36})$/;

/** Notes that `copy` is being written; returns what forgets it again. */
export async function noteCopyInFlight(stateDir: string, copy: string): Promise<() => Promise<void>> {
  const dir = join(stateDir, IN_FLIGHT);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const entry = join(dir, `${process.pid}-${copy}`);
  await writeFile(entry, '', { mode: 0o600 });
  return () => unlink(entry).catch(() => undefined);
}

/**
 * Removes the copies whose writer died before saving the snapshot's row; a copy whose row was saved
 * (the process died just after) is a snapshot and stays. Returns the copies removed.
 */
export function sweepCopiesInFlight(store: Store): string[] {
  let names: string[];
  try {
    names = readdirSync(join(store.stateDir, IN_FLIGHT));
  } catch {
    return [];
  }
  const dead = names.flatMap((name) => {
    const m = ENTRY.exec(name);
    return m && !alive(Number(m[1])) ? [{ name, copy: m[2]! }] : [];
  });
  if (dead.length === 0) return [];
  const saved = new Set(store.read(() => listSnapshots(store.db)).map((s) => s.copy));
  const removed: string[] = [];
  for (const { name, copy } of dead) {
    try {
      if (!saved.has(copy)) {
        rmSync(join(snapshotsDir(store.stateDir), copy), { recursive: true, force: true });
        removed.push(copy);
      }
      unlinkSync(join(store.stateDir, IN_FLIGHT, name));
    } catch {
      // Another process sweeping at the same time: leave it to that one.
    }
  }
  return removed;
}
