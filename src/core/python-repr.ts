/**
 * Python's `repr()` of JSON values, for the texts the appliance builds with it: query errors,
 * `{name!r}` in messages, and an exception's `trace.repr` (MW/api/base/server/ws_handler/rpc.py:119).
 */

/** Python `repr()` of a JSON value. */
export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : v > 0 ? 'inf' : v < 0 ? '-inf' : 'nan';
  if (typeof v === 'string') return pyStrRepr(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') {
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${pyStrRepr(k)}: ${pyRepr(x)}`)
      .join(', ')}}`;
  }
  return String(v);
}

/**
 * What `str.isprintable()` refuses, which repr() escapes: Unicode's Other (Cc, Cf, Cs, Co, Cn) and
 * Separator (Zl, Zp, Zs) characters but the space (Objects/unicodectype.c, PRINTABLE_MASK), as
 * this Node's Unicode version classes them.
 */
// Made at first use: V8 builds a \p{…} class's code point sets when the literal is evaluated, ~0.7 ms
// for this one on Node 24, which every command would pay at load (bench/HISTORY.md, "the embedded
// start-up, eighth round").
let notPrintable: RegExp | undefined;
const NOT_PRINTABLE = () => (notPrintable ??= /^(?! )[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u);

function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (NOT_PRINTABLE().test(ch)) {
      // Objects/unicodeobject.c unicode_repr: \xhh, \uhhhh or \Uhhhhhhhh, by the code point's size.
      const [prefix, width] = cp <= 0xff ? ['x', 2] : cp <= 0xffff ? ['u', 4] : ['U', 8];
      out += `\\${prefix}${cp.toString(16).padStart(width, '0')}`;
    } else out += ch;
  }
  return out + quote;
}
