import { chmodSync, statSync } from 'node:fs';

/**
 * Tightens a directory stor keeps secrets in (state: key hashes; config: keys) to 0700, whoever
 * created it: `mkdir -p` or an older stor may have left it group- or world-readable. A directory
 * another user owns is left alone (chmod would fail, and it is theirs to secure), and so is one on
 * a read-only file system: opening it reports that better than a failed chmod would.
 */
export function ownerOnly(dir: string): void {
  const st = statSync(dir);
  if ((st.mode & 0o077) === 0 || (process.getuid !== undefined && st.uid !== process.getuid())) return;
  try {
    chmodSync(dir, 0o700);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EROFS') throw err;
  }
}
