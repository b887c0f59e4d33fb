import type { DescribedError } from './describe-error.js';
import type { ChalkInstance } from 'chalk';
import { escapeCell, escapeJson } from './escape.js';
import type { ColorLevel, IO } from './io.js';
import type { FittedColumn } from './table.js';

type FitTable = typeof import('./table.js').fitTable;

export type Scalar = string | number | boolean | null;

/** What a value means to the operator, shown as colour on a terminal that has it. */
export type Tone = 'ok' | 'warning' | 'danger';

/**
 * A value with a person's form beside the data's: `human` is what a terminal shows (1.5 MiB,
 * -rw-r--r-- 0644), `value` what a script gets when piped (1572864, 100644).
 */
export interface Styled {
  value: Scalar;
  human?: string;
  tone?: Tone;
}

export type Cell = Scalar | Styled;

/** A list field flows as wrapped text on a terminal and is comma-joined when piped. */
export type FieldValue = Cell | readonly string[];

/**
 * How a column gives way when the table is wider than the terminal: `wrap` at word boundaries
 * (prose, lists of names: a word is never broken), `truncate` with … at the end, `middle` with …
 * in the middle, `never` (identifiers, status words, numbers, modes: the line grows instead).
 * Columns default to `never` (docs/COMMANDS.md "Output": identifiers are never shortened); numbers align right.
 */
export interface Column {
  header: string;
  overflow?: 'wrap' | 'truncate' | 'middle' | 'never';
  /** Numbers align right by themselves; a column of sizes says so. */
  align?: 'left' | 'right';
  /**
   * An identifier (uid, username, a key's or job's name): a terminal never shortens it, nor leaves
   * it out, so what it names can be typed back; the line may then pass the terminal's width.
   */
  key?: boolean;
  /** Left out on a narrow terminal (rightmost first) before other columns are cut; `--wide` or `--columns` bring it back. */
  minor?: boolean;
}

/**
 * What a command shows a person. Commands build a View from their result; only this module
 * decides how it looks: fitted to the terminal, tab-separated when piped, JSON with `--json`.
 */
export type View =
  | {
      kind: 'record';
      heading?: string;
      fields: [label: string, value: FieldValue][];
      list?: { label: string; items: readonly string[] };
    }
  | { kind: 'table'; columns: (string | Column)[]; rows: Cell[][]; empty?: string }
  | { kind: 'json' }
  /** One part per target of `--targets`, each under its name. */
  | { kind: 'sections'; sections: { heading: string; view: View; data: unknown }[] }
  /** The data is itself text to print as it is (a completion script). */
  | { kind: 'text' };

/** A command's outcome: the `--json` document, how to show it, and its exit code. */
export interface CommandResult<T = unknown> {
  data: T;
  view: View;
  exitCode?: number;
  /**
   * The command's error, when it ends in one after its report (a transfer stopped by SIGINT):
   * run() writes it to stderr after the output, as it writes a thrown one (`{"error":…}` under
   * `--json`). `exitCode` is its code.
   */
  error?: DescribedError;
  /** The command already wrote its output as it went (`serve`): print nothing more. */
  streamed?: boolean;
  /**
   * Under `--json-lines`, a `--targets` run wrote a line per target as each finished
   * (CommandContext.record): the renderer ends with this line, the run's summary, instead of `data`.
   */
  lastLine?: unknown;
}

type RecordView = Extract<View, { kind: 'record' }>;
type TableView = Extract<View, { kind: 'table' }>;

/** The outcome most verbs have: `data` for `--json`, shown as one record of labelled fields. */
export const recordResult = <T>(data: T, view: Omit<RecordView, 'kind'>): CommandResult<T> => ({
  data,
  view: { kind: 'record', ...view },
});

/** The outcome of a listing: `data` for `--json`, shown as a table of `columns`, a row an item. */
export const tableResult = <T>(data: T, view: Omit<TableView, 'kind'>): CommandResult<T> => ({
  data,
  view: { kind: 'table', ...view },
});

export interface RenderMode {
  json: boolean;
  /** `--json-lines`: each document on one line (NDJSON); `json` is true too. */
  jsonLines?: boolean;
  tty: boolean;
  /** Chalk's level for stdout: 0 for no escapes at all. */
  color: ColorLevel;
  /** Terminal columns; no line is longer (but for identifiers that alone are wider: Column.key). */
  width: number;
  /** `--wide`: every column of a table at its full width, none left out or shortened. */
  wide?: boolean;
  /** `--columns`: a table's columns to show, in this order, by header (`full-name` or `"full name"`). */
  columns?: readonly string[];
}

/** The table options of the command line (`--wide`, `--columns a,b`), as RenderMode takes them. */
export interface TableLayout {
  wide?: boolean;
  columns?: string;
}

export const DEFAULT_WIDTH = 80;

/** How output for `stream` looks: stdout for results, stderr for what is shown before a prompt. */
export function renderMode(
  io: IO,
  json: boolean | 'lines',
  stream: 'stdout' | 'stderr' = 'stdout',
  layout: TableLayout = {},
): RenderMode {
  const tty = io[stream].isTTY === true;
  const columns = io[stream].columns;
  return {
    json: json !== false,
    ...(json === 'lines' ? { jsonLines: true } : {}),
    tty,
    color: tty ? io.color[stream] : 0,
    width: columns !== undefined && columns > 0 ? columns : DEFAULT_WIDTH,
    ...(layout.wide ? { wide: true } : {}),
    ...(layout.columns !== undefined
      ? {
          columns: layout.columns
            .split(',')
            .map((c) => c.trim())
            .filter((c) => c !== ''),
        }
      : {}),
  };
}

/** A header as `--columns` names it: lower case, spaces and underscores as `-` (`full name` → `full-name`). */
const columnName = (header: string): string =>
  header
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, '-');

const headerOf = (c: string | Column): string => (typeof c === 'string' ? c : c.header);

/** The names of `--columns` that no table of `view` has: told on stderr (run()), the rest still shown. */
export function unknownColumns(view: View, names: readonly string[]): string[] {
  const known = new Set<string>();
  const collect = (v: View): void => {
    if (v.kind === 'table') for (const c of v.columns) known.add(columnName(headerOf(c)));
    if (v.kind === 'sections') for (const s of v.sections) collect(s.view);
  };
  collect(view);
  return known.size === 0 ? [] : names.filter((n) => !known.has(columnName(n)));
}

/** The headers `--columns` may name in `view`'s tables, for the warning about one it does not have. */
export function columnNames(view: View): string[] {
  if (view.kind === 'table') return view.columns.map((c) => columnName(headerOf(c))).filter((n) => n !== '');
  if (view.kind === 'sections') return [...new Set(view.sections.flatMap((s) => columnNames(s.view)))];
  return [];
}

/**
 * `--columns`: each table keeps the named columns it has, in the order named (a fleet's `target`
 * column stays first). A table that has none of them is left whole.
 */
function selectColumns(view: View, names: readonly string[]): View {
  if (view.kind === 'sections')
    return { ...view, sections: view.sections.map((s) => ({ ...s, view: selectColumns(s.view, names) })) };
  if (view.kind !== 'table') return view;
  const index = new Map(view.columns.map((c, i) => [columnName(headerOf(c)), i]));
  const picked = names.map((n) => index.get(columnName(n))).filter((i): i is number => i !== undefined);
  if (picked.length === 0) return view;
  const target = index.get('target');
  const order = target === 0 && !picked.includes(0) ? [0, ...picked] : picked;
  return {
    ...view,
    columns: order.map((i) => view.columns[i]!),
    rows: view.rows.map((r) => order.map((i) => r[i] ?? null)),
  };
}

/** Shorthands for cells. */
export const toned = (value: Scalar, tone: Tone | undefined): Cell => (tone ? { value, tone } : value);
export const shown = (value: Scalar, human: string, tone?: Tone): Styled => ({
  value,
  human,
  ...(tone ? { tone } : {}),
});

const isStyled = (c: FieldValue): c is Styled => typeof c === 'object' && c !== null && !Array.isArray(c);

function paintTone(paint: ChalkInstance, tone: Tone | undefined, text: string): string {
  switch (tone) {
    case 'danger':
      return paint.red.bold(text);
    case 'warning':
      return paint.yellow(text);
    case 'ok':
      return paint.green(text);
    default:
      return text;
  }
}

function terminalText(v: FieldValue, paint: ChalkInstance): string {
  if (Array.isArray(v)) return v.length === 0 ? '-' : escapeCell(v.join(', '));
  if (isStyled(v)) return paintTone(paint, v.tone, escapeCell(v.human ?? (v.value === null ? '-' : String(v.value))));
  return v === null ? '-' : escapeCell(String(v));
}

// A tab or newline inside a value would break the columns a script splits on.
function pipedText(v: FieldValue): string {
  if (Array.isArray(v)) return escapeCell(v.join(','));
  const raw = isStyled(v) ? v.value : v;
  return raw === null ? '' : escapeCell(String(raw));
}

const isNumeric = (c: Cell): boolean =>
  typeof (isStyled(c) ? c.value : c) === 'number' && !(isStyled(c) && c.human !== undefined);

function terminalTable(
  fitTable: FitTable,
  view: TableView,
  paint: ChalkInstance,
  width: number,
  wide = false,
): string[] {
  if (view.rows.length === 0) return view.empty ? [view.empty] : [];
  const columns: FittedColumn[] = view.columns.map((c, i) => {
    const spec = typeof c === 'string' ? { header: c } : c;
    const cells = view.rows.map((r) => r[i] ?? null).filter((c) => c !== null);
    const numeric = cells.every(isNumeric);
    return {
      header: paint.bold(escapeCell(spec.header.toUpperCase())),
      // Unmarked columns hold identifiers and status words (a target path, `not attempted`,
      // `would-fix`): never shortened; a column gives way only when it says how (wrap, truncate).
      overflow: spec.overflow ?? 'never',
      align: spec.align ?? (numeric ? 'right' : 'left'),
      ...(spec.key ? { key: true } : {}),
      ...(spec.minor ? { minor: true } : {}),
    };
  });
  return fitTable(
    columns,
    view.rows.map((r) => r.map((c) => terminalText(c, paint))),
    width,
    { wide },
  );
}

function terminalRecord(fitTable: FitTable, view: RecordView, paint: ChalkInstance, width: number): string[] {
  const fields: [string, string][] = view.fields.map(([label, value]) => [label, terminalText(value, paint)]);
  // A long list (141 roles) goes last, as a count and the names flowing within the width.
  if (view.list)
    fields.push([view.list.label, `${view.list.items.length}: ${escapeCell(view.list.items.join(', ')) || '-'}`]);
  const labelWidth = Math.min(Math.max(...fields.map(([l]) => l.length + 1)), Math.floor(width / 3));
  const lines = fitTable(
    [
      { header: '', overflow: 'truncate', align: 'left' },
      { header: '', overflow: 'wrap', align: 'left' },
    ],
    fields.map(([label, value]) => [paint.bold(`${escapeCell(label)}:`), value]),
    width,
    { header: false, fixedFirst: labelWidth },
  );
  return view.heading ? [paint.bold(escapeCell(view.heading)), ...lines] : lines;
}

async function renderTerminal(view: View, data: unknown, mode: RenderMode): Promise<string[]> {
  const paint = new (await loadChalk()).Chalk({ level: mode.color });
  switch (view.kind) {
    case 'record':
      return terminalRecord((await loadTable()).fitTable, view, paint, mode.width);
    case 'table':
      return terminalTable((await loadTable()).fitTable, view, paint, mode.width, mode.wide);
    case 'json':
      return [escapeJson(JSON.stringify(data, null, 2))];
    case 'text':
      return [String(data).trimEnd()];
    case 'sections': {
      const parts = await Promise.all(
        view.sections.map(async (s) => [
          paint.bold(`== ${escapeCell(s.heading)} ==`),
          ...(await renderTerminal(s.view, s.data, mode)),
        ]),
      );
      return parts.flatMap((lines, i) => (i === 0 ? lines : ['', ...lines]));
    }
  }
}

function renderPiped(view: View, data: unknown): string[] {
  switch (view.kind) {
    case 'record': {
      const lines = view.fields.map(([label, value]) => `${label}\t${pipedText(value)}`);
      if (view.list) lines.push(`${view.list.label}\t${pipedText(view.list.items)}`);
      return lines;
    }
    case 'table':
      return view.rows.map((r) => r.map(pipedText).join('\t'));
    case 'json':
      return [escapeJson(JSON.stringify(data, null, 2))];
    case 'text':
      return [String(data).trimEnd()];
    case 'sections':
      return view.sections.flatMap((s) => [`== ${escapeCell(s.heading)} ==`, ...renderPiped(s.view, s.data)]);
  }
}

// cli-table3 and string-width load only for a terminal: `--json` and piped runs never pay for them.
const loadTable = () => import('./table.js');
// Loaded for a terminal's rendering only, as the table is: chalk's three modules took ~1 ms of every
// command's start to load (its colour tables, its own colour detection, which stor does not use:
// color-level.ts), and piped or --json output never paints (bench/HISTORY.md, "the embedded
// start-up, eighth round").
const loadChalk = () => import('chalk');

/**
 * One document as one line of `--json-lines` (NDJSON): JSON.stringify breaks no line (a newline
 * in a value is `\n`), and controls are escaped as `--json` escapes them.
 */
export const jsonLine = (doc: unknown): string => `${escapeJson(JSON.stringify(doc))}\n`;

/** The text for stdout (or stderr, for what is shown before a prompt). */
export async function render(result: CommandResult, mode: RenderMode): Promise<string> {
  if (result.streamed) return '';
  // Without --targets, the one document on one line; with it, the lines went out as they came.
  if (mode.jsonLines) return jsonLine(result.lastLine !== undefined ? result.lastLine : result.data);
  if (mode.json) return `${escapeJson(JSON.stringify(result.data, null, 2))}\n`;
  const view = mode.columns ? selectColumns(result.view, mode.columns) : result.view;
  const lines = mode.tty ? await renderTerminal(view, result.data, mode) : renderPiped(view, result.data);
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
