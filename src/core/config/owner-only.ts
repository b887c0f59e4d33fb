import { chmodSync, lstatSync, statSync, type Stats } from 'node:fs';

/** Tightens `path` to `mode` unless it is already owner-only, or is not ours to change. */
function tighten(path: string, st: Stats, mode: number): void {
  if ((st.mode & 0o077) === 0 || (process.getuid !== undefined && st.uid !== process.getuid())) return;
  try {
    chmodSync(path, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EROFS') throw err;
  }
}

/**
 * Tightens a directory stor keeps secrets in (state: key hashes; config: keys) to 0700, whoever
 * created it: `mkdir -p` or an older stor may have left it group- or world-readable. A directory
 * another user owns is left alone (chmod would fail, and it is theirs to secure), and so is one on
 * a read-only file system: opening it reports that better than a failed chmod would.
 */
export function ownerOnly(dir: string): void {
  tighten(dir, statSync(dir), 0o700);
}

/**
 * The same for a secret file stor writes (`config.json`, `admin.key`, the state database): back to
 * 0600 on every open, as its directory is, since a restore, a copy or a hand edit under umask 022
 * leaves it 0644. Silently, as for the directories: the file is stor's own, and the fix is the
 * same whoever loosened it. A missing file is left to be created; a symlink is not followed (its
 * target is not stor's to chmod).
 */
export function ownerOnlyFile(path: string): void {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (st.isFile()) tighten(path, st, 0o600);
}
