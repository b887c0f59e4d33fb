import { RpcError, StorError } from '../errors.js';

/** Where `-v` sends one line about what a transport is doing; absent, nothing is traced. */
export type TraceSink = (line: string) => void;

export function elapsed(startedAt: number): string {
  return `${(performance.now() - startedAt).toFixed(1)} ms`;
}

/** How a failed call is named in a trace: its code only, since messages may quote params. */
function outcome(err: unknown): string {
  if (err instanceof RpcError) return err.errname ?? String(err.code);
  if (err instanceof StorError) return err.code;
  return err instanceof Error ? err.name : 'error';
}

/**
 * Times one call for the trace: the method, how long it took and how it ended. Never its params
 * or result: `auth.login_with_api_key`, `api_key.create` and `user.update` carry keys and passwords.
 */
export async function traced<T>(trace: TraceSink | undefined, method: string, call: () => Promise<T>): Promise<T> {
  if (!trace) return call();
  const startedAt = performance.now();
  try {
    const result = await call();
    trace(`call ${method}: ${elapsed(startedAt)}`);
    return result;
  } catch (err) {
    trace(`call ${method}: failed after ${elapsed(startedAt)} (${outcome(err)})`);
    throw err;
  }
}
