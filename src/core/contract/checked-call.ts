import { malformedAnswer } from './client.js';
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

