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

/** A running appliance job's percent and description, on one terminal line cleared when it ends. */
export class JobProgressLine {
  private shown = false;

  constructor(
    private readonly out: OutputStream,
    private readonly label: string,
  ) {}

  update(progress: { percent: number | null; description: string | null }): void {
    this.shown = true;
    const percent = progress.percent === null ? '' : ` ${String(progress.percent).padStart(3)}%`;
    this.out.write(`\r\x1b[2K${escapeCell(this.label)}${percent} ${escapeCell(progress.description ?? '')}`);
  }

  clear(): void {
    if (this.shown) this.out.write('\r\x1b[2K');
  }
}
