/**
 * How large a `~` pattern's compiled program may grow, judged from its text before it is compiled.
 *
 * RE2 expands counted repetition (`x{1000}` is a thousand copies of `x`), so a short pattern can
 * compile to a huge program: `\pL{1000}` 260 times (2340 characters) became 260,000 instructions,
 * seconds of compiling and over a gigabyte while every other client waited. re2js's
 * own cap (Go's, ~1.4 M instructions) is far past what a filter needs. Upstream matches with
 * Python's `re` (MW/utils/filter_list.py:157), whose repetitions are loops, not copies, so this
 * cost does not exist there; a filter this large is refused here instead, as any bad filter is.
 */

/** Instructions (counted as below) a `~` pattern may expand to: ten `\pL{1000}`, or any sane pattern. */
export const MAX_REGEX_SIZE = 10_000;

/** RE2's largest repeat count; larger ones are left for RE2 to refuse in its own words. */
const MAX_REPEAT = 1000;

const COUNTED = /^\{(\d+)(,(\d*))?\}/;

/** Skips a character class starting at `i` (`[`); returns the index just past its `]`. */
function skipClass(p: string, i: number): number {
  let j = i + 1;
  if (p[j] === '^') j++;
  if (p[j] === ']') j++; // a leading `]` is a literal
  while (j < p.length && p[j] !== ']') {
    if (p[j] === '\\') j += 2;
    else if (p.startsWith('[:', j)) {
      const end = p.indexOf(':]', j + 2);
      j = end < 0 ? j + 1 : end + 2;
    } else j++;
  }
  return j + 1;
}

/** Skips an escape starting at `i` (`\`); returns the index past it and how many atoms it is. */
function skipEscape(p: string, i: number): { next: number; atoms: number } {
  const c = p[i + 1];
  if (c === 'Q') {
    // `\Q…\E`: every character literal.
    const end = p.indexOf('\\E', i + 2);
    const stop = end < 0 ? p.length : end;
    return { next: end < 0 ? p.length : end + 2, atoms: Math.max(1, stop - (i + 2)) };
  }
  if ((c === 'p' || c === 'P' || c === 'x') && p[i + 2] === '{') {
    const end = p.indexOf('}', i + 3);
    return { next: end < 0 ? p.length : end + 1, atoms: 1 };
  }
  if (c === 'p' || c === 'P') return { next: i + 3, atoms: 1 };
  if (c === 'x') return { next: i + 4, atoms: 1 };
  return { next: i + 2, atoms: 1 };
}

/**
 * An upper estimate of the program `pattern` compiles to, counting one per atom and operator and
 * multiplying by each counted repetition (nested ones multiply). Stops counting past `limit`: the
 * work is linear in the pattern's length whatever it holds. Syntax errors are RE2's to report.
 */
export function regexSizeEstimate(pattern: string, limit = MAX_REGEX_SIZE): number {
  // One frame per open group: the instructions so far, and the size of the last thing a
  // quantifier would repeat.
  // The program's own instructions (fail, match, the `\A` anchor) come first.
  const stack: { total: number; last: number }[] = [{ total: 3, last: 0 }];
  let top = stack[0]!;
  const add = (n: number, last: number) => {
    top.total += n;
    top.last = last;
  };
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '\\') {
      const { next, atoms } = skipEscape(pattern, i);
      add(atoms, 1);
      i = next;
    } else if (c === '[') {
      add(1, 1);
      i = skipClass(pattern, i);
    } else if (c === '(') {
      top = { total: 0, last: 0 };
      stack.push(top);
      i++;
    } else if (c === ')') {
      if (stack.length > 1) {
        const size = stack.pop()!.total + 2; // the group's own capture instructions
        top = stack[stack.length - 1]!;
        add(size, size);
      }
      i++;
    } else if (c === '*' || c === '+' || c === '?' || c === '|') {
      add(1, 0);
      i++;
    } else if (c === '{') {
      const m = COUNTED.exec(pattern.slice(i, i + 16));
      const min = m ? Number(m[1]) : 0;
      const max = m ? (m[2] === undefined ? min : m[3] === '' ? min + 1 : Number(m[3])) : 0;
      if (m && min <= MAX_REPEAT && max <= MAX_REPEAT && max >= 1) {
        // x{n,m}: n copies of x and m-n optional ones, each optional copy with its branch.
        add(top.last * (max - 1) + (max - min), top.last * max);
        i += m[0].length;
      } else {
        add(1, 1);
        i++;
      }
    } else {
      add(1, 1);
      i++;
    }
    if (top.total > limit || top.last > limit) return limit + 1;
  }
  let size = 0;
  for (const frame of stack) size += frame.total;
  return size;
}
