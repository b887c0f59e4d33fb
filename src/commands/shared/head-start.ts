import type { Transport } from '../../core/transport/transport.js';
import type { TargetSpec } from './target.js';

/** A transport opened before the command line was parsed, and what it was opened for. */
interface HeadStart {
  /** specKey() of the target and timeout it was opened with. */
  key: string;
  opened: Promise<Transport>;
}

let pending: Promise<HeadStart | undefined> | undefined;

/** Equal only for equal targets (URL, key, TLS settings, transport, state directory) and timeouts. */
export function specKey(spec: TargetSpec, timeoutSeconds: number): string {
  return JSON.stringify([spec, timeoutSeconds]);
}

/** Registers the head start (early-target.ts); a failed open is reported only by a command that takes it. */
export function offerHeadStart(started: Promise<HeadStart | undefined>): void {
  pending = started.then(
    (s) => {
      s?.opened.catch(() => undefined);
      return s;
    },
    () => undefined,
  );
}

/**
 * The transport opened ahead for exactly this target and timeout, if any: the command then
 * continues with it as if it had opened it itself, its failure included. One opened for anything
 * else is closed, unused.
 */
export async function takeHeadStart(spec: TargetSpec, timeoutSeconds: number): Promise<Promise<Transport> | undefined> {
  const started = await pending;
  pending = undefined;
  if (!started) return undefined;
  if (started.key === specKey(spec, timeoutSeconds)) return started.opened;
  await closeQuietly(started.opened);
  return undefined;
}

/**
 * Closes a head start no command took. False when it is still opening (a host that does not
 * answer): the caller then need not wait for its timeout.
 */
export async function dropHeadStart(): Promise<boolean> {
  const started = await pending;
  pending = undefined;
  if (!started) return true;
  const settled = await Promise.race([started.opened.then(() => true, () => true), new Promise<false>((r) => setImmediate(() => r(false)))]);
  if (!settled) return false;
  await closeQuietly(started.opened);
  return true;
}

async function closeQuietly(opened: Promise<Transport>): Promise<void> {
  const transport = await opened.catch(() => undefined);
  await transport?.close();
}
