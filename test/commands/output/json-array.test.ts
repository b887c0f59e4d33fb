import { describe, expect, it } from 'vitest';
import { JsonArrayWriter } from '../../../src/commands/output/json-array.js';
import { render } from '../../../src/commands/output/render.js';

const elements: unknown[] = [
  { target: 'nas1', ok: true, data: { name: 'a\u009b[2Jb', list: [1, { deep: [] }], empty: {} } },
  { target: 'nas2', ok: false, error: { message: 'line one\nline two', hint: 'C1 \u0085 here' } },
  null,
  'text with "quotes" and \u007f',
  { target: 'nas5', skipped: undefined, nested: { a: [[]] } },
  // Not a JSON value: `null` in the array, as the whole array's stringify writes it.
  undefined,
  [1, ['two', { three: [3] }], []],
  42,
];

describe('JsonArrayWriter', () => {
  it('writes, whatever order the elements come in, the bytes --json renders for the whole array', async () => {
    const whole = await render(
      { data: elements, view: { kind: 'json' } },
      { json: true, tty: false, color: 0, width: 100 },
    );
    for (const order of [
      [0, 1, 2, 3, 4, 5, 6, 7],
      [7, 6, 5, 4, 3, 2, 1, 0],
      [2, 0, 6, 4, 1, 7, 3, 5],
    ]) {
      const writes: string[] = [];
      const writer = new JsonArrayWriter({ write: (s: string) => writes.push(s) > 0 }, elements.length);
      const seen: number[] = [];
      for (const i of order) {
        writer.set(i, elements[i]);
        seen.push(writes.length);
      }
      expect(writes.join('')).toBe(whole);
      // Nothing goes out until the first element is known; then each as soon as those before it are.
      expect(seen[order.indexOf(0)]).toBeGreaterThan(0);
      expect(seen.slice(0, order.indexOf(0)).every((n) => n === 0)).toBe(true);
    }
  });
});
