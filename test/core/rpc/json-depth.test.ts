import { describe, expect, it } from 'vitest';
import { jsonNestedDeeperThan } from '../../../src/core/rpc/json-depth.js';

describe('jsonNestedDeeperThan', () => {
  it('counts arrays and objects, not brackets inside strings or after escaped quotes', () => {
    expect(jsonNestedDeeperThan('[[{"a":[1]}]]', 4)).toBe(false);
    expect(jsonNestedDeeperThan('[[{"a":[1]}]]', 3)).toBe(true);
    expect(jsonNestedDeeperThan(`["${'['.repeat(50)}", "\\"[[[["]`, 1)).toBe(false);
  });

  it('counts to the last level: `max` levels pass, one more does not, however long the text around them', () => {
    const nested = (levels: number) => `${'x'.repeat(10_000)}${'['.repeat(levels)}${']'.repeat(levels)}`;
    expect(jsonNestedDeeperThan(nested(1000), 1000)).toBe(false);
    expect(jsonNestedDeeperThan(nested(1001), 1000)).toBe(true);
    expect(jsonNestedDeeperThan(`{"a":${nested(1001).slice(10_000)}}`, 1001)).toBe(true);
  });

  it('reads 200000 levels without recursion', () => {
    expect(jsonNestedDeeperThan('['.repeat(200_000) + ']'.repeat(200_000), 1000)).toBe(true);
  });
});
