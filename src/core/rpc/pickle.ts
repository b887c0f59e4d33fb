/**
 * A small pickle writer: just enough of Python's pickle protocol 2 (PEP 307; the opcodes are
 * those of CPython's Lib/pickle.py and Lib/pickletools.py) to write an exception object as
 * `pickle.dumps` writes it, for `data.py_exception` (MW/api/base/server/ws_handler/rpc.py:94-98).
 *
 * An exception pickles through `BaseException.__reduce__`: `(type(e), e.args, e.__dict__)`, the
 * dict left out when empty. Unpickling calls `type(*args)` (REDUCE) and then sets the dict's
 * entries as attributes (BUILD, `BaseException.__setstate__`).
 */

/** A value of the pickle: JSON-like data, or an object built by a class from a module. */
export type PyValue = null | boolean | number | string | PyValue[] | { [key: string]: PyValue } | PyObject;

/** `module.name(*args)`, then its `__dict__` updated from `state` (when given). A class, so no JSON object passes for one. */
export class PyObject {
  constructor(
    readonly module: string,
    readonly name: string,
    readonly args: PyValue[],
    readonly state?: Record<string, PyValue>,
  ) {}
}

// The opcodes used (Lib/pickle.py), each one byte.
const PROTO = 0x80; // followed by the protocol number, one byte
const STOP = 0x2e; // '.': the value on the stack is the result
const MARK = 0x28; // '(': where a TUPLE, APPENDS or SETITEMS starts taking items
const TUPLE = 0x74; // 't': the items since the mark, as a tuple
const EMPTY_TUPLE = 0x29; // ')'
const EMPTY_LIST = 0x5d; // ']'
const APPENDS = 0x65; // 'e': append the items since the mark to the list below the mark
const EMPTY_DICT = 0x7d; // '}'
const SETITEMS = 0x75; // 'u': key, value pairs since the mark into the dict below the mark
const GLOBAL = 0x63; // 'c': "module\nname\n", the class to call
const REDUCE = 0x52; // 'R': call the callable below with the tuple on top
const BUILD = 0x62; // 'b': set the state on top into the object below
const NONE = 0x4e; // 'N'
const NEWTRUE = 0x88;
const NEWFALSE = 0x89;
const BININT = 0x4a; // 'J': a signed 32-bit integer, little-endian
const LONG1 = 0x8a; // an integer of n bytes (n in one byte), little-endian two's complement
const BINFLOAT = 0x47; // 'G': a float, 8 bytes big-endian IEEE 754
const BINUNICODE = 0x58; // 'X': a str, its UTF-8 length in 4 bytes little-endian, then the bytes

class Writer {
  private readonly chunks: Buffer[] = [];

  byte(b: number): void {
    this.chunks.push(Buffer.from([b]));
  }

  bytes(b: Buffer): void {
    this.chunks.push(b);
  }

  done(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

function writeInt(w: Writer, n: number): void {
  if (n >= -0x8000_0000 && n <= 0x7fff_ffff) {
    const b = Buffer.alloc(4);
    b.writeInt32LE(n);
    w.byte(BININT);
    w.bytes(b);
    return;
  }
  // Wider integers (JSON's, so at most 2^53): the shortest two's complement, little-endian.
  let v = BigInt(n);
  const out: number[] = [];
  for (;;) {
    const low = Number(v & 0xffn);
    out.push(low);
    v >>= 8n;
    if ((v === 0n && (low & 0x80) === 0) || (v === -1n && (low & 0x80) !== 0)) break;
  }
  w.byte(LONG1);
  w.byte(out.length);
  w.bytes(Buffer.from(out));
}

function writeValue(w: Writer, v: PyValue): void {
  if (v === null) return w.byte(NONE);
  if (typeof v === 'boolean') return w.byte(v ? NEWTRUE : NEWFALSE);
  if (typeof v === 'number') {
    if (Number.isInteger(v)) return writeInt(w, v);
    const b = Buffer.alloc(8);
    b.writeDoubleBE(v);
    w.byte(BINFLOAT);
    return w.bytes(b);
  }
  if (typeof v === 'string') {
    const s = utf8SurrogatePass(v);
    const len = Buffer.alloc(4);
    len.writeUInt32LE(s.length);
    w.byte(BINUNICODE);
    w.bytes(len);
    return w.bytes(s);
  }
  if (Array.isArray(v)) {
    w.byte(EMPTY_LIST);
    if (v.length === 0) return;
    w.byte(MARK);
    v.forEach((item) => writeValue(w, item));
    return w.byte(APPENDS);
  }
  if (v instanceof PyObject) {
    w.byte(GLOBAL);
    w.bytes(Buffer.from(`${v.module}\n${v.name}\n`, 'utf8'));
    if (v.args.length === 0) w.byte(EMPTY_TUPLE);
    else {
      w.byte(MARK);
      v.args.forEach((a) => writeValue(w, a));
      w.byte(TUPLE);
    }
    w.byte(REDUCE);
    if (v.state !== undefined && Object.keys(v.state).length > 0) {
      writeValue(w, v.state);
      w.byte(BUILD);
    }
    return;
  }
  w.byte(EMPTY_DICT);
  const entries = Object.entries(v);
  if (entries.length === 0) return;
  w.byte(MARK);
  for (const [key, item] of entries) {
    writeValue(w, key);
    writeValue(w, item);
  }
  w.byte(SETITEMS);
}

/** `pickle.dumps(value, protocol=2)`: the bytes `pickle.loads` reads back into the same value. */
export function pickle(value: PyValue): Buffer {
  const w = new Writer();
  w.byte(PROTO);
  w.byte(2);
  writeValue(w, value);
  w.byte(STOP);
  return w.done();
}

/**
 * The string as Python's pickle writes a `str` (`encode('utf-8', 'surrogatepass')`, Lib/pickle.py
 * save_str): a lone surrogate, which a path from a client may carry, is kept as its own three
 * bytes where Buffer.from(…, 'utf8') would put U+FFFD in its place and the caller would read
 * another name than the one the error is about.
 */
function utf8SurrogatePass(text: string): Buffer {
  if (!/[\uD800-\uDFFF]/.test(text)) return Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i++; // a pair: UTF-8 proper
      continue;
    }
    parts.push(
      Buffer.from(text.slice(start, i), 'utf8'),
      Buffer.from([0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]),
    );
    start = i + 1;
  }
  parts.push(Buffer.from(text.slice(start), 'utf8'));
  return Buffer.concat(parts);
}
