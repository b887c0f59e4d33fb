import { createHash, randomBytes } from 'node:crypto';
import { readSettings, writeSetting } from '../../store/settings.js';
import type { Appliance } from '../appliance.js';

// The appliance's host id: the SHA-256 of `/etc/hostid`'s bytes, stripped of surrounding
// whitespace as Python's bytes.strip() does (MW/plugins/system/info.py:58-73 at TS-25.10.1,
// :65-80 on stable/26). A real appliance writes /etc/hostid once, at install; the emulator draws
// its four bytes the first time the id is needed and keeps them with the state, so the id lasts
// across restarts as the real one does. It names the property that holds a snapshot's removal
// date (snapshot-tasks/removal-date.ts).

const SETTING = 'hostid';

/** Python's bytes.strip() with no argument: ASCII whitespace off both ends. */
function strip(bytes: Buffer): Buffer {
  const space = (b: number | undefined) => b === 0x20 || (b !== undefined && b >= 0x09 && b <= 0x0d);
  let [start, end] = [0, bytes.length];
  while (start < end && space(bytes[start])) start++;
  while (end > start && space(bytes[end - 1])) end--;
  return bytes.subarray(start, end);
}

const hostIdOf = (hex: string) =>
  createHash('sha256')
    .update(strip(Buffer.from(hex, 'hex')))
    .digest('hex');

/** `system.host_id`: drawn and stored on first use (in one write, so two processes agree on it), then read until the state changes. */
export function applianceHostId(appliance: Appliance): string {
  const { store } = appliance;
  const stored = store.cached(SETTING, () => readSettings(store.db)[SETTING]);
  if (stored !== undefined) return hostIdOf(stored);
  return store.write(() => {
    const now = readSettings(store.db)[SETTING];
    if (now !== undefined) return hostIdOf(now);
    const drawn = randomBytes(4).toString('hex');
    writeSetting(store.db, SETTING, drawn);
    return hostIdOf(drawn);
  });
}
