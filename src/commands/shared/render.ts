import { Chalk, type ChalkInstance } from 'chalk';
import { escapeCell, escapeControls, escapeJson } from './escape.js';
import type { IO } from './io.js';

export type Scalar = string | number | boolean | null;

/**
 * What a command shows a person. Commands build a View from their result; only this module
 * decides how it looks: aligned on a terminal, tab-separated when piped, JSON with `--json`.
 */
export type View =
  | { kind: 'record'; heading?: string; fields: [label: string, value: Scalar | readonly string[]][] ; list?: { label: string; items: readonly string[] } }
  | { kind: 'table'; columns: string[]; rows: Scalar[][]; empty?: string }
  | { kind: 'json' }
  | { kind: 'lines'; lines: string[] };

/** A command's outcome: the `--json` document, how to show it, and its exit code. */
export interface CommandResult<T = unknown> {
  data: T;
  view: View;
  exitCode?: number;
  /** The command already wrote its output as it went (`serve`): print nothing more. */
  streamed?: boolean;
}

export interface RenderMode {
  json: boolean;
  tty: boolean;
  /** Colour only on a terminal, and never with NO_COLOR set (no-color.org). */
  color: boolean;
}

export function renderMode(io: IO, json: boolean): RenderMode {
  const tty = io.stdout.isTTY === true;
  return { json, tty, color: tty && !io.env.NO_COLOR };
}

const cell = (v: Scalar | readonly string[]): string => {
  if (v === null) return '-';
  return escapeCell(Array.isArray(v) ? v.join(', ') : String(v));
};

// A tab or newline inside a value would break the columns a script splits on.
const tsvCell = (v: Scalar | readonly string[]): string => escapeCell(v === null ? '' : Array.isArray(v) ? v.join(',') : String(v));

function pad(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((row) => row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd());
}

function renderTerminal(view: View, data: unknown, paint: ChalkInstance): string[] {
  switch (view.kind) {
    case 'record': {
      const lines = view.heading ? [paint.bold(escapeControls(view.heading))] : [];
      const labelWidth = Math.max(...view.fields.map(([label]) => label.length + 1));
      lines.push(...view.fields.map(([label, value]) => `${paint.bold(`${label}:`.padEnd(labelWidth))}  ${cell(value)}`));
      if (view.list) {
        lines.push(`${view.list.label}:`);
        lines.push(...view.list.items.map((i) => `  ${escapeCell(i)}`));
      }
      return lines;
    }
    case 'table':
      if (view.rows.length === 0) return view.empty ? [view.empty] : [];
      const [header, ...rows] = pad([view.columns.map((c) => c.toUpperCase()), ...view.rows.map((r) => r.map(cell))]);
      return [paint.bold(header!), ...rows];
    case 'json':
      return [escapeJson(JSON.stringify(data, null, 2))];
    case 'lines':
      return view.lines.map(escapeControls);
  }
}

function renderPiped(view: View, data: unknown): string[] {
  switch (view.kind) {
    case 'record': {
      const lines = view.fields.map(([label, value]) => `${label}\t${tsvCell(value)}`);
      if (view.list) lines.push(`${view.list.label}\t${tsvCell(view.list.items)}`);
      return lines;
    }
    case 'table':
      return view.rows.map((r) => r.map(tsvCell).join('\t'));
    case 'json':
      return [escapeJson(JSON.stringify(data, null, 2))];
    case 'lines':
      return view.lines.map(escapeControls);
  }
}

/** The text for stdout. */
export function render(result: CommandResult, mode: RenderMode): string {
  if (result.streamed) return '';
  if (mode.json) return `${escapeJson(JSON.stringify(result.data, null, 2))}\n`;
  const lines = mode.tty ? renderTerminal(result.view, result.data, new Chalk({ level: mode.color ? 1 : 0 })) : renderPiped(result.view, result.data);
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
