import { escapeJson } from './escape.js';
import type { OutputStream } from './io.js';

/**
 * A `--json` array written element by element, in list order, as soon as each element and every
 * one before it are known: the bytes are those `render` writes for the whole array at the end
 * (`JSON.stringify(array, null, 2)`, escaped, a newline), so a reader of the finished output
 * sees no difference, and one reading as it comes has the first targets' answers while a slow
 * target is still out. JSON.stringify breaks no line inside a value, so indenting each of an
 * element's lines by two spaces nests it exactly as the whole array's stringify would.
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
      const json = JSON.stringify(this.known.get(this.next), null, 2) ?? 'null';
      this.known.delete(this.next);
      text += `${this.next === 0 ? '[\n' : ',\n'}  ${json.replaceAll('\n', '\n  ')}`;
    }
    if (this.next === this.length && text !== '') text += '\n]\n';
    if (text !== '') this.out.write(escapeJson(text));
  }
}
