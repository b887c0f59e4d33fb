/**
 * `stor serve`'s minute timer for the periodic snapshot tasks, on vitest's fake clock (no real
 * minute waited for): it fires at the start of each UTC minute, once a minute, and never after stop.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { everyUtcMinute } from '../../../src/core/server/minute-timer.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('everyUtcMinute', () => {
  it('fires at each new UTC minute, at the appliance’s pace of one a minute, and stops when told', async () => {
    vi.useFakeTimers({ now: Date.UTC(2024, 0, 5, 18, 0, 40) });
    const fired: number[] = [];
    const timer = everyUtcMinute(() => {
      fired.push(Date.now());
      return Promise.resolve();
    });
    await vi.advanceTimersByTimeAsync(19_000);
    expect(fired).toEqual([]);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(fired.map((t) => Math.floor(t / 60_000) * 60_000)).toEqual([Date.UTC(2024, 0, 5, 18, 1)]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fired).toHaveLength(2);
    timer.stop();
    await vi.advanceTimersByTimeAsync(180_000);
    expect(fired).toHaveLength(2);
  });

  it('a rejected tick does not stop the next one', async () => {
    vi.useFakeTimers({ now: Date.UTC(2024, 0, 5, 18, 0, 0) });
    let calls = 0;
    const timer = everyUtcMinute(() => {
      calls++;
      return Promise.reject(new Error('store closed'));
    });
    await vi.advanceTimersByTimeAsync(125_000);
    expect(calls).toBe(2);
    timer.stop();
  });
});
