import Table from 'cli-table3';
import stringWidth from 'string-width';

export interface FittedColumn {
  /** Already styled; empty with `header: false`. */
  header: string;
  /** `middle`: shortened in the middle, for paths whose both ends tell. */
  overflow: 'wrap' | 'truncate' | 'middle' | 'never';
  align: 'left' | 'right';
}

const segmenter = new Intl.Segmenter();

/** `text` in at most `max` display columns, the middle replaced by … (both ends of a file name tell). */
export function shortenMiddle(text: string, max: number): string {
  if (stringWidth(text) <= max) return text;
  if (max <= 1) return max === 1 ? '…' : '';
  const graphemes = Array.from(segmenter.segment(text), (s) => s.segment);
  let head = '';
  let tail = '';
  let room = max - 1;
  for (let i = 0, j = graphemes.length - 1; i <= j; ) {
    // Alternate ends, head first, while the next grapheme still fits.
    const takeHead = stringWidth(head) <= stringWidth(tail);
    const g = takeHead ? graphemes[i]! : graphemes[j]!;
    const w = stringWidth(g);
    if (w > room) break;
    room -= w;
    if (takeHead) {
      head += g;
      i++;
    } else {
      tail = g + tail;
      j--;
    }
  }
  return `${head}…${tail}`;
}

const GAP = 2;
const BORDERLESS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '',
  middle: ' '.repeat(GAP),
};

// Below these a column stops giving way to the others: a wrapped list needs room for a word.
const MIN_WRAP = 12;
const MIN_TRUNCATE = 8;

/**
 * Column widths that fit `width`: the natural widths when they fit; else the widest columns that
 * may wrap or truncate give way first, and columns of numbers only when nothing else can.
 */
export function fitWidths(natural: number[], columns: readonly Pick<FittedColumn, 'overflow'>[], width: number): number[] {
  const widths = [...natural];
  const budget = Math.max(width - GAP * (widths.length - 1), widths.length);
  const floor = (i: number, lastResort: boolean): number => {
    if (lastResort) return 1;
    const o = columns[i]!.overflow;
    return o === 'never' ? natural[i]! : Math.min(natural[i]!, o === 'wrap' ? MIN_WRAP : MIN_TRUNCATE);
  };
  for (const lastResort of [false, true]) {
    let excess = widths.reduce((a, b) => a + b, 0) - budget;
    while (excess > 0) {
      let widest = -1;
      widths.forEach((w, i) => {
        if (w > floor(i, lastResort) && (widest < 0 || w > widths[widest]!)) widest = i;
      });
      if (widest < 0) break;
      widths[widest]!--;
      excess--;
    }
  }
  return widths;
}

/**
 * A borderless table through cli-table3, measured in display columns (CJK and emoji are two),
 * no line longer than `width`. `fixedFirst` pins the first column (a record's labels).
 */
export function fitTable(
  columns: readonly FittedColumn[],
  rows: readonly string[][],
  width: number,
  options: { header?: boolean; fixedFirst?: number } = {},
): string[] {
  const header = options.header ?? true;
  const all = header ? [columns.map((c) => c.header), ...rows] : rows;
  const natural = columns.map((_, i) => Math.max(1, ...all.map((r) => stringWidth(r[i] ?? ''))));
  if (options.fixedFirst !== undefined) natural[0] = options.fixedFirst;
  const specs = options.fixedFirst !== undefined ? columns.map((c, i) => (i === 0 ? { ...c, overflow: 'never' as const } : c)) : columns;
  const colWidths = fitWidths(natural, specs, width);
  const table = new Table({
    chars: BORDERLESS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
    colWidths,
    ...(header ? { head: columns.map((c) => c.header) } : {}),
  });
  for (const row of rows) {
    table.push(
      columns.map((c, i) => ({
        content: c.overflow === 'middle' && !(row[i] ?? '').includes('\x1b') ? shortenMiddle(row[i] ?? '', colWidths[i]!) : (row[i] ?? ''),
        hAlign: c.align,
        ...(c.overflow === 'wrap' ? { wordWrap: true, wrapOnWordBoundary: true } : {}),
      })),
    );
  }
  return table
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l, i, a) => l !== '' || (i > 0 && i < a.length - 1));
}
