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
  collectExtraKeys(value, parsed.data, '', extra);
  return extra.map((path) => `${path}: not a field of the 25.10.1 result`);
}

function collectExtraKeys(input: unknown, output: unknown, path: string, into: string[]): void {
  if (Array.isArray(input) && Array.isArray(output)) {
    input.forEach((item, i) => collectExtraKeys(item, output[i], `${path}${path ? '.' : ''}${i}`, into));
    return;
  }
  if (!isPlainObject(input) || !isPlainObject(output)) return;
  for (const key of Object.keys(input)) {
    const at = `${path}${path ? '.' : ''}${key}`;
    if (!(key in output)) into.push(at);
    else collectExtraKeys(input[key], output[key], at, into);
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
