/**
 * Python's `json.loads` where JavaScript's JSON.parse failed: the text 25.10.1 answers a frame it
 * cannot parse with (`-32700`, `str(JSONDecodeError)`, MW/api/base/server/ws_handler/rpc.py:249-251
 * over MW/utils/limits.py:41-81), or the value for the few texts Python takes and JavaScript does
 * not (`NaN`, `Infinity`, `-Infinity`). Follows CPython 3.11's C scanner (Modules/_json.c:
 * scanstring_unicode, _parse_object_unicode, _parse_array_unicode, scan_once_unicode) and
 * Lib/json/decoder.py (`decode`, `raw_decode`, `JSONDecodeError`): positions count code points,
 * as Python's do.
 */
export class PythonJsonError extends Error {}

const WS = new Set([' ', '\t', '\n', '\r']);
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const HEX = /^[0-9a-fA-F]{4}$/;
const NUMBER = /^(-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)?/;

/** "Expecting value" raised from the top when any nested scan finds no term (`StopIteration(idx)`). */
class StopIteration {
  constructor(readonly idx: number) {}
}

/** `JSONDecodeError.__str__`: `msg: line L column C (char P)`. */
function error(s: readonly string[], msg: string, pos: number): PythonJsonError {
  let line = 1;
  let lastNewline = -1;
  for (let i = 0; i < pos && i < s.length; i++) {
    if (s[i] === '\n') {
      line++;
      lastNewline = i;
    }
  }
  return new PythonJsonError(`${msg}: line ${line} column ${pos - lastNewline} (char ${pos})`);
}

/** `json.loads(text)`: the value, or throws PythonJsonError with Python's words. */
export function pythonJsonLoads(text: string): unknown {
  const s = Array.from(text);
  // Lib/json/__init__.py `loads` of a str (bytes are decoded with the BOM dropped: strip it first).
  if (s[0] === '\ufeff') throw error(s, 'Unexpected UTF-8 BOM (decode using utf-8-sig)', 0);
  const skip = (i: number) => {
    while (i < s.length && WS.has(s[i]!)) i++;
    return i;
  };

  const scanString = (start: number): [string, number] => {
    // `start` is just past the opening quote; errors about the string point at the quote.
    const begin = start - 1;
    let out = '';
    let i = start;
    for (;;) {
      let j = i;
      while (j < s.length && s[j] !== '"' && s[j] !== '\\') {
        if (s[j]!.codePointAt(0)! <= 0x1f) throw error(s, 'Invalid control character at', j);
        j++;
      }
      if (j >= s.length) throw error(s, 'Unterminated string starting at', begin);
      out += s.slice(i, j).join('');
      if (s[j] === '"') return [out, j + 1];
      j++;
      if (j === s.length) throw error(s, 'Unterminated string starting at', begin);
      const c = s[j]!;
      if (c !== 'u') {
        if (!ESCAPES.has(c)) throw error(s, 'Invalid \\escape', j - 1);
        out += JSON.parse(`"\\${c}"`) as string;
        i = j + 1;
        continue;
      }
      const end = j + 1 + 4;
      if (end >= s.length) throw error(s, 'Invalid \\uXXXX escape', j);
      const hex = s.slice(j + 1, end).join('');
      if (!HEX.test(hex)) throw error(s, 'Invalid \\uXXXX escape', end - 5);
      out += String.fromCharCode(parseInt(hex, 16));
      i = end;
    }
  };

  const scanOnce = (idx: number): [unknown, number] => {
    if (idx >= s.length) throw new StopIteration(idx);
    const c = s[idx]!;
    const word = (w: string) => s.slice(idx, idx + w.length).join('') === w;
    if (c === '"') return scanString(idx + 1);
    if (c === '{') return parseObject(idx + 1);
    if (c === '[') return parseArray(idx + 1);
    if (c === 'n' && word('null')) return [null, idx + 4];
    if (c === 't' && word('true')) return [true, idx + 4];
    if (c === 'f' && word('false')) return [false, idx + 5];
    if (c === 'N' && word('NaN')) return [NaN, idx + 3];
    if (c === 'I' && word('Infinity')) return [Infinity, idx + 8];
    if (c === '-' && word('-Infinity')) return [-Infinity, idx + 9];
    const m = NUMBER.exec(s.slice(idx, idx + 400).join(''));
    if (!m) throw new StopIteration(idx);
    return [Number(m[0]), idx + Array.from(m[0]).length];
  };

  const parseObject = (start: number): [unknown, number] => {
    const obj: Record<string, unknown> = {};
    let idx = skip(start);
    if (idx >= s.length || s[idx] !== '}') {
      for (;;) {
        if (idx >= s.length || s[idx] !== '"') throw error(s, 'Expecting property name enclosed in double quotes', idx);
        const [key, afterKey] = scanString(idx + 1);
        idx = skip(afterKey);
        if (idx >= s.length || s[idx] !== ':') throw error(s, "Expecting ':' delimiter", idx);
        const [value, afterValue] = scanOnce(skip(idx + 1));
        obj[key] = value;
        idx = skip(afterValue);
        if (idx < s.length && s[idx] === '}') break;
        if (idx >= s.length || s[idx] !== ',') throw error(s, "Expecting ',' delimiter", idx);
        idx = skip(idx + 1);
      }
    }
    return [obj, idx + 1];
  };

  const parseArray = (start: number): [unknown, number] => {
    const list: unknown[] = [];
    let idx = skip(start);
    if (idx >= s.length || s[idx] !== ']') {
      for (;;) {
        const [value, after] = scanOnce(idx);
        list.push(value);
        idx = skip(after);
        if (idx < s.length && s[idx] === ']') break;
        if (idx >= s.length || s[idx] !== ',') throw error(s, "Expecting ',' delimiter", idx);
        idx = skip(idx + 1);
      }
    }
    return [list, idx + 1];
  };

  let value: unknown;
  let end: number;
  try {
    [value, end] = scanOnce(skip(0));
  } catch (err) {
    if (err instanceof StopIteration) throw error(s, 'Expecting value', err.idx);
    throw err;
  }
  end = skip(end);
  if (end !== s.length) throw error(s, 'Extra data', end);
  return value;
}
