import { readdirSync, readFileSync, lstatSync } from 'node:fs';
import { join } from 'node:path';

/** Characters of a key's secret in a row that already count as a leak. */
const WINDOW = 8;

/**
 * What of an API key (`<id>-<secret>`) must never show: the key, its secret, and every run of
 * WINDOW characters of the secret (a prefix, a suffix, a masked or cut print of it).
 */
export function keyFragments(key: string): string[] {
  const secret = key.slice(key.indexOf('-') + 1);
  const windows: string[] = [];
  for (let at = 0; at + WINDOW <= secret.length; at++) windows.push(secret.slice(at, at + WINDOW));
  return [key, secret, ...windows];
}

/** The first fragment of any of `keys` in `text`, or undefined: `expect(leakOf(…)).toBeUndefined()`. */
export function leakOf(text: string | Buffer, ...keys: string[]): string | undefined {
  const haystack = typeof text === 'string' ? text : text.toString('latin1');
  for (const key of keys) {
    for (const fragment of keyFragments(key)) if (haystack.includes(fragment)) return fragment;
  }
  return undefined;
}

/** Every regular file under `dir` (symbolic links not followed), with its bytes. */
export function filesUnder(dir: string): { path: string; bytes: Buffer }[] {
  const found: { path: string; bytes: Buffer }[] = [];
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return found;
  }
  for (const name of entries) {
    const path = join(dir, name);
    const st = lstatSync(path);
    if (st.isDirectory()) found.push(...filesUnder(path));
    else if (st.isFile()) found.push({ path, bytes: readFileSync(path) });
  }
  return found;
}
