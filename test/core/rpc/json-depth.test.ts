import { describe, expect, it } from 'vitest';
import { jsonNestedDeeperThan } from '../../../src/core/rpc/json-depth.js';

describe('jsonNestedDeeperThan', () => {
  it('counts arrays and objects, not brackets inside strings or after escaped quotes', () => {
    expect(jsonNestedDeeperThan('[[{"a":[1]}]]', 4)).toBe(false);
    expect(jsonNestedDeeperThan('[[{"a":[1]}]]', 3)).toBe(true);
    expect(jsonNestedDeeperThan(`["${'['.repeat(50)}", "\\"[[[["]`, 1)).toBe(false);
  });

  it('reads 200000 levels without recursion', () => {
    expect(jsonNestedDeeperThan('['.repeat(200_000) + ']'.repeat(200_000), 1000)).toBe(true);
  });
});
