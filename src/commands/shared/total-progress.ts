import { formatBytes } from './format.js';
import type { OutputStream } from './io.js';

/**
 * One line on a terminal for a transfer of many files: files finished of n, bytes, rate and the
 * time left at that rate. Redrawn at most ten times a second; per-file bars would interleave.
 */
export class TotalProgress {
  private last = 0;
  private readonly started = Date.now();
  private filesDone = 0;
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

  /** A file finished (sent, skipped or failed): `bytes` are what it contributes to the total. */
  fileDone(index: number, bytes: number): void {
    this.current.delete(index);
    this.filesDone += 1;
    this.bytesDone += bytes;
    this.draw(false);
  }

  finish(): void {
    this.draw(true);
    this.out.write('\n');
  }

  private draw(force: boolean): void {
    const now = Date.now();
    if (!force && now - this.last < 100) return;
    this.last = now;
    let bytes = this.bytesDone;
    for (const b of this.current.values()) bytes += b;
    const seconds = Math.max((now - this.started) / 1000, 0.001);
    const rate = bytes / seconds;
    const left = rate > 0 && this.bytes > bytes ? Math.round((this.bytes - bytes) / rate) : 0;
    const eta = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
    this.out.write(
      `\r\x1b[2K${this.verb} ${this.filesDone}/${this.files} files, ${formatBytes(bytes)}/${formatBytes(this.bytes)}, ${formatBytes(rate)}/s, ETA ${eta}`,
    );
  }
}
