import { eastAsianWidth } from 'get-east-asian-width';

// Made at first use: V8 builds a \p{…} class's sets when the literal is evaluated, and most
// commands never measure a column (bench/HISTORY.md, "the embedded start-up, eighth round").
let zeroWidth: RegExp | undefined;
const ZERO_WIDTH = () => (zeroWidth ??= /[\p{Mn}\p{Me}\p{Cf}]/u);

/**
 * How many terminal columns `text` takes: an East Asian wide or fullwidth character two, a
 * combining mark or format character none, the rest one (Unicode TR11; ambiguous ones narrow, as
 * TR11 advises where the context is unknown). Control characters are escaped before text gets here.
 */
export function columnsOf(text: string): number {
  let columns = 0;
  for (const char of text) {
    if (ZERO_WIDTH().test(char)) continue;
    columns += eastAsianWidth(char.codePointAt(0)!, { ambiguousAsWide: false });
  }
  return columns;
}
