/**
 * The JSON text of numbers Python writes otherwise than JavaScript (src/core/appliance/py-numbers.ts):
 * `repr(float)` as CPython's json writes a float (Lib/json/encoder.py `float.__repr__`), and
 * members registered with their text.
 */
import { describe, expect, it } from 'vitest';
import { pyFloatText, pyJsonStringify, setPyNumber } from '../../../src/core/appliance/py-numbers.js';

describe('py-numbers', () => {
  it("writes floats as Python's repr does", () => {
    const cases: [number, string][] = [
      [1, '1.0'],
      [-0, '-0.0'],
      [1.5, '1.5'],
      [1234.25, '1234.25'],
      [1e16, '1e+16'],
      [1.5e16, '1.5e+16'],
      [9999999999999998, '9999999999999998.0'],
      [0.0001, '0.0001'],
      [0.00001, '1e-05'],
      [1.5e-7, '1.5e-07'],
      [1e300, '1e+300'],
    ];
    for (const [v, text] of cases) expect(pyFloatText(v)).toBe(text);
  });

  it('puts a registered text in place of its number, and only there', () => {
    const holder = { a: 1, b: 1 };
    setPyNumber(holder, 'a', 1, '1.0');
    const text = pyJsonStringify({ holder, other: { a: 1 }, s: '"@pynum-x@1.0@pynum-x@"' });
    expect(text).toBe('{"holder":{"a":1.0,"b":1},"other":{"a":1},"s":"\\"@pynum-x@1.0@pynum-x@\\""}');
  });
});
