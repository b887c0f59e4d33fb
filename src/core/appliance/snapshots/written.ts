import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { SnapshotRecord } from '../../store/snapshots.js';
import type { Appliance } from '../appliance.js';
import { snapshotCopyDir } from '../datasets/snapshot-copies.js';

/*
 * A snapshot's `written` property is 0 when nothing was written to its dataset since the snapshot
 * before it (zettarepl/snapshot/empty.py:51-52 reads exactly that). The emulator keeps no block
 * accounting, so it compares the two snapshots' copies: the same names, types, modes, owners'
 * records, times and bytes count as nothing written. The first snapshot of a dataset is never
 * empty (its `written` is what it references, never 0 on ZFS).
 */

/** Whether two copies under `<state>/snapshots` hold the same tree (both are the emulator's own). */
async function sameTree(a: string, b: string): Promise<boolean> {
  const [na, nb] = await Promise.all([readdir(a), readdir(b)]);
  if (na.length !== nb.length) return false;
  na.sort();
  nb.sort();
  for (let i = 0; i < na.length; i++) {
    if (na[i] !== nb[i]) return false;
    const [pa, pb] = [join(a, na[i]!), join(b, nb[i]!)];
    const [sa, sb] = await Promise.all([lstat(pa), lstat(pb)]);
    if (sa.mode !== sb.mode || sa.size !== sb.size || sa.mtimeMs !== sb.mtimeMs) return false;
    if (sa.isDirectory()) {
      if (!(await sameTree(pa, pb))) return false;
    } else if (sa.isSymbolicLink()) {
      if ((await readlink(pa)) !== (await readlink(pb))) return false;
    } else if (sa.isFile() && !(await readFile(pa)).equals(await readFile(pb))) return false;
  }
  return true;
}

/** `zfs get written` = 0: the snapshot holds what the one before it on its dataset held. */
export async function isEmptySnapshot(
  appliance: Appliance,
  snapshot: SnapshotRecord,
  all: readonly SnapshotRecord[],
): Promise<boolean> {
  const before = all.filter((s) => s.dataset === snapshot.dataset && s.txg < snapshot.txg).at(-1);
  if (!before) return false;
  if (JSON.stringify(before.owners) !== JSON.stringify(snapshot.owners)) return false;
  return sameTree(snapshotCopyDir(appliance, before.copy), snapshotCopyDir(appliance, snapshot.copy));
}
