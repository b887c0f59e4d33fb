import { open, type FileHandle } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { stoppedBy } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import { localWriteFailed } from '../shared/local-file.js';

export { localWriteFailed } from '../shared/local-file.js';

/** `dest` is the local file, or `-`: bytes already on stdout cannot be taken back. */
export function interruptedBy(signal: NodeJS.Signals, dest: string): StorError {
  const what =
    dest === '-'
      ? 'the download to stdout stopped part-way'
      : `${dest} was not written, and nothing of it was left behind`;
  return new StorError(stoppedBy(signal), `interrupted by ${signal}; ${what}`);
}

/** A sink into an open file that flushes it to disk (fsync) before it reports finished. */
export function fileSink(handle: FileHandle, path: string): Writable {
  return new Writable({
    highWaterMark: 1024 * 1024,
    write(chunk: Buffer, _encoding, done) {
      void (async () => {
        for (let at = 0; at < chunk.length;) at += (await handle.write(chunk, at)).bytesWritten;
      })().then(
        () => done(),
        (err: unknown) => done(localWriteFailed(path, err)),
      );
    },
    final(done) {
      handle.sync().then(
        () => done(),
        (err: unknown) => done(localWriteFailed(path, err)),
      );
    },
  });
}

/** So that the rename survives a crash too; a file system that cannot sync a directory is left to itself. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r').catch(() => undefined);
  await handle?.sync().catch(() => undefined);
  await handle?.close();
}
