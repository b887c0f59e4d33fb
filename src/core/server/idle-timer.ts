/**
 * Runs `judge` once the server has read what is already waiting on its sockets. When this process
 * was stalled (a loaded host, a long synchronous step), an idle timer and the peer's delayed bytes
 * become due in the same event-loop turn, and Node runs timers before it polls for I/O: judged at
 * once, the peer would be cut off for the server's own delay. `setImmediate` callbacks run after
 * that turn's poll phase, so by then every byte that arrived in time has been seen (once an
 * upload trickling 100 ms apart got 408 under load).
 */
export function afterPendingIo(judge: () => void): void {
  setImmediate(judge);
}

export interface IdleTimer {
  /** The peer moved: the idle period starts again. */
  touch(): void;
  stop(): void;
}

/**
 * Calls `onIdle` once nothing has touched the timer for `ms` — judged only after pending I/O is
 * read (afterPendingIo). While `paused()` (the server itself is not reading, e.g. backpressure),
 * the time does not count against the peer. Unref'd: it never holds the process open.
 */
export function idleTimer(ms: number, onIdle: () => void, paused: () => boolean = () => false): IdleTimer {
  let stopped = false;
  let touches = 0;
  const timer = setTimeout(() => {
    if (stopped) return;
    if (paused()) return void timer.refresh();
    const seen = touches;
    afterPendingIo(() => {
      // A touch in between has refreshed the timer already.
      if (stopped || touches !== seen) return;
      if (paused()) return void timer.refresh();
      stopped = true;
      onIdle();
    });
  }, ms);
  timer.unref();
  return {
    touch: () => {
      if (stopped) return;
      touches++;
      timer.refresh();
    },
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
