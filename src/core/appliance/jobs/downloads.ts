import { createReadStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** What the HTTP side writes the bytes to; an HTTP response in `stor serve`, any sink in-process. */
export type PipeReader = Writable;

/**
 * A download job's output pipe (MW/pipe.py). Unbuffered, the job waits for the GET and streams
 * into it, so a file of any size passes through with bounded memory. Buffered, the job spools to
 * a file in the state directory (the appliance buffers to ramfs) and ends; the GET streams that.
 */
export class OutputPipe {
  private giveReader!: (reader: PipeReader | null) => void;
  private readonly reader = new Promise<PipeReader | null>((resolve) => (this.giveReader = resolve));
  private writerDone!: () => void;
  private readonly written = new Promise<void>((resolve) => (this.writerDone = resolve));
  /** The buffered job's spool file, once written. */
  spool: string | null = null;

  constructor(readonly buffered: boolean) {}

  /** The job's side: where to write, once someone reads; null when the pipe was closed unread. */
  readerOrClosed(): Promise<PipeReader | null> {
    return this.reader;
  }

  /** The job ended (however): its end of the pipe closes, as `Job.__close_pipes` does. */
  writerClosed(): void {
    this.giveReader(null);
    this.writerDone();
  }

  /**
   * The reading side: streams everything the job writes into `out` and ends it. A job that ended
   * without writing (it failed) gives an empty body, as on the appliance.
   */
  async deliver(out: PipeReader): Promise<void> {
    if (!this.buffered) {
      this.giveReader(out);
      await this.written;
      if (!out.writableEnded) out.end();
      return;
    }
    await this.written;
    const spool = this.spool;
    if (spool === null) {
      out.end();
      return;
    }
    try {
      await pipeline(createReadStream(spool, { highWaterMark: 1024 * 1024 }), out);
    } finally {
      this.spool = null;
      await unlink(spool).catch(() => undefined);
    }
  }

  /** Nobody came in time: the writer's next write fails, a spool is removed. */
  async close(): Promise<void> {
    this.giveReader(null);
    const spool = this.spool;
    this.spool = null;
    if (spool !== null) await unlink(spool).catch(() => undefined);
  }
}

/**
 * Download jobs waiting for their GET (`FileApplication.jobs`, MW/apps/file_app.py:22-48): a job
 * is registered when core.download starts it and claimed by the first GET; one not claimed in
 * time (60 s, or 3600 s when buffered) has its pipe closed and answers 410 from then on.
 */
export class Downloads {
  /** How long a download waits for its GET; tests shorten it. */
  windowMs = { unbuffered: 60_000, buffered: 3_600_000 };
  private readonly waiting = new Map<number, { pipe: OutputPipe; timer: NodeJS.Timeout }>();

  register(jobId: number, pipe: OutputPipe): void {
    const timer = setTimeout(
      () => {
        this.waiting.delete(jobId);
        void pipe.close();
      },
      pipe.buffered ? this.windowMs.buffered : this.windowMs.unbuffered,
    );
    timer.unref();
    this.waiting.set(jobId, { pipe, timer });
  }

  /** The job's pipe, taken by this reader; null when it was taken already or its time ran out. */
  claim(jobId: number): OutputPipe | null {
    const entry = this.waiting.get(jobId);
    if (!entry) return null;
    this.waiting.delete(jobId);
    clearTimeout(entry.timer);
    return entry.pipe;
  }

  /** Closes every pipe still waiting (the appliance shuts down). */
  async closeAll(): Promise<void> {
    const entries = [...this.waiting.values()];
    this.waiting.clear();
    for (const { pipe, timer } of entries) {
      clearTimeout(timer);
      await pipe.close();
    }
  }
}
