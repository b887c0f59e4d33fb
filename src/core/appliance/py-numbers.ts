import { randomBytes } from 'node:crypto';

/**
 * Numbers whose JSON text Python writes differently from JavaScript: a float with an integral value
 * (Python's `json.dumps(1.0)` is `1.0`, JavaScript's `JSON.stringify(1)` is `1`) and an integer past
 * 2^53 (a ZFS guid, which a JavaScript number cannot hold exactly). A handler sets such a member with
 * `setPyNumber`: the member holds the nearest JavaScript number (what filters and in-process callers
 * read) and the text is registered beside it; it marks its answer with `withPyNumbers`, and the
 * server writes that answer's JSON with the registered texts in place of the numbers
 * (rpc/codec.ts `encodeResponse`). Answers not marked are written by JSON.stringify as before.
 */
const texts = new WeakMap<object, Map<string, string>>();
const carriers = new WeakSet<object>();

/** `holder[key] = value`, written in JSON as `text`. */
export function setPyNumber(holder: object, key: string, value: number, text: string): void {
  (holder as Record<string, unknown>)[key] = value;
  let members = texts.get(holder);
  if (!members) texts.set(holder, (members = new Map()));
  members.set(key, text);
}

/** Marks an answer that holds members set with setPyNumber; returns it. */
export function withPyNumbers<T>(answer: T): T {
  if (typeof answer === 'object' && answer !== null) carriers.add(answer);
  return answer;
}

export const carriesPyNumbers = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && carriers.has(value);

/** Python's `repr(float)`, which its json writes: `1.0`, `1.5`, `1e+16`, `1.5e-05`. */
export function pyFloatText(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  const abs = Math.abs(v);
  // Python's repr switches to an exponent below 1e-4 and from 1e16, with at least two digits in it.
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e16)) {
    const [mantissa, exponent] = v.toExponential().split('e') as [string, string];
    return `${mantissa}e${exponent[0]}${exponent.slice(1).padStart(2, '0')}`;
  }
  const text = Object.is(v, -0) ? '-0' : String(v);
  return text.includes('.') ? text : `${text}.0`;
}

// A per-process marker no text a client sends can guess, so no string can be taken for a number.
// Made at the first answer that needs it: every process that dispatches a call loads this module
// (rpc/codec.ts), and node:crypto is some fifty of Node's modules a command need not load.
let marker: { mark: string; marked: RegExp } | undefined;
function pyMarker(): { mark: string; marked: RegExp } {
  if (marker) return marker;
  const mark = `@pynum-${randomBytes(16).toString('hex')}@`;
  return (marker = { mark, marked: new RegExp(`"${mark}([^"]*)${mark}"`, 'g') });
}

/** JSON.stringify(value) with the registered texts in place of their numbers. */
export function pyJsonStringify(value: unknown): string {
  const { mark, marked } = pyMarker();
  const text = JSON.stringify(value, function (this: object, key: string, member: unknown) {
    if (typeof member !== 'number') return member;
    const registered = texts.get(this)?.get(key);
    return registered === undefined ? member : `${mark}${registered}${mark}`;
  });
  return text.replace(marked, '$1');
}

/** Gives `to`, a reordered copy of `from` (rpc/model-order.ts), `from`'s number texts and mark. */
export function carryPyNumbers(from: object, to: object): void {
  const members = texts.get(from);
  if (members) texts.set(to, members);
  if (carriers.has(from)) carriers.add(to);
}
