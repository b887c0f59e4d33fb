import * as z from 'zod';
import { once, str } from './method.js';

// CronModel (MW/api/v25_10_1/common.py:77-100; stable/26's is the same): five string fields, and a
// model validator that builds a croniter from them (`croniter_for_schedule`, MW/utils/cron.py:9-18)
// and reports what croniter raised as `Please ensure fields match cron syntax - <error>`. The
// croniter here is python3-croniter 1.3.5 (Debian bookworm, the base of TrueNAS 25.10): its
// `_expand` (croniter.py:596-757) is followed for the five-field expressions a schedule builds;
// hashed (`H`) expressions, which need a hash_id the middleware never passes, are refused as
// croniter refuses them.

export const CRON_FIELDS = ['minute', 'hour', 'dom', 'month', 'dow'] as const;
export type CronSchedule = Record<(typeof CRON_FIELDS)[number], string>;

/** croniter.RANGES for minute, hour, day of month, month, day of week. */
const RANGES: readonly (readonly [number, number])[] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 7],
];
const ALPHACONV: readonly Record<string, number | string>[] = [
  {},
  {},
  { l: 'l' },
  { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 },
  { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 },
];
const LOWMAP: readonly Record<number, number>[] = [{}, {}, { 0: 1 }, { 0: 1 }, { 7: 0 }];
const BAD_LENGTH = 'Exactly 5 or 6 columns has to be specified for iterator expression.';

const STEP = /^([^-]+)-([^-/]+)(\/(\d+))?$/;
const ONLY_INT = /^\d+$/;
const STAR_OR_INT = /^(\d+|\*)$/;
const SPECIAL_WEEKDAY = /^(\w+)#(\d+)|l(\d+)$/;
const HASHED = /^(h|r)(\((\d+)-(\d+)\))?(\/(\d+))?$/;

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

/** croniter's `_expand` for a five- or six-field expression: throws croniter's message. */
function expand(exprFormat: string): void {
  const efl = exprFormat.toLowerCase();
  const expressions = efl.split(/\s+/).filter((e) => e !== '');
  if (expressions.length !== 5 && expressions.length !== 6) throw new Error(BAD_LENGTH);
  const alphaconv = (i: number, key: string) => {
    const v = ALPHACONV[i]?.[key];
    if (v === undefined) throw new Error(`[${expressions.join(' ')}] is not acceptable`);
    return v;
  };
  expressions.forEach((expr, i) => {
    const range = RANGES[i] ?? RANGES[0]!;
    if (expr.split(',').some((e) => HASHED.test(e))) throw new Error('Hashed definitions must include hash_id');
    const list: string[] = expr.split(',');
    while (list.length > 0) {
      let e = list.pop()!;
      if (i === 4) {
        const m = SPECIAL_WEEKDAY.exec(e);
        if (m) {
          const [, day, nth, last] = m;
          if (nth !== undefined) {
            const n = Number(nth);
            if (!(n >= 1 && n <= 5))
              throw new Error(`[${exprFormat}] is not acceptable.  Invalid day_of_week value: '${e}'`);
            e = day!;
          } else e = last ?? e;
        }
      }
      let t = e.replace(/^\*(\/.+)$/, `${range[0]}-${range[1]}$1`);
      let m = STEP.exec(t);
      if (!m) {
        t = e.replace(/^(.+)\/(.+)$/, `$1-${range[1]}/$2`);
        m = STEP.exec(t);
      }
      if (m) {
        let low: string = m[1]!;
        let high: string = m[2]!;
        const step = m[4] ?? '1';
        if (i === 2 && high === 'l') high = '31';
        if (!ONLY_INT.test(low)) low = String(alphaconv(i, low));
        if (!ONLY_INT.test(high)) high = String(alphaconv(i, high));
        if (!low || !high || Number(low) > Number(high) || !ONLY_INT.test(step)) {
          if (i === 4 && high === '0') high = '7';
          else throw new Error(`[${exprFormat}] is not acceptable`);
        }
        if (Math.max(Number(low), Number(high)) > Math.max(range[0], range[1]))
          throw new Error(`${exprFormat} is out of bands`);
        if (Number(step) === 0) throw new Error('invalid range: range() arg 3 must not be zero');
        for (let v = Number(low); v <= Number(high); v += Number(step)) list.push(String(v));
      } else {
        if (t.startsWith('-')) throw new Error(`[${exprFormat}] is not acceptable,negative numbers not allowed`);
        let value: string | number = STAR_OR_INT.test(t) ? t : alphaconv(i, t);
        if (typeof value === 'string' && ONLY_INT.test(value)) value = Number(value);
        // LOWMAP is not applied to day of month and month in a five-field expression (croniter.py:725-733).
        if (typeof value === 'number' && value in (LOWMAP[i] ?? {}) && !(i === 2 || i === 3))
          value = LOWMAP[i]![value]!;
        if (value !== '*' && value !== 'l' && (Number(value) < range[0] || Number(value) > range[1]))
          throw new Error(`[${exprFormat}] is not acceptable, out of range`);
      }
    }
  });
}

/** What CronModel's validator raises for a schedule, without its `Value error, ` prefix, or null. */
export function cronScheduleError(schedule: Partial<CronSchedule>): string | null {
  try {
    expand(expressionOf(schedule));
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
