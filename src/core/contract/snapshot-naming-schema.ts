import type * as z from 'zod';

// Naming schemas of snapshots as zettarepl reads and writes them (zettarepl/snapshot/name.py, branch
// release/25.10.1; stable/26 is the same): `validate_snapshot_naming_schema` (the SnapshotNameSchema
// type of MW/api/base/types/string.py:74 runs it), `get_snapshot_name` (a time's name) and
// `parse_snapshot_name` (a name's time). It sits in the contract because the contract's params run
// the validation (contract-is-the-floor: the contract imports no appliance module); the appliance's
// periodic snapshot tasks read it from here.
//
// Python's strftime/strptime are followed for the directives below (CPython 3.11's _strptime, the
// Python of TrueNAS 25.10 and 26, C locale). Others (%U, %W, %f, %c, %x, %X, %G, %V, %u, %w, %Z)
// are refused with UNSUPPORTED_DIRECTIVE: a deviation, listed in docs/RELEASES.md.

/** A zod refinement that reports `validate_snapshot_naming_schema`'s ValueError (SnapshotNameSchema). */
export function refineNamingSchema(s: string, ctx: z.RefinementCtx): void {
  const error = namingSchemaError(s);
  if (error !== null) ctx.addIssue({ code: 'custom', message: error });
}

/** A wall-clock time and, for an aware one, its offset from UTC in minutes. */
export interface NamingTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** null for a naive time (Python's `datetime.now()`): `%z` is then empty. */
  offsetMinutes: number | null;
}

const SUPPORTED = new Set(['Y', 'y', 'm', 'd', 'H', 'I', 'p', 'M', 'S', 'j', 'a', 'A', 'b', 'B', 'z', 's', '%']);
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** The message for a directive stor does not emulate (not the appliance's: it would accept it). */
export const UNSUPPORTED_DIRECTIVE = (d: string) => `%${d} is not supported in naming schemas by this emulator`;

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Days since 1970-01-01 of a proleptic Gregorian date. */
const epochDays = (y: number, m: number, d: number) => Math.floor(Date.UTC(y, m - 1, d) / 86_400_000);

/** `time.mktime` of the fields as local time: what glibc's `%s` gives for a struct tm. */
const localEpoch = (t: NamingTime) =>
  Math.floor(new Date(t.year, t.month - 1, t.day, t.hour, t.minute, t.second).getTime() / 1000);

/** Python's `strftime(schema)` for the supported directives. */
export function strftimeNaming(schema: string, t: NamingTime): string {
  const weekday = (epochDays(t.year, t.month, t.day) + 3) % 7; // 1970-01-01 was a Thursday (3, Monday = 0).
  const hour12 = t.hour % 12 === 0 ? 12 : t.hour % 12;
  const yday = epochDays(t.year, t.month, t.day) - epochDays(t.year, 1, 1) + 1;
  const z = () => {
    if (t.offsetMinutes === null) return '';
    const abs = Math.abs(t.offsetMinutes);
    return `${t.offsetMinutes < 0 ? '-' : '+'}${pad(Math.trunc(abs / 60))}${pad(abs % 60)}`;
  };
  const fields: Record<string, () => string> = {
    Y: () => String(t.year),
    y: () => pad(t.year % 100),
    m: () => pad(t.month),
    d: () => pad(t.day),
    H: () => pad(t.hour),
    I: () => pad(hour12),
    p: () => (t.hour < 12 ? 'AM' : 'PM'),
    M: () => pad(t.minute),
    S: () => pad(t.second),
    j: () => pad(yday, 3),
    a: () => DAYS[weekday]!.slice(0, 3),
    A: () => DAYS[weekday]!,
    b: () => MONTHS[t.month - 1]!.slice(0, 3),
    B: () => MONTHS[t.month - 1]!,
    z,
    s: () => String(localEpoch(t)),
    '%': () => '%',
  };
  return schema.replace(/%(.?)/g, (all, d: string) => fields[d]?.() ?? all);
}

/** `get_snapshot_name` (name.py:21-22): strftime, then `+` (not allowed in ZFS names) as `--`. */
export function snapshotName(schema: string, t: NamingTime): string {
  return strftimeNaming(schema, t).replace(/\+/g, '--');
}

/** A Date as the appliance's wall clock shows it (the process's time zone), aware. */
function localNamingTime(date: Date): NamingTime {
  return {
    year: date.getFullYear(),
    month: date.getMonth() + 1,
    day: date.getDate(),
    hour: date.getHours(),
    minute: date.getMinutes(),
    second: date.getSeconds(),
    offsetMinutes: -date.getTimezoneOffset(),
  };
}

/** `naming_schema_has_utcoffset` (name.py:107-108). */
export const namingSchemaHasUtcoffset = (schema: string) => /(^|[^%])%z/.test(schema);

/** CPython 3.11 `_strptime.TimeRE`'s patterns (C locale for the names). */
const PATTERNS: Record<string, string> = {
  d: '(3[0-1]|[1-2]\\d|0[1-9]|[1-9]| [1-9])',
  H: '(2[0-3]|[0-1]\\d|\\d)',
  I: '(1[0-2]|0[1-9]|[1-9])',
  j: '(36[0-6]|3[0-5]\\d|[1-2]\\d\\d|0[1-9]\\d|00[1-9]|[1-9]\\d|0[1-9]|[1-9])',
  m: '(1[0-2]|0[1-9]|[1-9])',
  M: '([0-5]\\d|\\d)',
  S: '(6[0-1]|[0-5]\\d|\\d)',
  y: '(\\d\\d)',
  Y: '(\\d\\d\\d\\d)',
  z: '([+-]\\d\\d:?[0-5]\\d(?::?[0-5]\\d(?:\\.\\d{1,6})?)?|Z)',
  a: `(${DAYS.map((d) => d.slice(0, 3)).join('|')})`,
  A: `(${DAYS.join('|')})`,
  b: `(${MONTHS.map((m) => m.slice(0, 3)).join('|')})`,
  B: `(${MONTHS.join('|')})`,
  p: '(am|pm)',
};

/** What `parse_snapshot_name` answers: the naive time and, with `%z`, its offset. */
export interface ParsedSnapshotName {
  name: string;
  namingSchema: string;
  /** The naive wall-clock time (`ParsedSnapshotName.datetime`). */
  time: Omit<NamingTime, 'offsetMinutes'>;
  /** Minutes east of UTC from `%z`, or null (`tzinfo` None). */
  offsetMinutes: number | null;
}

const pyRepr = (s: string) => (s.includes("'") && !s.includes('"') ? `"${s}"` : `'${s.replace(/'/g, "\\'")}'`);

/** `datetime.strptime(name, schema)` as CPython 3.11 does it, or throws Python's ValueError text. */
function strptime(name: string, schema: string): { time: ParsedSnapshotName['time']; offsetMinutes: number | null } {
  const order: string[] = [];
  // _strptime's TimeRE.pattern: regex characters escaped, whitespace runs as \s+, directives replaced.
  let pattern = '';
  for (let i = 0; i < schema.length; i++) {
    const c = schema[i]!;
    // A lone % at the end: _strptime's IndexError, reported as a stray % (CPython 3.11 _strptime.py).
    if (c === '%' && i + 1 === schema.length) throw new Error(`stray % in format '${schema}'`);
    if (c === '%') {
      const d = schema[++i]!;
      if (d === '%') pattern += '%';
      else if (PATTERNS[d] !== undefined) {
        if (order.includes(d)) throw new Error(`Invalid naming schema: redefinition of group name '${d}'`);
        order.push(d);
        pattern += PATTERNS[d];
      } else throw new Error(`'${d}' is a bad directive in format '${schema}'`);
    } else if (/\s/.test(c)) {
      pattern += '\\s+';
      while (i + 1 < schema.length && /\s/.test(schema[i + 1]!)) i++;
    } else pattern += c.replace(/[\\.^$*+?(){}[\]|-]/g, '\\$&');
  }
  const m = new RegExp(`^(?:${pattern})`, 'i').exec(name);
  if (!m) throw new Error(`time data ${pyRepr(name)} does not match format ${pyRepr(schema)}`);
  if (m[0].length !== name.length) throw new Error(`unconverted data remains: ${name.slice(m[0].length)}`);
  let year = 1900;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let julian: number | null = null;
  let offsetMinutes: number | null = null;
  let ampm: string | null = null;
  let hour12: number | null = null;
  order.forEach((d, k) => {
    const v = m[k + 1]!;
    switch (d) {
      case 'Y':
        year = Number(v);
        break;
      case 'y':
        year = Number(v) + (Number(v) <= 68 ? 2000 : 1900);
        break;
      case 'm':
        month = Number(v);
        break;
      case 'b':
      case 'B':
        month = MONTHS.findIndex((x) => x.toLowerCase().startsWith(v.toLowerCase())) + 1;
        break;
      case 'd':
        day = Number(v);
        break;
      case 'H':
        hour = Number(v);
        hour12 = null;
        break;
      case 'I':
        hour12 = Number(v);
        break;
      case 'p':
        ampm = v.toLowerCase();
        break;
      case 'M':
        minute = Number(v);
        break;
      case 'S':
        second = Number(v);
        break;
      case 'j':
        julian = Number(v);
        break;
      case 'z': {
        if (v.toUpperCase() === 'Z') offsetMinutes = 0;
        else {
          const digits = v.slice(1).replace(/:/g, '');
          const total = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4));
          offsetMinutes = v[0] === '-' ? -total : total;
        }
        break;
      }
      // %a/%A: read, then unused when the date is known (_strptime.py: weekday only fills a missing julian).
    }
  });
  // _strptime: %I takes the hour when it came after %H (the last group wins), read with %p.
  if (hour12 !== null) {
    const h: number = hour12;
    hour = ampm === 'pm' ? (h === 12 ? 12 : h + 12) : h === 12 ? 0 : h;
  }
  if (julian !== null) {
    const date = new Date(Date.UTC(year, 0, julian));
    if (year < 100) date.setUTCFullYear(year, 0, julian);
    [year, month, day] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
  }
  const check = new Date(Date.UTC(2000, month - 1, day));
  if (check.getUTCMonth() !== month - 1) throw new Error('day is out of range for month');
  if (month === 2 && day === 29 && !(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)))
    throw new Error('day is out of range for month');
  // _strptime keeps %S up to 61; datetime() refuses it.
  if (second > 59) throw new Error('second must be in 0..59');
  return { time: { year, month, day, hour, minute, second }, offsetMinutes };
}

/**
 * `parse_snapshot_name` (name.py:25-53): with `%s`, the epoch seconds as local time; otherwise
 * strptime, a `--` (or the `:` older zettarepl wrote, name.py:39-42) read back as `+` when the schema has `%z`.
 * Throws Python's ValueError text when the name does not fit.
 */
export function parseSnapshotName(name: string, namingSchema: string): ParsedSnapshotName {
  if (namingSchema.includes('%s')) {
    const pattern = namingSchema.replace(/[\\.^$*+?(){}[\]|-]/g, '\\$&').replace('%s', '(?<s>[0-9]+)');
    const m = new RegExp(`^(?:${pattern})$`).exec(name);
    if (!m) throw new Error(`time data ${pyRepr(name)} does not match format ${pyRepr(namingSchema)}`);
    const t = localNamingTime(new Date(Number(m.groups!.s) * 1000));
    const { offsetMinutes: _naive, ...time } = t;
    return { name, namingSchema, time, offsetMinutes: null };
  }
  let strptimeName = name;
  if (namingSchemaHasUtcoffset(namingSchema))
    strptimeName = name.includes('--') ? name.replace(/--/g, '+') : name.replace(/:/g, '+');
  const { time, offsetMinutes } = strptime(strptimeName, namingSchema);
  return { name, namingSchema, time, offsetMinutes };
}

/** `parse_snapshot_name`, or null where it raises ValueError (`parse_snapshots_names`, name.py:56-64). */
export function tryParseSnapshotName(name: string, namingSchema: string): ParsedSnapshotName | null {
  try {
    return parseSnapshotName(name, namingSchema);
  } catch {
    return null;
  }
}

/** `repr()` of the datetimes validate formats (pytz's Etc zones are StaticTzInfo). */
const reprDatetime = (t: NamingTime, zone: string | null) =>
  `datetime.datetime(${t.year}, ${t.month}, ${t.day}, ${t.hour}, ${t.minute}${t.second ? `, ${t.second}` : ''}${
    zone ? `, tzinfo=<StaticTzInfo '${zone}'>` : ''
  })`;

/**
 * `validate_snapshot_naming_schema` (name.py:111-152): the first ValueError text it raises, or null.
 */
export function namingSchemaError(schema: string): string | null {
  if (schema.includes('%%')) return '% is not an allowed character in ZFS snapshot name';
  const bad = schema.match(/[^0-9A-Za-z %_.:-]/g);
  if (bad) {
    return bad.length === 1
      ? `${bad[0]} is not an allowed character in ZFS snapshot name`
      : `${bad.join('')} are not allowed characters in ZFS snapshot name`;
  }
  if (schema.includes('%s')) {
    if (/%[^s]/.test(schema)) return 'No other placeholder can be used with %s in naming schema';
  } else {
    for (const s of ['%Y', '%m', '%d', '%H', '%M'])
      if (!schema.includes(s)) return `${s} must be present in snapshot naming schema`;
  }
  const hasUtcoffset = namingSchemaHasUtcoffset(schema);
  if (hasUtcoffset && schema.includes('--')) {
    return (
      "%z and `--` can't be present in snapshot naming schema at the same time. " +
      "ZFS snapshot names can't contain `+` so we use `--` instead."
    );
  }
  const unsupported = [...schema.matchAll(/%(.)/g)].map((m) => m[1]!).find((d) => !SUPPORTED.has(d));
  if (unsupported !== undefined) return UNSUPPORTED_DIRECTIVE(unsupported);
  // Two instants whose names must parse back to themselves, at +10:00 and -10:00 (name.py:134-137).
  for (const [offset, zone] of [
    [600, 'Etc/GMT-10'],
    [-600, 'Etc/GMT+10'],
  ] as const) {
    const d: NamingTime = { year: 2000, month: 2, day: 29, hour: 19, minute: 40, second: 0, offsetMinutes: offset };
    const formatted = snapshotName(schema, d);
    let parsed: ParsedSnapshotName;
    try {
      parsed = parseSnapshotName(formatted, schema);
    } catch (err) {
      return (err as Error).message;
    }
    const p = parsed.time;
    const same =
      p.year === d.year &&
      p.month === d.month &&
      p.day === d.day &&
      p.hour === d.hour &&
      p.minute === d.minute &&
      p.second === d.second;
    const parsedRepr = reprDatetime({ ...p, offsetMinutes: null }, null);
    if (hasUtcoffset && (!same || parsed.offsetMinutes !== offset)) {
      const tz =
        parsed.offsetMinutes === null
          ? 'None'
          : `datetime.timezone(datetime.timedelta(seconds=${parsed.offsetMinutes * 60}))`;
      return `Failed to parse datetime using provided format: datetime=${reprDatetime(d, zone)}, formatted=${formatted}, parsed=${parsedRepr}, parsed_tzinfo=${tz}`;
    }
    if (!hasUtcoffset && !same)
      return `Failed to parse datetime using provided format: datetime=${reprDatetime(d, zone)}, formatted=${formatted}, parsed=${parsedRepr}`;
  }
  return null;
}
