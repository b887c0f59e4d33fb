import Table from 'cli-table3';
import stringWidth from 'string-width';

export interface FittedColumn {
  /** Already styled; empty with `header: false`. */
  header: string;
  /** `middle`: shortened in the middle, for paths whose both ends tell. */
  overflow: 'wrap' | 'truncate' | 'middle' | 'never';
  align: 'left' | 'right';
  /** An identifier (a name, an id): never shortened and never dropped, whatever the width. */
  key?: boolean;
  /** May be left out when the table cannot fit at its columns' least widths; the rightmost goes first. */
  minor?: boolean;
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
  for (let i = 0, j = graphemes.length - 1; i <= j;) {
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
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: ' '.repeat(GAP),
};

// Below these a column stops giving way to the others: a wrapped list needs room for a word.
const MIN_WRAP = 12;
const MIN_TRUNCATE = 8;

/**
 * How narrow a column may become without cutting anything: its full width, or for a column that
 * wraps, its longest word (and room for a few words).
 */
function uncutWidth(natural: number, longestWord: number, column: Pick<FittedColumn, 'overflow'>): number {
  return column.overflow === 'wrap' ? Math.min(natural, Math.max(MIN_WRAP, longestWord)) : natural;
}

/**
 * The columns to show: all of them when they fit `width` uncut (uncutWidth); else minor columns
 * are left out, the rightmost first, until the rest fit uncut or no minor column is left.
 */
export function shownColumns(
  natural: readonly number[],
  longestWord: readonly number[],
  columns: readonly Pick<FittedColumn, 'overflow' | 'minor'>[],
  width: number,
): number[] {
  const shown = columns.map((_, i) => i);
  const least = () =>
    shown.reduce((sum, i) => sum + uncutWidth(natural[i]!, longestWord[i]!, columns[i]!), 0) + GAP * (shown.length - 1);
  while (least() > width) {
    const minor = shown.findLastIndex((i) => columns[i]!.minor === true);
    if (minor < 0) break;
    shown.splice(minor, 1);
  }
  return shown;
}

/**
 * Column widths that fit `width`: the natural widths when they fit; else the widest columns that
 * may wrap or truncate give way first, and columns of numbers only when nothing else can.
 */
export function fitWidths(
  natural: number[],
  columns: readonly Pick<FittedColumn, 'overflow' | 'key'>[],
  width: number,
  longestWord: readonly number[] = [],
): number[] {
  const widths = [...natural];
  const budget = Math.max(width - GAP * (widths.length - 1), widths.length);
  // Only free text gives way. An identifier or a status word (`key`, `never`) keeps its width even
  // as a last resort: the line is then longer than the terminal (as kubectl's), never a name cut
  // to something that names nothing. A wrapped column keeps room for a few words until nothing
  // else can give way, and for its longest word always: a group name in a wrapped list is never
  // broken either. Only a column marked `truncate` or `middle` is shortened with ….
  const floor = (i: number, lastResort: boolean): number => {
    const o = columns[i]!.overflow;
    if (columns[i]!.key || o === 'never') return natural[i]!;
    if (o === 'wrap')
      return lastResort
        ? Math.min(natural[i]!, longestWord[i] ?? 0)
        : uncutWidth(natural[i]!, longestWord[i] ?? 0, columns[i]!);
    return lastResort ? 1 : Math.min(natural[i]!, MIN_TRUNCATE);
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
  allColumns: readonly FittedColumn[],
  allRows: readonly string[][],
  width: number,
  options: { header?: boolean; fixedFirst?: number; wide?: boolean } = {},
): string[] {
  const header = options.header ?? true;
  const measure = (columns: readonly FittedColumn[], rows: readonly string[][]) => {
    const all = header ? [columns.map((c) => c.header), ...rows] : rows;
    const natural = columns.map((_, i) => Math.max(1, ...all.map((r) => stringWidth(r[i] ?? ''))));
    if (options.fixedFirst !== undefined) natural[0] = options.fixedFirst;
    return natural;
  };
  // Headers count: a header word is never broken either (HEALTH over a column of `ok`).
  const words = (columns: readonly FittedColumn[], rows: readonly string[][]) => {
    const all = header ? [columns.map((c) => c.header), ...rows] : rows;
    return columns.map((_, i) =>
      Math.max(0, ...all.flatMap((r) => (r[i] ?? '').split(/\s+/).map((w) => stringWidth(w)))),
    );
  };
  // `wide`: every column at its full width, whatever the terminal's.
  const kept = options.wide
    ? allColumns.map((_, i) => i)
    : shownColumns(measure(allColumns, allRows), words(allColumns, allRows), allColumns, width);
  const columns = kept.map((i) => allColumns[i]!);
  const rows = allRows.map((r) => kept.map((i) => r[i] ?? ''));
  const natural = measure(columns, rows);
  const specs =
    options.fixedFirst !== undefined
      ? columns.map((c, i) => (i === 0 ? { ...c, overflow: 'never' as const } : c))
      : columns;
  const colWidths = options.wide ? natural : fitWidths(natural, specs, width, words(columns, rows));
  const table = new Table({
    chars: BORDERLESS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
    colWidths,
  });
  // The header goes in as a first row (the table is borderless): cli-table3 wraps no `head` cell,
  // and a wrapped column's header must wrap as its cells do rather than be cut.
  if (header)
    table.push(
      columns.map((c) => ({
        content: c.header,
        ...(c.overflow === 'wrap' ? { wordWrap: true, wrapOnWordBoundary: true } : {}),
      })),
    );
  for (const row of rows) {
    table.push(
      columns.map((c, i) => ({
        content:
          c.overflow === 'middle' && !(row[i] ?? '').includes('\x1b')
            ? shortenMiddle(row[i] ?? '', colWidths[i]!)
            : (row[i] ?? ''),
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
