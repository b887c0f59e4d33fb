import { chmodSync, statSync } from 'node:fs';

/**
 * Tightens a directory stor keeps secrets in (state: key hashes; config: keys) to 0700, whoever
 * created it: `mkdir -p` or an older stor may have left it group- or world-readable. A directory
 * another user owns is left alone (chmod would fail, and it is theirs to secure).
 */
export function ownerOnly(dir: string): void {
  const st = statSync(dir);
  if ((st.mode & 0o077) === 0 || (process.getuid !== undefined && st.uid !== process.getuid())) return;
  chmodSync(dir, 0o700);
}
