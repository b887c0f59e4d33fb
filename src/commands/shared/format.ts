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

/** A time for people: local ISO 8601 with the offset, to the second (2026-11-23T08:20:29+01:00). */
export function localIso(date: Date | string): string {
  const d = typeof date === 'string' ? new Date(date) : date;
  const pad = (n: number) => String(Math.trunc(Math.abs(n))).padStart(2, '0');
  const offset = -d.getTimezoneOffset();
  const zone = `${offset < 0 ? '-' : '+'}${pad(offset / 60)}:${pad(offset % 60)}`;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}${zone}`;
}
