import { describe, expect, it } from 'vitest';
import {
  belongsToTree,
  isChild,
  replicatesTarget,
  shouldExclude,
  sourceBase,
  sourceDatasetOf,
  targetDatasetOf,
} from '../../../../src/core/appliance/snapshot-tasks/dataset-tree.js';

const scope = (sourceDatasets: string[], targetDataset: string) => ({
  sourceDatasets,
  targetDataset,
  recursive: true,
  exclude: [],
});

describe('is_child (zettarepl tests/dataset/test_relationship.py test__is_child)', () => {
  it.each([
    ['data', 'data/.system', false],
    ['data/.system', 'data/.system', true],
    ['data/.system/cores', 'data/.system', true],
    ['data/.system-settings', 'data/.system', false],
    ['my-data', 'data/.system', false],
    ['my-data/.system', 'data/.system', false],
  ])('%s under %s: %s', (child, parent, result) => {
    expect(isChild(child, parent)).toBe(result);
  });
});

describe('should_exclude (zettarepl tests/dataset/test_exclude.py)', () => {
  it.each([
    ['data', ['data/.system'], false],
    ['data/.system', ['data/.system'], true],
    ['data/.system/cores', ['data/.system'], true],
    ['data/.system-settings', ['data/.system'], false],
    ['my-data', ['data/.system'], false],
    ['my-data/.system', ['data/.system'], false],
    ['data/.system/cores', ['data/*/cores'], true],
    ['data/.system/cores2', ['data/*/cores'], false],
  ])('%s with exclude %j: %s', (dataset, exclude, result) => {
    expect(shouldExclude(dataset, exclude)).toBe(result);
  });

  it("a glob's * spans levels, as Python's fnmatch does", () => {
    expect(shouldExclude('data/a/b/cores', ['data/*/cores'])).toBe(true);
    expect(shouldExclude('data/a/cores', ['data/?/cores'])).toBe(true);
    expect(shouldExclude('data/ab/cores', ['data/[!a]b/cores'])).toBe(false);
  });

  it('a non-recursive task ignores exclude and owns its dataset only (relationship.py:22-27)', () => {
    expect(belongsToTree('data', 'data', false, ['data'])).toBe(true);
    expect(belongsToTree('data/child', 'data', false, [])).toBe(false);
  });
});

describe('source and target datasets (zettarepl tests/replication/task/test_dataset.py)', () => {
  it.each([
    [['data/work', 'data/windows'], 'data'],
    [['data/work/a', 'data/work/b'], 'data/work'],
    [['data', 'ix-data'], ''],
  ])('the base of %j is %j (test__get_source_dataset_base)', (sources, base) => {
    expect(sourceBase(scope(sources, 'backup'))).toBe(base);
  });

  it.each([
    [['data/work', 'data/windows'], 'backup', 'backup/windows', 'data/windows'],
    [['data/work'], 'backup', 'backup/excel', 'data/work/excel'],
  ])('%j → %s: %s holds %s (test__get_source_dataset)', (sources, target, dst, result) => {
    expect(sourceDatasetOf(scope(sources, target), dst)).toBe(result);
  });

  it('data/windows/x lands on backup/windows/x (test__get_target_dataset)', () => {
    expect(targetDatasetOf(scope(['data/work', 'data/windows'], 'backup'), 'data/windows/x')).toBe('backup/windows/x');
  });

  it("an excluded source child's copy is not the replication's on the target (should_replicate.py:24-29)", () => {
    const s = { ...scope(['tank/data'], 'backup/data'), exclude: ['tank/data/scratch'] };
    expect(replicatesTarget(s, 'backup/data/child')).toBe(true);
    expect(replicatesTarget(s, 'backup/data/scratch')).toBe(false);
    expect(replicatesTarget(s, 'backup/other')).toBe(false);
  });
});

// zettarepl/dataset/relationship.py:12-27 and zettarepl/dataset/exclude.py:12-13 (release/25.10.1),
// over Python's fnmatch.fnmatch (POSIX: no case folding; `*` matches `/` too).

describe("zettarepl's dataset rules", () => {
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
