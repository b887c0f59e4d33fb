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

const two = (n: number) => String(n).padStart(2, '0');

/** A moment for people, in the local time zone: 2026-11-23 14:05. Data keeps ISO 8601 UTC. */
export function formatLocalTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}
