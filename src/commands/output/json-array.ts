import { escapeJson } from './escape.js';
import type { OutputStream } from './io.js';

/**
 * A `--json` array written element by element, in list order, as soon as each element and every
 * one before it are known: the bytes are those `render` writes for the whole array at the end
 * (`JSON.stringify(array, null, 2)`, escaped, a newline), so a reader of the finished output
 * sees no difference, and one reading as it comes has the first targets' answers while a slow
 * target is still out. Each element is stringified as the one element of an array, which
 * indents it exactly as the whole array's stringify would.
 */
export class JsonArrayWriter {
  private readonly known = new Map<number, unknown>();
  private next = 0;

  constructor(
    private readonly out: OutputStream,
    private readonly length: number,
  ) {}

  /** Element `index` is known: it goes out with those after it already known, once all before it have. */
  set(index: number, element: unknown): void {
    this.known.set(index, element);
    let text = '';
    for (; this.known.has(this.next); this.next++) {
      // Stringified inside an array of one, so that JSON.stringify itself indents the element as
      // the whole array's would ("[\n  " … "\n]" cut off): no second pass over its text to indent
      // each line (an undefined element is `null` in an array, as in the whole array's stringify).
      const json = JSON.stringify([this.known.get(this.next)], null, 2).slice(2, -2);
      this.known.delete(this.next);
      text += `${this.next === 0 ? '[\n' : ',\n'}${json}`;
    }
    if (this.next === this.length && text !== '') text += '\n]\n';
    if (text !== '') this.out.write(escapeJson(text));
  }
}
