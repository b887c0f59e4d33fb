import type { z } from 'zod';

/**
 * Whether `value` is what the contract says a method answers: it parses with `schema`, and it
 * carries no key the schema does not know (result objects tolerate unknown keys so that clients
 * survive newer appliances; the emulator, which claims to be 25.10.1, must not send any).
 * Returns the problems found, none when it conforms.
 */
export function contractViolations(schema: z.ZodType, value: unknown): string[] {
  const parsed = schema.safeParse(value);
  if (!parsed.success) return parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  const extra: string[] = [];
  collectExtraKeys(value, parsed.data, [], extra);
  return extra.map((path) => `${path}: not a field of the 25.10.1 result`);
}

/**
 * Pushes onto `into` the dotted path of each key of `input` that `output` (what the schema parsed)
 * dropped. `at` is the path walked so far, one entry a level, joined only for a key found extra:
 * the suite checks every answer (STOR_CHECK_RESULTS), lists of hundreds of rows among them, and a
 * string built for every key walked was a cost of its own (bench/HISTORY.md, the suite's time,
 * fifth round).
 */
function collectExtraKeys(input: unknown, output: unknown, at: (string | number)[], into: string[]): void {
  if (Array.isArray(input) && Array.isArray(output)) {
    for (let i = 0; i < input.length; i++) {
      at.push(i);
      collectExtraKeys(input[i], output[i], at, into);
      at.pop();
    }
    return;
  }
  if (!isPlainObject(input) || !isPlainObject(output)) return;
  for (const key of Object.keys(input)) {
    at.push(key);
    if (!(key in output)) into.push(dotted(at));
    else collectExtraKeys(input[key], output[key], at, into);
    at.pop();
  }
}

/** `a.b.0.c`; an empty key adds no dot after an empty path, as the path was always written. */
const dotted = (at: readonly (string | number)[]): string =>
  at.reduce<string>((path, key) => `${path}${path ? '.' : ''}${key}`, '');

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
