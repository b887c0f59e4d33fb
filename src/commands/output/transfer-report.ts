import type { DescribedError } from './describe-error.js';
import { shown, toned, type Cell, type Column, type Tone, type View } from './render.js';

/** What happened to one file of a multi-file transfer (`stor upload`, `stor download -r`). */
export type TransferOutcome = 'done' | 'skipped' | 'failed' | 'not_attempted';

/** Why a file failed: the error as `--json` shows a command's error (code, kind, message). */
export interface TransferFileError {
  code: string;
  kind: string;
  message: string;
  hint?: string;
  /** The appliance's validation errors, one per line. */
  details?: string[];
}

// After these the other side cannot take (or give) the next file either, or the operator asked
// to stop; cp would stop too.
const STOPS_THE_REST: ReadonlySet<string> = new Set(['auth', 'unreachable', 'interrupted', 'terminated']);

export const stopsTheRest = (d: DescribedError): boolean => STOPS_THE_REST.has(d.kind);

export function fileError(d: DescribedError): TransferFileError {
  return {
    code: d.errorCode,
    kind: d.kind,
    message: d.message,
    ...(d.hint ? { hint: d.hint } : {}),
    ...(d.details ? { details: d.details } : {}),
  };
}

/**
 * For stderr, so that a person whose stdout is redirected still learns that not everything
 * landed: each failed file's reason, then the counts (`done` says what the rest did); one note each.
 */
export function failureNote(
  files: readonly { source: string; error: TransferFileError | null }[],
  summary: { files: number; failed: number; not_attempted: number; skipped?: number },
  done: string,
): string[] {
  const lines = files.filter((f) => f.error).map((f) => `stor: ${f.source}: ${f.error!.message}`);
  const rest = summary.not_attempted > 0 ? `, ${summary.not_attempted} not attempted` : '';
  const skipped = summary.skipped ? `, ${summary.skipped} skipped` : '';
  lines.push(`stor: ${summary.failed} of ${summary.files} files failed${rest}; ${done}${skipped}`);
  return lines;
}

const OUTCOME_TONE: Record<TransferOutcome, Tone> = {
  done: 'ok',
  skipped: 'ok',
  failed: 'danger',
  not_attempted: 'warning',
};

const outcomeCell = (o: TransferOutcome): Cell =>
  o === 'not_attempted' ? shown(o, 'not attempted', OUTCOME_TONE[o]) : toned(o, OUTCOME_TONE[o]);

/**
 * A transfer's table, one row per file: source, target, outcome, the caller's own columns, then
 * the error. On a terminal the error column shows only when something failed, so a clean run keeps
 * its width for paths; piped, the columns never change, for the scripts that split them.
 */
export function transferView<
  F extends { source: string; target: string; outcome: TransferOutcome; error: TransferFileError | null },
>(
  files: readonly F[],
  failed: number,
  tty: boolean,
  own: { columns: (string | Column)[]; cells: (file: F) => Cell[] },
): View {
  const withErrors = failed > 0 || !tty;
  return {
    kind: 'table',
    columns: [
      // Paths are never shortened: one with spaces wraps at them, one without stays whole.
      { header: 'source', overflow: 'wrap' },
      { header: 'target', overflow: 'wrap' },
      'outcome',
      ...own.columns,
      ...(withErrors ? [{ header: 'error', overflow: 'wrap' as const }] : []),
    ],
    rows: files.map((f) => [
      f.source,
      f.target,
      outcomeCell(f.outcome),
      ...own.cells(f),
      ...(withErrors ? [f.error?.message ?? null] : []),
    ]),
  };
}
