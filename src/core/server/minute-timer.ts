// The clock of `stor serve`'s periodic snapshot tasks: a call at the start of each UTC minute, as
// zettarepl's Clock wakes at each new minute (zettarepl/scheduler/clock.py:36-57, release/25.10.1).
// The timer is unref'd, so it never keeps the process alive, and stopped when the server closes.

const MINUTE = 60_000;

/** Calls `onMinute` once a minute until stopped; the server's is `everyUtcMinute`, a test's its own. */
export type MinuteTimer = (onMinute: () => Promise<void>) => { stop(): void };

export const everyUtcMinute: MinuteTimer = (onMinute) => {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const arm = () => {
    // To the next minute's start (a few ms after, so the minute has surely begun).
    timer = setTimeout(
      () => {
        if (stopped) return;
        // The caller logs its own failures; a rejection here must not end the process.
        void onMinute()
          .catch(() => undefined)
          .then(arm);
      },
      MINUTE - (Date.now() % MINUTE) + 5,
    );
    timer.unref();
  };
  arm();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
};
