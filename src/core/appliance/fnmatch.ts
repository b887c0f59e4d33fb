// Shell-style patterns as Python reads them, for the emulator's datasets and allowlists.

/** Where a `*` stands among fnmatch's translated pieces. */
const STAR = Symbol('*');

/**
 * Python's `fnmatch.fnmatch` on POSIX (case kept; `*` and `?` match `/` too; `[seq]`, `[!seq]`), which
 * zettarepl's exclude (exclude.py:12-13) and the middleware's allowlists (MW/utils/allowlist.py:17-18)
 * match with. Translated as
 * CPython 3.11's fnmatch.translate does (Lib/fnmatch.py:74-185): runs of `*` count as one, and
 * each `*` followed by fixed text takes the first place that text fits, with no way back
 * (`(?>.*?fixed)`, an atomic group, which JavaScript spells as a lookahead captured and then
 * matched). Without that, `*a*a*a*…` against a long dataset name backtracks for hours; with it a
 * match costs the name's length times the pattern's.
 */
export function fnmatch(name: string, pattern: string): boolean {
  let re = compiled.get(pattern);
  if (re === undefined) {
    // fnmatch's own cache is an lru_cache of 32768 (fnmatch.py:38); a cleared map does here.
    if (compiled.size >= 1024) compiled.clear();
    re = translate(pattern);
    compiled.set(pattern, re);
  }
  return re.test(name);
}

const compiled = new Map<string, RegExp>();

function translate(text: string): RegExp {
  // Python indexes a str by code point: a character outside the BMP is one `?` and one member of a
  // set, not two UTF-16 halves (hence the array, and the `u` flag below).
  const pattern = Array.from(text);
  const pieces: (string | typeof STAR)[] = [];
  const n = pattern.length;
  let i = 0;
  while (i < n) {
    const c = pattern[i++]!;
    if (c === '*') {
      if (pieces.at(-1) !== STAR) pieces.push(STAR);
    } else if (c === '?') pieces.push('.');
    else if (c === '[') {
      // A `!` and then a `]` right after `[` belong to the set; without a closing `]`, `[` is itself.
      let j = i;
      if (j < n && pattern[j] === '!') j++;
      if (j < n && pattern[j] === ']') j++;
      while (j < n && pattern[j] !== ']') j++;
      if (j >= n) pieces.push('\\[');
      else {
        pieces.push(setOf(pattern, i, j));
        i = j + 1;
      }
    } else pieces.push(c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  }
  // A `*` then fixed text, but the last: the atomic `(?>.*?fixed)` (fnmatch.py:161-182).
  let re = '';
  let group = 0;
  let at = 0;
  while (at < pieces.length && pieces[at] !== STAR) re += pieces[at++] as string;
  while (at < pieces.length) {
    at++; // the STAR
    let fixed = '';
    while (at < pieces.length && pieces[at] !== STAR) fixed += pieces[at++] as string;
    if (at === pieces.length) re += `.*${fixed}`;
    else {
      group++;
      re += `(?=(?<g${group}>.*?${fixed}))\\k<g${group}>`;
    }
  }
  return new RegExp(`^(?:${re})$`, 'su');
}

/**
 * The class for `[…]`, the set between `[` at `start - 1` and `]` at `end` (fnmatch.py:93-142): ranges
 * whose ends are out of order dropped, backslashes and hyphens that make no range escaped, `&`,
 * `~` and `|` escaped; an empty set matches nothing and `[!]` anything.
 */
function setOf(pattern: readonly string[], start: number, end: number): string {
  let stuff = pattern.slice(start, end).join('');
  if (!stuff.includes('-')) stuff = stuff.replace(/\\/g, '\\\\');
  else {
    const chunks: string[] = [];
    let from = start;
    let k = pattern[start] === '!' ? start + 2 : start + 1;
    for (;;) {
      k = k < end ? pattern.indexOf('-', k) : -1;
      if (k < 0 || k >= end) break;
      chunks.push(pattern.slice(from, k).join(''));
      from = k + 1;
      k += 3;
    }
    const last = pattern.slice(from, end).join('');
    if (last) chunks.push(last);
    else chunks[chunks.length - 1] += '-';
    for (let m = chunks.length - 1; m > 0; m--) {
      const before = Array.from(chunks[m - 1]!);
      const after = Array.from(chunks[m]!);
      if (before.at(-1)!.codePointAt(0)! > after[0]!.codePointAt(0)!) {
        chunks[m - 1] = before.slice(0, -1).join('') + after.slice(1).join('');
        chunks.splice(m, 1);
      }
    }
    stuff = chunks.map((chunk) => chunk.replace(/\\/g, '\\\\').replace(/-/g, '\\-')).join('-');
  }
  // A `]` first in the set is one of its members to Python's re; to JavaScript it closes the class.
  stuff = stuff.replace(/]/g, '\\]');
  // Python escapes `&`, `~` and `|` against future set operations; in a `u` class `|` is literal
  // escaped or not, and `\&`, `\~` are syntax errors, so they stay as they are.
  if (!stuff) return '(?!)';
  if (stuff === '!') return '.';
  if (stuff[0] === '!') stuff = `^${stuff.slice(1)}`;
  else if (stuff[0] === '^' || stuff[0] === '[') stuff = `\\${stuff}`;
  return `[${stuff}]`;
}
