import type { Writable } from 'node:stream';
import type { CommandContext } from '../framework/context.js';

/**
 * SIGINT/SIGTERM while transfers run (downloads, uploads): remembered, the sinks in use destroyed
 * and `aborted` aborted (its reason the signal's name) to stop the transfers under way. The
 * command then ends through run() with its report and exit 130/143, never by the raw signal.
 */
export interface Interruption {
  signal?: NodeJS.Signals;
  /** Aborted at the first signal: given to uploads (UploadRequest.signal) to cut their POST off. */
  readonly aborted: AbortSignal;
  /** A sink to destroy on a signal, until the returned function is called. */
  track(sink: Writable): () => void;
  stop(): void;
}

export function watchSignals(ctx: CommandContext): Interruption {
  const sinks = new Set<Writable>();
  const controller = new AbortController();
  const watch: Interruption = {
    aborted: controller.signal,
    track(sink) {
      sinks.add(sink);
      return () => sinks.delete(sink);
    },
    stop: () => undefined,
  };
  const unsubscribe = ctx.io.onSignal?.((signal) => {
    watch.signal ??= signal;
    for (const sink of sinks) sink.destroy(new Error(`interrupted by ${signal}`));
    if (!controller.signal.aborted) controller.abort(signal);
  });
  if (unsubscribe) watch.stop = unsubscribe;
  return watch;
}
