/** The mode a UnixPerm string stands for, as Python's `int(value, 8)` reads it ("755", "0o755", " 7_55 "). */
export function unixPermBits(value: string): number {
  const digits = value
    .trim()
    .replace(/^\+/, '')
    .replace(/^0[oO]_?/, '')
    .replaceAll('_', '');
  return parseInt(digits, 8);
}
