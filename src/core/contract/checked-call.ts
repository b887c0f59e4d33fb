import type { z } from 'zod';
import { StorError } from '../errors.js';
import type { Transport } from '../transport/transport.js';
import { RESULTS, type ResultMethod, type ResultOf } from './results.js';

/**
 * Calls `method` and returns its result as the commands read it, checked against the method's
 * schema: a field a command needs that is missing or of the wrong type becomes a clear
 * MALFORMED_ANSWER (exit 1) naming the method and the field, never a TypeError further on.
 */
export async function callChecked<M extends ResultMethod>(t: Transport, method: M, params: readonly unknown[] = []): Promise<ResultOf<M>> {
  const answer = await t.call(method, params);
  const parsed = RESULTS[method].safeParse(answer);
  if (parsed.success) return parsed.data as ResultOf<M>;
  throw malformedAnswer(method, answer, parsed.error.issues[0]!);
}

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'list';
  return typeof v === 'object' ? 'object' : typeof v;
}

function expectedOf(issue: z.core.$ZodIssue): string {
  if (issue.code !== 'invalid_type') return 'value of another shape';
  const names: Record<string, string> = { array: 'list', object: 'object', string: 'string', number: 'number', boolean: 'boolean' };
  return article(names[issue.expected] ?? issue.expected);
}

function malformedAnswer(method: string, answer: unknown, issue: z.core.$ZodIssue): StorError {
  const path = [...issue.path];
  // A list answer: name the item, then the field inside it.
  const item = Array.isArray(answer) && typeof path[0] === 'number' ? (path.shift() as number) : undefined;
  let found: unknown = item === undefined ? answer : (answer as unknown[])[item];
  for (const key of path) found = found !== null && typeof found === 'object' ? (found as Record<PropertyKey, unknown>)[key as PropertyKey] : undefined;
  const where = item === undefined ? '' : ` in item ${item}`;
  const expected = expectedOf(issue);
  const field = path.map(String).join('.');
  const what =
    field === ''
      ? `is not ${expected} (got ${typeOf(found)})`
      : found === undefined
        ? `has no "${field}" (${expected})`
        : `has "${field}" as ${article(typeOf(found))} where ${expected} was expected`;
  return new StorError('failed', 'MALFORMED_ANSWER', `the appliance's answer to ${method} ${what}${where}`, {
    hint: `the target may not speak the 25.10.1 API; \`stor call ${method}\` shows its raw answer`,
  });
}
