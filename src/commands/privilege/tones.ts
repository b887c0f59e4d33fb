import { toned, type Cell } from '../output/render.js';
import type { FindingReport } from './model.js';

/** Health as one cell: LOCKOUT in danger, redundancy as a warning, `ok` as ok. */
export function healthCell(labels: readonly string[], locksOut: boolean): Cell {
  const text = [...labels, ...(locksOut ? ['LOCKOUT'] : [])].join(', ');
  return toned(text, locksOut ? 'danger' : labels.some((l) => l !== 'ok') ? 'warning' : 'ok');
}

/** A finding as one line: where it is, what it does, what fixes it. */
export function findingCell(f: FindingReport): Cell {
  return toned(`[${f.index}] ${f.effect}. Fix: ${f.remedy}`, f.locks_out ? 'danger' : 'warning');
}
