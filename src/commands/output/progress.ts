import stringWidth from 'string-width';
import { escapeCell } from './escape.js';
import { formatBytes } from './format.js';
import type { OutputStream } from './io.js';
import { DEFAULT_WIDTH } from './render.js';
import { shortenMiddle } from './table.js';

const BAR = 20;
function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '--:--';
  const s = Math.max(0, Math.round(seconds));
  const two = (n: number) => String(n).padStart(2, '0');
  return s >= 3600
    ? `${Math.floor(s / 3600)}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`
    : `${two(Math.floor(s / 60))}:${two(s % 60)}`;
}

/**
 * One progress line on a terminal's stderr, redrawn in place at most ten times a second and never
 * longer than the terminal: `[2/3] name  [####    ]  40%  1.0 MiB/2.5 MiB  3.1 MiB/s  ETA 00:02`,
 * with the total of all files when there are several. Each finished file keeps its line.
 */
export class ProgressBar {
  private last = 0;
  private readonly started = Date.now();
  private index = 0;
  private label = '';
  private size = 0;
  private doneBefore = 0;

  constructor(
    private readonly out: OutputStream,
    private readonly totals: { files: number; bytes: number },
  ) {}

  /** The next file begins. */
  start(label: string, size: number): void {
    this.index++;
    this.label = escapeCell(label);
    this.size = size;
    this.last = 0;
  }

  update(done: number, force = false): void {
    const now = Date.now();
    if (!force && now - this.last < 100) return;
    this.last = now;
    this.out.write(`\r\x1b[2K${this.line(done, now)}`);
  }

  /** The current file is done: its line stays. */
  finish(): void {
    this.update(this.size, true);
    this.doneBefore += this.size;
    this.out.write('\n');
  }

  clear(): void {
    this.out.write('\r\x1b[2K');
  }

  private line(done: number, now: number): string {
    // One column short of the width: a line that fills the last column wraps on some terminals.
    const width = (this.out.columns !== undefined && this.out.columns > 0 ? this.out.columns : DEFAULT_WIDTH) - 1;
    const several = this.totals.files > 1;
    const ratio = this.size > 0 ? Math.min(done / this.size, 1) : 1;
    const sent = this.doneBefore + done;
    const rate = sent / Math.max((now - this.started) / 1000, 0.001);
    const left = (several ? this.totals.bytes : this.size) - (several ? sent : done);
    // In the order shown, each with its rank: on a narrow terminal the least needed go first.
    const stats: [text: string, rank: number][] = [
      [`${String(Math.round(ratio * 100)).padStart(3)}%`, 0],
      [`${formatBytes(done)}/${formatBytes(this.size)}`, several ? 4 : 1],
      ...(several ? [[`total ${formatBytes(sent)}/${formatBytes(this.totals.bytes)}`, 3] as [string, number]] : []),
      [`${formatBytes(rate)}/s`, 2],
      [`ETA ${duration(left > 0 ? left / rate : 0)}`, 1],
    ];
    const prefix = several ? `[${this.index}/${this.totals.files}] ` : '';
    // What gives way on a narrow terminal: the bar, then the label, then the least needed figures.
    for (let maxRank = 4; maxRank >= 0; maxRank--) {
      const tail = stats
        .filter(([, rank]) => rank <= maxRank)
        .map(([text]) => text)
        .join('  ');
      for (const bar of [BAR, 0]) {
        const barText = bar > 0 ? `[${'#'.repeat(Math.round(ratio * bar)).padEnd(bar)}]  ` : '';
        const room = width - stringWidth(prefix) - 2 - stringWidth(barText) - stringWidth(tail);
        if (room >= Math.min(12, stringWidth(this.label)))
          return `${prefix}${shortenMiddle(this.label, room)}  ${barText}${tail}`;
      }
    }
    return shortenMiddle(`${prefix}${this.label}`, width);
  }
}

/** A one-line bar on a terminal for work the appliance measures in percent (a job). */
export class PercentBar {
  private shown = '';

  constructor(
    private readonly out: OutputStream,
    private readonly label: string,
  ) {}

  update(percent: number | null, description: string | null): void {
    const width = 24;
    const ratio = Math.min(Math.max((percent ?? 0) / 100, 0), 1);
    const filled = Math.round(ratio * width);
    const full = `${escapeCell(this.label)} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${percent === null ? '  ?' : String(Math.round(percent)).padStart(3)}%${description ? ` ${escapeCell(description)}` : ''}`;
    const columns = (this.out.columns !== undefined && this.out.columns > 0 ? this.out.columns : DEFAULT_WIDTH) - 1;
    const line = stringWidth(full) > columns ? shortenMiddle(full, columns) : full;
    // Redrawn only when it changes: a job is polled far more often than it moves.
    if (line === this.shown) return;
    this.shown = line;
    this.out.write(`\r\x1b[2K${line}`);
  }

  clear(): void {
    if (this.shown !== '') this.out.write('\r\x1b[2K');
  }
}

/**
 * One line for a transfer of many files at once (per-file bars would interleave): files finished of
 * n, bytes, rate and the time left at that rate, fitted to the terminal like the bar above.
 */
export class TotalProgress {
  private last = 0;
  private readonly started = Date.now();
  private filesDone = 0;
  private filesFailed = 0;
  private bytesDone = 0;
  /** Bytes of the transfers under way, by index, so a finished file is not counted twice. */
  private readonly current = new Map<number, number>();

  constructor(
    private readonly out: OutputStream,
    private readonly verb: string,
    private readonly files: number,
    private readonly bytes: number,
  ) {}

  progress(index: number, bytes: number): void {
    this.current.set(index, bytes);
    this.draw(false);
  }

  /** A file that landed (sent, or skipped as already there): `bytes` are what it adds to the total. */
  fileDone(index: number, bytes: number): void {
    this.current.delete(index);
    this.filesDone += 1;
    this.bytesDone += bytes;
    this.draw(false);
  }

  /**
   * A file that failed or was cut off by a signal: not counted among those done, so the line
   * says what the report says (`uploaded 0/3` when the report has 0 of 3 uploaded).
   */
  fileFailed(index: number): void {
    this.current.delete(index);
    this.filesFailed += 1;
    this.draw(false);
  }

  /** The last line, ended; `stopped` (`stopped by SIGINT`) stands where the time left would. */
  finish(stopped?: string): void {
    this.draw(true, stopped);
    this.out.write('\n');
  }

  private draw(force: boolean, stopped?: string): void {
    const now = Date.now();
    if (!force && now - this.last < 100) return;
    this.last = now;
    let bytes = this.bytesDone;
    for (const b of this.current.values()) bytes += b;
    const rate = bytes / Math.max((now - this.started) / 1000, 0.001);
    const left = rate > 0 && this.bytes > bytes ? (this.bytes - bytes) / rate : 0;
    const width = (this.out.columns !== undefined && this.out.columns > 0 ? this.out.columns : DEFAULT_WIDTH) - 1;
    const failed = this.filesFailed > 0 ? ` (${this.filesFailed} failed)` : '';
    const line = `${this.verb} ${this.filesDone}/${this.files} files${failed}  ${formatBytes(bytes)}/${formatBytes(this.bytes)}  ${formatBytes(rate)}/s  ${stopped ?? `ETA ${duration(left)}`}`;
    this.out.write(`\r\x1b[2K${stringWidth(line) > width ? shortenMiddle(line, width) : line}`);
  }
}
