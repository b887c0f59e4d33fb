import { describe, expect, it } from 'vitest';
import { belongsToTree, fnmatch, shouldExclude } from '../../../../src/core/appliance/snapshot-tasks/dataset-tree.js';

// zettarepl/dataset/relationship.py:12-27 and zettarepl/dataset/exclude.py:12-13 (release/25.10.1),
// over Python's fnmatch.fnmatch (POSIX: no case folding; `*` matches `/` too).

describe("zettarepl's dataset rules", () => {
  it('fnmatch: * and ? cross `/`, [seq] and [!seq] are sets, an unclosed [ is itself', () => {
    expect(fnmatch('tank/data/a/b', 'tank/*/b')).toBe(true);
    expect(fnmatch('tank/data/a', 'tank/data/?')).toBe(true);
    expect(fnmatch('tank/data/a', 'tank/data/[ab]')).toBe(true);
    expect(fnmatch('tank/data/c', 'tank/data/[!ab]')).toBe(true);
    expect(fnmatch('tank/data/a', 'tank/data/[!ab]')).toBe(false);
    expect(fnmatch('tank/[x', 'tank/[x')).toBe(true);
    expect(fnmatch('tank/data.x', 'tank/data?x')).toBe(true);
    expect(fnmatch('tank/dataxx', 'tank/data.x')).toBe(false);
  });

  it('should_exclude: a dataset below an excluded one, or matching its pattern', () => {
    expect(shouldExclude('tank/data/a/deep', ['tank/data/a'])).toBe(true);
    expect(shouldExclude('tank/data/ab', ['tank/data/a'])).toBe(false);
    expect(shouldExclude('tank/data/tmp-1', ['tank/data/tmp-*'])).toBe(true);
  });

  it('belongs_to_tree: the root alone when not recursive; the tree less what is excluded when recursive', () => {
    expect(belongsToTree('tank/data/a', 'tank/data', false, [])).toBe(false);
    expect(belongsToTree('tank/data', 'tank/data', false, ['tank/data'])).toBe(true);
    expect(belongsToTree('tank/data/a', 'tank/data', true, [])).toBe(true);
    expect(belongsToTree('tank/data/a', 'tank/data', true, ['tank/data/a'])).toBe(false);
    expect(belongsToTree('tank/database', 'tank/data', true, [])).toBe(false);
  });
});
