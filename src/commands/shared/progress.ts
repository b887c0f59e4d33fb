import { escapeCell } from './escape.js';
import { formatBytes } from './format.js';
import type { OutputStream } from './io.js';

/** A one-line progress bar on a terminal, redrawn at most ten times a second. */
export class ProgressBar {
  private last = 0;
  private readonly started = Date.now();

  constructor(
    private readonly out: OutputStream,
    private readonly label: string,
    private readonly total: number,
  ) {}

  update(done: number, force = false): void {
    const now = Date.now();
    if (!force && now - this.last < 100) return;
    this.last = now;
    const width = 24;
    const ratio = this.total > 0 ? Math.min(done / this.total, 1) : 1;
    const filled = Math.round(ratio * width);
    const rate = done / Math.max((now - this.started) / 1000, 0.001);
    this.out.write(
      `\r\x1b[2K${escapeCell(this.label)} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${String(Math.round(ratio * 100)).padStart(3)}% ` +
        `${formatBytes(done)}/${formatBytes(this.total)} ${formatBytes(rate)}/s`,
    );
  }

  finish(): void {
    this.update(this.total, true);
    this.out.write('\n');
  }

  clear(): void {
    this.out.write('\r\x1b[2K');
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
    const line = `${escapeCell(this.label)} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${percent === null ? '  ?' : String(Math.round(percent)).padStart(3)}%${description ? ` ${escapeCell(description)}` : ''}`;
    // Redrawn only when it changes: a job is polled far more often than it moves.
    if (line === this.shown) return;
    this.shown = line;
    this.out.write(`\r\x1b[2K${line}`);
  }

  clear(): void {
    if (this.shown !== '') this.out.write('\r\x1b[2K');
  }
}
