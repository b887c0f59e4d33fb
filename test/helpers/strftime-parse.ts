// A small stand-in for the naming-schema parser the retention tests take as a parameter: strptime
// for %Y %m %d %H %M %S and literal text, nothing else. The time is answered as a wall clock in UTC
// fields, as retention.ts's ParseSnapshotName asks.

const FIELDS: Record<string, string> = {
  Y: '(\\d{4})',
  m: '(\\d{1,2})',
  d: '(\\d{1,2})',
  H: '(\\d{1,2})',
  M: '(\\d{1,2})',
  S: '(\\d{1,2})',
};

export function parseStrftime(schema: string, name: string): Date | undefined {
  const order: string[] = [];
  const pattern = schema.replace(/%(.)|[.*+?^${}()|[\]\\]/g, (whole, field: string | undefined) => {
    if (field === undefined) return `\\${whole}`;
    const re = FIELDS[field];
    if (re === undefined) throw new Error(`parseStrftime: %${field} is not in the test parser's subset`);
    order.push(field);
    return re;
  });
  const m = new RegExp(`^${pattern}$`).exec(name);
  if (!m) return undefined;
  const v: Record<string, number> = {};
  order.forEach((field, i) => (v[field] = Number(m[i + 1])));
  const Y = v['Y'] ?? 1900;
  const mo = v['m'] ?? 1;
  const d = v['d'] ?? 1;
  const H = v['H'] ?? 0;
  const M = v['M'] ?? 0;
  const S = v['S'] ?? 0;
  const date = new Date(Date.UTC(Y, mo - 1, d, H, M, S));
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d || H > 23 || M > 59 || S > 59) return undefined;
  return date;
}
