import * as z from 'zod';
import { once, str } from './method.js';

// CronModel (MW/api/v25_10_1/common.py:77-100; stable/26's is the same): five string fields, and a
// model validator that builds a croniter from them (`croniter_for_schedule`, MW/utils/cron.py:9-18)
// and reports what croniter raised as `Please ensure fields match cron syntax - <error>`. The
// croniter here is python3-croniter 1.3.5 (Debian bookworm, the base of TrueNAS 25.10): its
// `_expand` (croniter.py:596-768) is ported once, here, for this validation and for the emulator's
// snapshot-task schedules (zettarepl runs the same croniter: appliance/snapshot-tasks/schedule.ts).

export const CRON_FIELDS = ['minute', 'hour', 'dom', 'month', 'dow'] as const;
export type CronSchedule = Record<(typeof CRON_FIELDS)[number], string>;

/** What croniter's `expand` raised for an expression; the message is croniter's. */
export class CronExpressionError extends Error {}

/** One field as croniter's `_expand` leaves it: `*` (all), or its values, and for day of month `L`. */
export interface CronField {
  readonly all: boolean;
  readonly values: ReadonlySet<number>;
  /** Day of month `L`: the month's last day. */
  readonly last: boolean;
}

/** croniter's nth_weekday_of_month: day of week → `k` of `N#k`, `l` of `LN`. */
export type NthWeekdays = ReadonlyMap<number, ReadonlySet<number | 'l'>>;

export interface CronExpansion {
  /** Five fields, or six (the sixth being seconds) when a field held a space. */
  readonly fields: readonly CronField[];
  readonly nth: NthWeekdays;
}

/** croniter.RANGES, ALPHACONV, LOWMAP, LEN_MEANS_ALL: minute, hour, day of month, month, day of week, second. */
const RANGES: readonly (readonly [number, number])[] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 7],
  [0, 59],
];
const ALPHACONV: readonly Record<string, number | 'l'>[] = [
  {},
  {},
  { l: 'l' },
  { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 },
  { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 },
  {},
];
const LOWMAP: readonly Record<number, number>[] = [{}, {}, { 0: 1 }, { 0: 1 }, { 7: 0 }, {}];
const LEN_MEANS_ALL = [60, 24, 31, 12, 7, 60];
const BAD_LENGTH = 'Exactly 5 or 6 columns has to be specified for iterator expression.';

const STEP = /^([^-]+)-([^-/]+)(\/(\d+))?$/;
const ONLY_INT = /^\d+$/;
const STAR_OR_INT = /^(\d+|\*)$/;
// Python's `^(\w+)#(\d+)|l(\d+)$` under re.match: `N#k` anchored at the start only, `LN` at both ends.
const SPECIAL_WEEKDAY = /^(?:(\w+)#(\d+)|l(\d+)$)/;
const HASHED = /^(h|r)(\((\d+)-(\d+)\))?(\/(\d+))?$/;

/**
 * croniter's HashExpander on a whole field (croniter.py:864-944): `H` needs a hash_id, which
 * nothing passes; `R` is a random value, drawn again on every expansion as croniter draws it.
 */
function expandHashed(i: number, expr: string): string {
  const m = HASHED.exec(expr);
  if (!m) return expr;
  const [, type, , begin, end, , divisor] = m;
  if (type === 'h') throw new CronExpressionError('Hashed definitions must include hash_id');
  const [low, high] = RANGES[i]!;
  const random = (rangeEnd = high, rangeBegin = low) => {
    const n = rangeEnd - rangeBegin + 1;
    // Python's `%`: a ZeroDivisionError for 0, the divisor's sign otherwise.
    if (n === 0) throw new CronExpressionError('integer modulo by zero');
    const crc = Math.floor(Math.floor(Math.random() * 2 ** 32) / 2 ** i);
    return (((crc % n) + n) % n) + rangeBegin;
  };
  if (divisor !== undefined && Number(divisor) === 0) throw new CronExpressionError(`Bad expression: ${expr}`);
  if (begin !== undefined && divisor !== undefined)
    return `${random(Number(divisor)) + Number(begin)}-${Number(end)}/${Number(divisor)}`;
  if (begin !== undefined) return String(random(Number(end), Number(begin)));
  if (divisor !== undefined) return `${random(Number(divisor))}-${high}/${Number(divisor)}`;
  return String(random());
}

/**
 * Python's repr of croniter's dow set and nth_weekday_of_month's sets: small ints iterate in order;
 * where Python puts 'l' among them varies with its string hashing, here last.
 */
const pySet = (values: Iterable<number | 'l'>) =>
  `{${[...values].map((v) => (v === 'l' ? "'l'" : String(v))).join(', ')}}`;

/**
 * croniter 1.3.5's `_expand` (croniter.py:596-768) of an expression, as `expand` raises it: the
 * fields' values and the nth weekdays, or a CronExpressionError with croniter's message. The
 * `@daily`-style aliases are left out: no schedule's fields join into one.
 */
export function expandCron(exprFormat: string): CronExpansion {
  const expressions = exprFormat
    .toLowerCase()
    .split(/\s+/)
    .filter((e) => e !== '');
  if (expressions.length !== 5 && expressions.length !== 6) throw new CronExpressionError(BAD_LENGTH);
  const nth = new Map<number, Set<number | 'l'>>();
  let dowLiterals: number[] = [];
  const fields = expressions.map((expr, i) => {
    const field = expandField(exprFormat, expressions, i, expandHashed(i, expr), nth);
    if (i === 4) dowLiterals = field.collapsed ? [] : [...field.values].filter((v) => !nth.has(v));
    return { all: field.all, values: field.values, last: field.last };
  });
  if (nth.size > 0 && dowLiterals.length > 0) {
    const nthRepr = [...nth].map(
      ([day, ks]) => `${day}: ${pySet([...ks].sort((a, b) => (a === 'l' ? 1 : b === 'l' ? -1 : a - b)))}`,
    );
    throw new CronExpressionError(
      'day-of-week field does not support mixing literal values and nth day of week syntax.  ' +
        `Cron: '${exprFormat}'    dow=${pySet(dowLiterals.sort((a, b) => a - b))} vs nth={${nthRepr.join(', ')}}`,
    );
  }
  return { fields, nth };
}

function expandField(
  exprFormat: string,
  expressions: readonly string[],
  i: number,
  expr: string,
  nth: Map<number, Set<number | 'l'>>,
): CronField & { readonly collapsed: boolean } {
  const [low, high] = RANGES[i]!;
  const alphaconv = (key: string) => {
    const v = ALPHACONV[i]![key];
    if (v === undefined) throw new CronExpressionError(`[${expressions.join(' ')}] is not acceptable`);
    return v;
  };
  const values = new Set<number>();
  let star = false;
  let last = false;
  const pending = expr.split(',');
  while (pending.length > 0) {
    let e = pending.pop()!;
    let nthOf: number | 'l' | undefined;
    if (i === 4) {
      const m = SPECIAL_WEEKDAY.exec(e);
      if (m?.[2] !== undefined) {
        nthOf = Number(m[2]);
        if (!(nthOf >= 1 && nthOf <= 5))
          throw new CronExpressionError(`[${exprFormat}] is not acceptable.  Invalid day_of_week value: '${e}'`);
        e = m[1]!;
      } else if (m) {
        nthOf = 'l';
        e = m[3]!;
      }
    }
    // `*/5` is `0-59/5`; `10/5` is `10-59/5`.
    let t = e.replace(/^\*(\/.+)$/, `${low}-${high}$1`);
    let m = STEP.exec(t);
    if (!m) {
      t = e.replace(/^(.+)\/(.+)$/, `$1-${high}/$2`);
      m = STEP.exec(t);
    }
    if (m) {
      let from = m[1]!;
      let to = m[2]!;
      if (i === 2 && to === 'l') to = '31';
      if (!ONLY_INT.test(from)) from = String(alphaconv(from));
      if (!ONLY_INT.test(to)) to = String(alphaconv(to));
      // `L-5`: int('l') raises a ValueError, which `expand` re-raises through an exec that names a
      // variable it cannot see (croniter.py:776-781).
      if (!ONLY_INT.test(from)) throw new CronExpressionError("name 'exc' is not defined");
      if (Number(from) > Number(to)) {
        // `fri-sun`: croniter reads Sunday's 0 as 7 at the end of a range.
        if (i === 4 && to === '0') to = '7';
        else throw new CronExpressionError(`[${exprFormat}] is not acceptable`);
      }
      const step = Number(m[4] ?? 1);
      if (Math.max(Number(from), Number(to)) > high) throw new CronExpressionError(`${exprFormat} is out of bands`);
      if (step === 0) throw new CronExpressionError('invalid range: range() arg 3 must not be zero');
      for (let v = Number(from); v <= Number(to); v += step) pending.push(String(v));
      continue;
    }
    if (t.startsWith('-'))
      throw new CronExpressionError(`[${exprFormat}] is not acceptable,negative numbers not allowed`);
    let value = STAR_OR_INT.test(t) ? t : alphaconv(t);
    if (typeof value === 'string' && ONLY_INT.test(value)) value = Number(value);
    // LOWMAP (day of week 7 is Sunday's 0) is not applied to day of month and month in five fields,
    // nor to month and day of week in six (croniter.py:724-731).
    const lowmapped = typeof value === 'number' ? LOWMAP[i]![value] : undefined;
    const kept = expressions.length === 5 ? i === 2 || i === 3 : i === 3 || i === 4;
    if (lowmapped !== undefined && !kept) value = lowmapped;
    if (typeof value === 'number') {
      if (value < low || value > high) throw new CronExpressionError(`[${exprFormat}] is not acceptable, out of range`);
      values.add(value);
      if (nthOf !== undefined) nth.set(value, (nth.get(value) ?? new Set()).add(nthOf));
    } else if (value === '*') star = true;
    else last = true;
  }
  // A field naming every value is `*`; `L` counts as one of day of month's 31.
  const size = values.size + (star ? 1 : 0) + (last ? 1 : 0);
  const collapsed = size === LEN_MEANS_ALL[i] || (star && size === 1);
  return { all: star || collapsed, values, last, collapsed };
}

/** The expression `croniter_for_schedule` builds, or its own refusal of a `/` after a list. */
function expressionOf(schedule: Partial<CronSchedule>): string {
  let expression = '';
  for (const field of CRON_FIELDS) {
    const value = schedule[field] || '*';
    if (value.includes('/') && !/^(\*|[0-9]+-[0-9]+)\/([0-9]+)$/.test(value))
      throw new Error('Only range or `*` are allowed before `/`');
    expression += `${value} `;
  }
  return expression;
}

/** What CronModel's validator raises for a schedule, without its `Value error, ` prefix, or null. */
export function cronScheduleError(schedule: Partial<CronSchedule>): string | null {
  try {
    expandCron(expressionOf(schedule));
    return null;
  } catch (err) {
    return `Please ensure fields match cron syntax - ${(err as Error).message}`;
  }
}

/** CronModel's fields with their defaults (`*`), as a subclass lays its own defaults over them. */
export const cronFields = (defaults: Partial<CronSchedule> = {}) =>
  Object.fromEntries(CRON_FIELDS.map((f) => [f, str().default(defaults[f] ?? '*')])) as Record<
    (typeof CRON_FIELDS)[number],
    z.ZodDefault<z.ZodString>
  >;

/** A CronModel subclass: its fields, then the model validator on what they hold. */
export function cronModel<S extends z.ZodRawShape>(shape: S) {
  return z.strictObject(shape).superRefine((v, ctx) => {
    const error = cronScheduleError(v as Partial<CronSchedule>);
    if (error !== null) ctx.addIssue({ code: 'custom', message: error });
  });
}

/** `time_validator` (MW/api/base/validators.py:19-29) for TimeString, as `time(int(h), int(m))` refuses. */
export const timeString = once(() =>
  str().superRefine((value, ctx) => {
    const fail = (message: string) => ctx.addIssue({ code: 'custom', message });
    const parts = value.split(':');
    if (parts.length !== 2) return fail('Time should be in 24 hour format like "18:00"');
    const [h, m] = parts.map((p) => p.trim().replace(/_/g, ''));
    const bad = [h!, m!].findIndex((p) => !/^[+-]?\d+$/.test(p));
    if (bad >= 0) return fail(`invalid literal for int() with base 10: '${parts[bad]}'`);
    if (Number(h) < 0 || Number(h) > 23) return fail('hour must be in 0..23');
    if (Number(m) < 0 || Number(m) > 59) fail('minute must be in 0..59');
  }),
);

/** How the database keeps a TimeString and reads it back (`str(time)[:5]`, MW/schema/dict_schema.py:259). */
export const storedTime = (value: string) => {
  const [h, m] = value.split(':').map((p) => Number(p.trim().replace(/_/g, '')));
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
};
