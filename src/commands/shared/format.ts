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
