// Which datasets a periodic snapshot task covers, as zettarepl decides it:
// zettarepl/dataset/relationship.py (is_child, belongs_to_tree) and zettarepl/dataset/exclude.py
// (should_exclude), branch release/25.10.1 (stable/26 is the same).

/** `is_child` (relationship.py:12-14): the dataset itself or one below it. */
export const isChildDataset = (child: string, parent: string) => child === parent || child.startsWith(`${parent}/`);

/** Python's `fnmatch.fnmatch` on POSIX: `*` and `?` match `/` too; `[seq]`, `[!seq]`. */
export function fnmatch(name: string, pattern: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      // fnmatch.translate: a `!` and then a `]` right after `[` belong to the set.
      let close = i + 1;
      if (pattern[close] === '!') close++;
      if (pattern[close] === ']') close++;
      while (close < pattern.length && pattern[close] !== ']') close++;
      if (close >= pattern.length) re += '\\[';
      else {
        let body = pattern.slice(i + 1, close).replace(/\\/g, '\\\\');
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        else if (body.startsWith('^')) body = `\\${body}`;
        re += `[${body}]`;
        i = close;
      }
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^(?:${re})$`, 's').test(name);
}

/** `should_exclude` (exclude.py:12-13): below an excluded dataset, or matching its pattern. */
export const shouldExclude = (dataset: string, exclude: readonly string[]) =>
  exclude.some((e) => isChildDataset(dataset, e) || fnmatch(dataset, e));

/** `belongs_to_tree` (relationship.py:22-27). */
export const belongsToTree = (dataset: string, root: string, recursive: boolean, exclude: readonly string[]) =>
  recursive ? isChildDataset(dataset, root) && !shouldExclude(dataset, exclude) : dataset === root;
