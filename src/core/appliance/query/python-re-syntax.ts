/**
 * Which patterns Python's `re` compiles, and its error text for the others: a port of the checks
 * of Lib/re/_parser.py (Python 3.11, Debian bookworm's, which 25.10 ships; MW/.github/workflows/
 * lint.yml:27 at TS-25.10.1 names 3.11, at TS-26.0.0-BETA.3 3.13) and of the look-behind width
 * check of Lib/re/_compiler.py:150-153. Nothing is built but the widths a look-behind needs: the
 * pattern itself runs on RE2 (./python.ts). The two releases differ only where noted (`py313`).
 */
import { pyRepr } from '../../python-repr.js';

export type PythonRelease = '3.11' | '3.13';

const MAXREPEAT = 4294967295;
const MAXGROUPS = 1073741823;
const DIGITS = /^[0-9]$/;
const OCTDIGITS = /^[0-7]$/;
const HEXDIGITS = /^[0-9a-fA-F]$/;
const ASCIILETTERS = /^[a-zA-Z]$/;
const WHITESPACE = ' \t\n\r\v\f';
const SPECIAL = '.\\[{()*+?^$|';
/**
 * `str.isidentifier()`, near enough (PEP 3131's XID classes). Made at first use: V8 builds the
 * \p{…} classes' sets when the literal is evaluated (~0.7 ms on Node 24), and the emulator's start
 * loads this module for every command (bench/HISTORY.md, "the embedded start-up, eighth round").
 */
let identifier: RegExp | undefined;
const IDENTIFIER = () => (identifier ??= /^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*$/u);

/** `re.error`, whose text says where (Lib/re/_constants.py:31-47). */
export class PythonReError extends Error {}

function reError(msg: string, pattern: string, pos?: number): PythonReError {
  if (pos === undefined) return new PythonReError(msg);
  // Python counts code points; the checker indexes UTF-16 units, two for each character past the BMP.
  const before = [...pattern.slice(0, pos)];
  let text = `${msg} at position ${before.length}`;
  if (pattern.includes('\n')) {
    const line = before.filter((c) => c === '\n').length + 1;
    text += ` (line ${line}, column ${before.length - before.lastIndexOf('\n')})`;
  }
  return new PythonReError(text);
}

/** A parsed item, as far as the checks look at it: its kind and its width (SubPattern.getwidth). */
interface Item {
  kind: 'at' | 'repeat' | 'group' | 'other';
  lo: number;
  hi: number;
}

const FLAG_LETTERS = (v: PythonRelease) => (v === '3.11' ? 'iLmsxatu' : 'iLmsxau');
const TYPE_FLAGS = 'aLu';

function width(items: Item[]): [number, number] {
  let lo = 0;
  let hi = 0;
  for (const it of items) {
    lo += it.lo;
    hi += it.hi;
  }
  return [Math.min(lo, MAXREPEAT - 1), Math.min(hi, MAXREPEAT)];
}

class Checker {
  private index = 0;
  next: string | undefined;
  groups = 1;
  private readonly groupWidths: ([number, number] | null)[] = [null];
  private readonly groupDict = new Map<string, number>();
  readonly groupRefPos = new Map<number, number>();
  private lookbehindGroups: number | undefined;
  /**
   * What Lib/re/_compiler.py's _compile raises, visiting the parsed tree in order after parsing succeeded:
   * a look-behind of no fixed width (op undefined, _compiler.py:150-153), or a repeat's node under
   * TEMPLATE. A node comes before the nodes it holds, so before those starting after it; a repeat
   * starting where the look-behind it repeats does holds it (order 0 before 1).
   */
  readonly compileErrors: { pos: number; order: number; op?: string }[] = [];
  flags = '';

  readonly pattern: string;
  readonly version: PythonRelease;

  constructor(pattern: string, version: PythonRelease) {
    this.pattern = pattern;
    this.version = version;
    this.advance();
  }

  private advance(): void {
    const p = this.pattern;
    let index = this.index;
    if (index >= p.length) {
      this.next = undefined;
      return;
    }
    // One code point, as Python indexes str (Lib/re/_parser.py Tokenizer.__next): a character past
    // the BMP is two UTF-16 units here, one character there. Positions are made Python's in reError.
    const at = (i: number) => String.fromCodePoint(p.codePointAt(i)!);
    let char = at(index);
    if (char === '\\') {
      index++;
      if (index >= p.length) throw reError('bad escape (end of pattern)', p, p.length - 1);
      char += at(index);
    }
    this.index = index + char.length - (char[0] === '\\' ? 1 : 0);
    this.next = char;
  }

  match(c: string): boolean {
    if (this.next === c) {
      this.advance();
      return true;
    }
    return false;
  }

  get(): string | undefined {
    const t = this.next;
    this.advance();
    return t;
  }

  getwhile(n: number, set: RegExp): string {
    let r = '';
    for (let k = 0; k < n; k++) {
      const c = this.next;
      if (c === undefined || !set.test(c)) break;
      r += c;
      this.advance();
    }
    return r;
  }

  getuntil(terminator: string, name: string): string {
    let r = '';
    for (;;) {
      const c = this.next;
      this.advance();
      if (c === undefined) {
        if (!r) throw this.error(`missing ${name}`);
        throw this.error(`missing ${terminator}, unterminated name`, r.length);
      }
      if (c === terminator) {
        if (!r) throw this.error(`missing ${name}`, 1);
        break;
      }
      r += c;
    }
    return r;
  }

  tell(): number {
    return this.index - (this.next?.length ?? 0);
  }

  seek(i: number): void {
    this.index = i;
    this.advance();
  }

  error(msg: string, offset = 0): PythonReError {
    return reError(msg, this.pattern, this.tell() - offset);
  }

  checkGroupName(name: string, offset: number): void {
    if (!IDENTIFIER().test(name)) throw this.error(`bad character in group name ${pyRepr(name)}`, name.length + offset);
  }

  checkGroup(gid: number): boolean {
    return gid < this.groups && this.groupWidths[gid] != null;
  }

  checkLookbehindGroup(gid: number): void {
    if (this.lookbehindGroups === undefined) return;
    if (!this.checkGroup(gid)) throw this.error('cannot refer to an open group');
    if (gid >= this.lookbehindGroups)
      throw this.error('cannot refer to group defined in the same lookbehind subpattern');
  }

  groupRef(gid: number): Item {
    const w = this.groupWidths[gid] ?? [0, MAXREPEAT];
    return { kind: 'other', lo: w[0], hi: w[1] };
  }

  /** _parser.py _escape / _class_escape: returns whether it is a category (a set in a class). */
  escape(esc: string, inClass: boolean): Item & { literal?: number } {
    const c = String.fromCodePoint(esc.codePointAt(1)!);
    const one = { kind: 'other' as const, lo: 1, hi: 1 };
    if (inClass) {
      if ('abfnrtv\\'.includes(c)) return { ...one, literal: 1 };
      if ('dDsSwW'.includes(c)) return one;
    } else {
      if ('AbBZ'.includes(c)) return { kind: 'at', lo: 0, hi: 0 };
      if ('dDsSwW'.includes(c)) return one;
      if ('afnrtv\\'.includes(c)) return { ...one, literal: 1 };
    }
    const hex = c === 'x' ? 2 : c === 'u' ? 4 : c === 'U' ? 8 : 0;
    if (hex) {
      esc += this.getwhile(hex, HEXDIGITS);
      if (esc.length !== hex + 2) throw this.error(`incomplete escape ${esc}`, esc.length);
      const code = parseInt(esc.slice(2), 16);
      // Lib/re/_parser.py:335,395 chr(c): ValueError past 0x10FFFF (a bad escape), OverflowError past a C int.
      if (c === 'U' && code > 0x7fffffff) throw new PythonReError('Python int too large to convert to C int');
      if (c === 'U' && code > 0x10ffff) throw this.error(`bad escape ${esc}`, esc.length);
      return { ...one, literal: code };
    }
    if (c === 'N') {
      if (!this.match('{')) throw this.error('missing {');
      const name = this.getuntil('}', 'character name');
      // unicodedata is not at hand: every name is refused as Python refuses an unknown one. The
      // caller is told so (an emulator difference, docs/RELEASES.md).
      throw new UnsupportedByEmulator(`\\N{${name}} (named characters) is not supported by the emulator`);
    }
    if (inClass) {
      if (OCTDIGITS.test(c)) {
        esc += this.getwhile(2, OCTDIGITS);
        const code = parseInt(esc.slice(1), 8);
        if (code > 0o377) throw this.error(`octal escape value ${esc} outside of range 0-0o377`, esc.length);
        return { ...one, literal: code };
      }
      if (DIGITS.test(c)) throw this.error(`bad escape ${esc}`, esc.length);
    } else if (c === '0') {
      esc += this.getwhile(2, OCTDIGITS);
      return { ...one, literal: parseInt(esc.slice(1), 8) };
    } else if (DIGITS.test(c)) {
      if (this.next !== undefined && DIGITS.test(this.next)) {
        esc += this.get();
        if (
          OCTDIGITS.test(esc[1]!) &&
          OCTDIGITS.test(esc[2]!) &&
          this.next !== undefined &&
          OCTDIGITS.test(this.next)
        ) {
          esc += this.get();
          const code = parseInt(esc.slice(1), 8);
          if (code > 0o377) throw this.error(`octal escape value ${esc} outside of range 0-0o377`, esc.length);
          return { ...one, literal: code };
        }
      }
      const group = Number(esc.slice(1));
      if (group < this.groups) {
        if (!this.checkGroup(group)) throw this.error('cannot refer to an open group', esc.length);
        this.checkLookbehindGroup(group);
        return this.groupRef(group);
      }
      throw this.error(`invalid group reference ${group}`, esc.length - 1);
    }
    if (esc.length === 1 + c.length) {
      if (ASCIILETTERS.test(c)) throw this.error(`bad escape ${esc}`, esc.length);
      return { ...one, literal: c.codePointAt(0)! };
    }
    throw this.error(`bad escape ${esc}`, esc.length);
  }

  parseSub(verbose: boolean, nested: number): [number, number] {
    let lo = Infinity;
    let hi = 0;
    let first = true;
    for (;;) {
      const [l, h] = width(this.parse(verbose, nested + 1, nested === 0 && first));
      lo = Math.min(lo, l);
      hi = Math.max(hi, h);
      first = false;
      if (!this.match('|')) break;
      if (!nested) verbose = this.flags.includes('x');
    }
    return [lo, hi];
  }

  parse(verbose: boolean, nested: number, first = false): Item[] {
    const sub: Item[] = [];
    // Where each item of sub starts: a repeat's node starts where the item it repeats does.
    const starts: number[] = [];
    let tokenStart = 0;
    for (;;) {
      if (starts.length < sub.length) starts.push(tokenStart);
      const t = this.next;
      if (t === undefined || t === '|' || t === ')') break;
      tokenStart = this.tell();
      this.get();
      if (verbose) {
        if (WHITESPACE.includes(t)) continue;
        if (t === '#') {
          for (;;) {
            const c = this.get();
            if (c === undefined || c === '\n') break;
          }
          continue;
        }
      }
      if (t[0] === '\\') {
        sub.push(this.escape(t, false));
      } else if (!SPECIAL.includes(t)) {
        sub.push({ kind: 'other', lo: 1, hi: 1 });
      } else if (t === '[') {
        this.parseSet();
        sub.push({ kind: 'other', lo: 1, hi: 1 });
      } else if ('*+?{'.includes(t)) {
        const here = this.tell();
        let min = 0;
        let max = MAXREPEAT;
        if (t === '?') max = 1;
        else if (t === '+') min = 1;
        else if (t === '{') {
          if (this.next === '}') {
            sub.push({ kind: 'other', lo: 1, hi: 1 });
            continue;
          }
          let lo = '';
          let hi = '';
          while (this.next !== undefined && DIGITS.test(this.next)) lo += this.get();
          if (this.match(',')) {
            while (this.next !== undefined && DIGITS.test(this.next)) hi += this.get();
          } else hi = lo;
          if (!this.match('}')) {
            sub.push({ kind: 'other', lo: 1, hi: 1 });
            this.seek(here);
            continue;
          }
          if (lo) {
            min = Number(lo);
            if (min >= MAXREPEAT) throw new PythonReError('the repetition number is too large');
          }
          if (hi) {
            max = Number(hi);
            if (max >= MAXREPEAT) throw new PythonReError('the repetition number is too large');
            if (max < min) throw this.error('min repeat greater than max repeat', this.tell() - here);
          }
        }
        const item = sub.at(-1);
        if (!item || item.kind === 'at') throw this.error('nothing to repeat', this.tell() - here + t.length);
        if (item.kind === 'repeat') throw this.error('multiple repeat', this.tell() - here + t.length);
        const op = this.match('?') ? 'MIN_REPEAT' : this.match('+') ? 'POSSESSIVE_REPEAT' : 'MAX_REPEAT';
        // Lib/re/_compiler.py:103-105: under TEMPLATE (3.11's `t`) compiling any repeat fails.
        this.compileErrors.push({ pos: starts[sub.length - 1]!, order: 0, op });
        sub[sub.length - 1] = {
          kind: 'repeat',
          lo: Math.min(item.lo * min, MAXREPEAT - 1),
          hi: item.hi && max ? Math.min(item.hi * max, MAXREPEAT) : 0,
        };
      } else if (t === '.') {
        sub.push({ kind: 'other', lo: 1, hi: 1 });
      } else if (t === '(') {
        const item = this.parseGroup(verbose, nested, first && sub.length === 0);
        if (item === 'flags') verbose = this.flags.includes('x');
        else if (item !== 'comment') sub.push(item);
      } else {
        sub.push({ kind: 'at', lo: 0, hi: 0 });
      }
    }
    return sub;
  }

  /** A group, a comment or global flags. */
  parseGroup(verbose: boolean, nested: number, first: boolean): Item | 'comment' | 'flags' {
    const start = this.tell() - 1;
    let capture = true;
    let name: string | undefined;
    let add = '';
    let del = '';
    if (this.match('?')) {
      const char = this.get();
      if (char === undefined) throw this.error('unexpected end of pattern');
      if (char === 'P') {
        if (this.match('<')) {
          name = this.getuntil('>', 'group name');
          this.checkGroupName(name, 1);
        } else if (this.match('=')) {
          name = this.getuntil(')', 'group name');
          this.checkGroupName(name, 1);
          const gid = this.groupDict.get(name);
          if (gid === undefined) throw this.error(`unknown group name ${pyRepr(name)}`, name.length + 1);
          if (!this.checkGroup(gid)) throw this.error('cannot refer to an open group', name.length + 1);
          this.checkLookbehindGroup(gid);
          return this.groupRef(gid);
        } else {
          const c = this.get();
          if (c === undefined) throw this.error('unexpected end of pattern');
          throw this.error(`unknown extension ?P${c}`, c.length + 2);
        }
      } else if (char === ':') {
        capture = false;
      } else if (char === '#') {
        for (;;) {
          if (this.next === undefined) throw this.error('missing ), unterminated comment', this.tell() - start);
          if (this.get() === ')') break;
        }
        return 'comment';
      } else if ('=!<'.includes(char)) {
        let c: string | undefined = char;
        let behind = false;
        const outer = this.lookbehindGroups;
        if (c === '<') {
          c = this.get();
          if (c === undefined) throw this.error('unexpected end of pattern');
          if (!'=!'.includes(c)) throw this.error(`unknown extension ?<${c}`, c.length + 2);
          behind = true;
          if (outer === undefined) this.lookbehindGroups = this.groups;
        }
        const [lo, hi] = this.parseSub(verbose, nested + 1);
        if (behind && outer === undefined) this.lookbehindGroups = undefined;
        if (!this.match(')')) throw this.error('missing ), unterminated subpattern', this.tell() - start);
        // _compiler.py:150-153, after parsing: no position.
        if (behind && lo !== hi) this.compileErrors.push({ pos: start, order: 1 });
        return { kind: 'other', lo: 0, hi: 0 };
      } else if (char === '(') {
        return this.parseConditional(verbose, nested, start);
      } else if (char === '>') {
        capture = false;
      } else if (FLAG_LETTERS(this.version).includes(char) || char === '-') {
        const f = this.parseFlags(char);
        if (f === undefined) {
          if (!first) throw this.error('global flags not at the start of the expression', this.tell() - start);
          return 'flags';
        }
        [add, del] = f;
        capture = false;
      } else {
        throw this.error(`unknown extension ?${char}`, char.length + 1);
      }
    }
    let group: number | undefined;
    if (capture) {
      group = this.groups;
      this.groupWidths.push(null);
      this.groups++;
      if (this.groups > MAXGROUPS) throw this.error('too many groups', (name?.length ?? -1) + 1);
      if (name !== undefined) {
        const ogid = this.groupDict.get(name);
        if (ogid !== undefined)
          throw this.error(
            `redefinition of group name ${pyRepr(name)} as group ${group}; was group ${ogid}`,
            name.length + 1,
          );
        this.groupDict.set(name, group);
      }
    }
    const subVerbose = (verbose || add.includes('x')) && !del.includes('x');
    const [lo, hi] = this.parseSub(subVerbose, nested + 1);
    if (!this.match(')')) throw this.error('missing ), unterminated subpattern', this.tell() - start);
    if (group !== undefined) this.groupWidths[group] = [lo, hi];
    return { kind: 'group', lo, hi };
  }

  parseConditional(verbose: boolean, nested: number, start: number): Item {
    const condname = this.getuntil(')', 'group name');
    let condgroup: number;
    const asciiNumber = /^[0-9]+$/.test(condname);
    if (this.version === '3.11' ? IDENTIFIER().test(condname) : !asciiNumber) {
      this.checkGroupName(condname, 1);
      const g = this.groupDict.get(condname);
      if (g === undefined) throw this.error(`unknown group name ${pyRepr(condname)}`, condname.length + 1);
      condgroup = g;
    } else {
      // Python 3.11 reads the name with int(): signs, `_` and Unicode digits pass it.
      const n = asciiNumber ? Number(condname) : pyInt(condname);
      if (n === undefined || n < 0)
        throw this.error(`bad character in group name ${pyRepr(condname)}`, condname.length + 1);
      condgroup = n;
      if (!condgroup) throw this.error('bad group number', condname.length + 1);
      if (condgroup >= MAXGROUPS) throw this.error(`invalid group reference ${condgroup}`, condname.length + 1);
      if (!this.groupRefPos.has(condgroup)) this.groupRefPos.set(condgroup, this.tell() - condname.length - 1);
    }
    this.checkLookbehindGroup(condgroup);
    const yes = width(this.parse(verbose, nested + 1));
    let no: [number, number] = [0, 0];
    if (this.match('|')) {
      no = width(this.parse(verbose, nested + 1));
      if (this.next === '|') throw this.error('conditional backref with more than two branches');
    }
    if (!this.match(')')) throw this.error('missing ), unterminated subpattern', this.tell() - start);
    return { kind: 'other', lo: Math.min(yes[0], no[0]), hi: Math.max(yes[1], no[1]) };
  }

  /** _parser.py _parse_flags: undefined for global flags `(?…)`, else the flags on and off. */
  parseFlags(char: string): [string, string] | undefined {
    const letters = FLAG_LETTERS(this.version);
    let add = '';
    let del = '';
    let c: string | undefined = char;
    if (c !== '-') {
      for (;;) {
        if (c === 'L') throw this.error("bad inline flags: cannot use 'L' flag with a str pattern");
        add += c;
        if (TYPE_FLAGS.includes(c) && [...add].some((x) => TYPE_FLAGS.includes(x) && x !== c))
          throw this.error("bad inline flags: flags 'a', 'u' and 'L' are incompatible");
        c = this.get();
        if (c === undefined) throw this.error('missing -, : or )');
        if (')-:'.includes(c)) break;
        if (!letters.includes(c)) throw this.error(isAlpha(c) ? 'unknown flag' : 'missing -, : or )', c.length);
      }
    }
    if (c === ')') {
      this.flags += add;
      return undefined;
    }
    if (add.includes('t')) throw this.error('bad inline flags: cannot turn on global flag', 1);
    if (c === '-') {
      c = this.get();
      if (c === undefined) throw this.error('missing flag');
      if (!letters.includes(c)) throw this.error(isAlpha(c) ? 'unknown flag' : 'missing flag', c.length);
      for (;;) {
        if (TYPE_FLAGS.includes(c)) throw this.error("bad inline flags: cannot turn off flags 'a', 'u' and 'L'");
        del += c;
        c = this.get();
        if (c === undefined) throw this.error('missing :');
        if (c === ':') break;
        if (!letters.includes(c)) throw this.error(isAlpha(c) ? 'unknown flag' : 'missing :', c.length);
      }
    }
    if (del.includes('t')) throw this.error('bad inline flags: cannot turn off global flag', 1);
    if ([...add].some((x) => del.includes(x))) throw this.error('bad inline flags: flag turned on and off', 1);
    return [add, del];
  }

  parseSet(): void {
    const here = this.tell() - 1;
    let members = 0;
    this.match('^');
    for (;;) {
      const t = this.get();
      if (t === undefined) throw this.error('unterminated character set', this.tell() - here);
      if (t === ']' && members) break;
      let code1: { literal?: number };
      if (t[0] === '\\') code1 = this.escape(t, true);
      else code1 = { literal: t.codePointAt(0)! };
      members++;
      if (this.match('-')) {
        const that = this.get();
        if (that === undefined) throw this.error('unterminated character set', this.tell() - here);
        if (that === ']') break;
        const code2: { literal?: number } =
          that[0] === '\\' ? this.escape(that, true) : { literal: that.codePointAt(0)! };
        if (code1.literal === undefined || code2.literal === undefined || code2.literal < code1.literal)
          throw this.error(`bad character range ${t}-${that}`, t.length + 1 + that.length);
      }
    }
  }
}

/** Python's int() of a str, for what the group-number forms use; undefined where it raises. */
function pyInt(s: string): number | undefined {
  const t = s.trim().replace(/\p{Nd}/gu, (d) => String(digitValue(d)));
  if (!/^[+-]?[0-9]+(?:_[0-9]+)*$/.test(t)) return undefined;
  return Number(t.replace(/_/g, ''));
}

function digitValue(d: string): number {
  const cp = d.codePointAt(0)!;
  // Unicode's decimal digits come in runs of ten starting at a code point ending in 0 (mostly).
  for (let z = cp; z > cp - 10; z--) if (!/\p{Nd}/u.test(String.fromCodePoint(z - 1))) return cp - z;
  return 0;
}

const isAlpha = (c: string) => /^\p{L}$/u.test(c);

/** A pattern Python compiles but the emulator cannot judge or run alike: refused with our own words. */
export class UnsupportedByEmulator extends Error {}

/**
 * Throws PythonReError with `str(re.error)` (or OverflowError's text) where `re.compile(pattern)`
 * fails, UnsupportedByEmulator where the emulator cannot tell; returns the global flags.
 */
export function checkPythonPattern(pattern: string, version: PythonRelease = '3.11'): string {
  const s = new Checker(pattern, version);
  s.parseSub(false, 0);
  // _parser.py parse(): fix_flags, then a stray `)`, then forward group references.
  if (s.flags.includes('a') && s.flags.includes('u'))
    throw new PythonReError('ASCII and UNICODE flags are incompatible');
  if (s.next !== undefined) throw s.error('unbalanced parenthesis');
  for (const [g, pos] of s.groupRefPos) if (g >= s.groups) throw reError(`invalid group reference ${g}`, pattern, pos);
  const template = version === '3.11' && s.flags.includes('t');
  const first = s.compileErrors
    .filter((e) => e.op === undefined || template)
    .sort((a, b) => a.pos - b.pos || a.order - b.order)[0];
  if (first)
    throw new PythonReError(
      first.op === undefined
        ? 'look-behind requires fixed-width pattern'
        : `internal: unsupported template operator ${first.op}`,
    );
  return s.flags;
}
