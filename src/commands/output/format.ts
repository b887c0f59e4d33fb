import { shown, type Cell } from './render.js';

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** A size for people: 1.5 MiB. Data (`--json`, piped output) keeps exact bytes. */
export function formatBytes(n: number): string {
  let v = n;
  let u = 0;
  while (v >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? Math.round(v) : v.toFixed(1)} ${UNITS[u]}`;
}

export function octal(mode: number, width = 4): string {
  return mode.toString(8).padStart(width, '0');
}

// st_mode's file type (S_IFMT) as `ls -l` shows it.
const FILE_TYPES: Record<number, string> = {
  0o140000: 's',
  0o120000: 'l',
  0o100000: '-',
  0o060000: 'b',
  0o040000: 'd',
  0o020000: 'c',
  0o010000: 'p',
};
const TYPE_LETTERS: Record<string, string> = { DIRECTORY: 'd', SYMLINK: 'l', FILE: '-' };

/**
 * A mode as `ls -l` shows it, with the permission bits in octal: `-rw-r--r-- 0644`,
 * `drwxr-xr-x 0755`, `-rwsr-xr-x 4755`. The type comes from st_mode, or from `type` when the
 * mode carries only permission bits.
 */
export function formatMode(mode: number, type?: string): string {
  const letter = FILE_TYPES[mode & 0o170000] ?? (type !== undefined ? (TYPE_LETTERS[type] ?? '?') : '-');
  const rwx = (bits: number, special: boolean, set: string, unset: string): string =>
    `${bits & 4 ? 'r' : '-'}${bits & 2 ? 'w' : '-'}${special ? (bits & 1 ? set : unset) : bits & 1 ? 'x' : '-'}`;
  const perms =
    rwx((mode >> 6) & 7, (mode & 0o4000) !== 0, 's', 'S') +
    rwx((mode >> 3) & 7, (mode & 0o2000) !== 0, 's', 'S') +
    rwx(mode & 7, (mode & 0o1000) !== 0, 't', 'T');
  return `${letter}${perms} ${octal(mode & 0o7777)}`;
}

/**
 * A time in local ISO 8601 with its offset, `2026-01-02T03:04:05+01:00`, in `timeZone` (the
 * operator's TZ) or the process's own zone.
 */
export function formatTime(at: Date, timeZone?: string): string {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    }).formatToParts(at);
  } catch {
    // An unknown TZ name: the process zone, rather than no time at all.
    return formatTime(at);
  }
  const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  const offsetMinutes = Math.round((wall - Math.floor(at.getTime() / 1000) * 1000) / 60000);
  const two = (n: number) => String(n).padStart(2, '0');
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const local = new Date(wall).toISOString().slice(0, 19);
  return `${local}${sign}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
}

/** A time: local ISO with the offset on a terminal (in `timeZone`, the operator's TZ), the data's own ISO string when piped. */
export const timeCell = (iso: string | null, timeZone?: string): Cell =>
  iso === null ? null : shown(iso, formatTime(new Date(iso), timeZone));

/** A size: human on a terminal, exact bytes when piped. */
export const sizeCell = (n: number | null): Cell => (n === null ? null : shown(n, formatBytes(n)));

/** An owner by name, the id when the name is unknown. */
export const ownerText = (name: string | null | undefined, id: number | null): string =>
  name ?? (id === null ? '-' : String(id));

/**
 * A duration as a person says it: its two largest units, whole (`12 min 9 s`, `3 days 4 h`), for
 * a terminal; `--json` keeps the appliance's own text and seconds.
 */
export function formatDuration(seconds: number): string {
  const units: [number, (n: number) => string][] = [
    [86400, (n) => `${n} day${n === 1 ? '' : 's'}`],
    [3600, (n) => `${n} h`],
    [60, (n) => `${n} min`],
    [1, (n) => `${n} s`],
  ];
  let rest = Math.max(0, Math.floor(seconds));
  const parts: string[] = [];
  for (const [size, say] of units) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0 || parts.length > 0) parts.push(n > 0 ? say(n) : '');
    if (parts.length === 2) break;
  }
  const said = parts.filter((p) => p !== '');
  return said.length ? said.join(' ') : '0 s';
}
