// Which datasets a periodic snapshot task or a replication covers, and where a replication puts a
// source dataset on its target, as zettarepl computes them (zettarepl/dataset/relationship.py,
// zettarepl/dataset/exclude.py, zettarepl/replication/task/dataset.py, release/25.10.1). Dataset
// names are ZFS names (`tank/a/b`), never with a leading or doubled slash, so os.path's component
// arithmetic is prefix arithmetic on `/`.

import { isChild } from '../../contract/replication-checks.js';
import { fnmatch } from '../fnmatch.js';

/** `dataset` is `parent` or below it: zettarepl's is_child (relationship.py:12-14) is the middleware's, one function. */
export { isChild };

/** A dataset an `exclude` entry names: the entry or below it, or matching it as a glob (exclude.py:12-13). */
export function shouldExclude(dataset: string, exclude: readonly string[]): boolean {
  return exclude.some((entry) => isChild(dataset, entry) || fnmatch(dataset, entry));
}

/** A recursive task covers its dataset and what is below it but its excludes; otherwise its dataset only (relationship.py:22-27). */
export function belongsToTree(dataset: string, root: string, recursive: boolean, exclude: readonly string[]): boolean {
  return recursive ? isChild(dataset, root) && !shouldExclude(dataset, exclude) : dataset === root;
}

/** What a replication copies from and to. */
export interface ReplicationScope {
  readonly sourceDatasets: readonly string[];
  readonly targetDataset: string;
  readonly recursive: boolean;
  readonly exclude: readonly string[];
}

/** The source datasets' common parent, component by component (replication/task/dataset.py:12-18). */
export function sourceBase(scope: ReplicationScope): string {
  const split = scope.sourceDatasets.map((d) => d.split('/'));
  const first = split[0] ?? [];
  let n = 0;
  while (n < first.length && split.every((parts) => parts[n] === first[n])) n++;
  return first.slice(0, n).join('/');
}

function join(base: string, rel: string): string {
  if (base === '') return rel;
  return rel === '' ? base : `${base}/${rel}`;
}

function relative(dataset: string, base: string): string {
  if (base === '') return dataset;
  return dataset === base ? '' : dataset.slice(base.length + 1);
}

/** Where a source dataset lands on the target (dataset.py:33-35). */
export function targetDatasetOf(scope: ReplicationScope, sourceDataset: string): string {
  return join(scope.targetDataset, relative(sourceDataset, sourceBase(scope)));
}

/** Which source dataset a target dataset holds the copy of (dataset.py:28-30). */
export function sourceDatasetOf(scope: ReplicationScope, targetDataset: string): string {
  return join(sourceBase(scope), relative(targetDataset, scope.targetDataset));
}

/** The replication copies this source dataset (replication/task/should_replicate.py:16-21). */
export function replicatesSource(scope: ReplicationScope, dataset: string): boolean {
  return scope.sourceDatasets.some((source) => belongsToTree(dataset, source, scope.recursive, scope.exclude));
}

/** The replication writes this target dataset (should_replicate.py:24-29). */
export function replicatesTarget(scope: ReplicationScope, dataset: string): boolean {
  const exclude = scope.exclude.map((e) => targetDatasetOf(scope, e));
  return scope.sourceDatasets.some((source) =>
    belongsToTree(dataset, targetDatasetOf(scope, source), scope.recursive, exclude),
  );
}
