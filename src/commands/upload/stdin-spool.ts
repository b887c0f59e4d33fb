import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { stoppedBy } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import type { IO } from '../output/io.js';

/** Standard input kept in a private temporary file, with the bytes counted on the way. */
export interface Spooled {
  path: string;
  size: number;
  remove(): void;
}

/**
 * The upload path sends a Content-Length (and the size check needs a size), which a pipe does
 * not have up front: the bytes go to a file only this user can read, counted as they stream;
 * the count is what the appliance's stat must match afterwards. SIGINT/SIGTERM while it reads
 * stop the reading and remove the file (the transport answers signals once the upload runs).
 * `tmpDir` is the command's own (tmpDirFrom of its IO.env).
 */
export async function spoolStdin(stdin: Readable, onSignal: IO['onSignal'], tmpDir: string): Promise<Spooled> {
  const dir = mkdtempSync(join(tmpDir, 'stor-stdin-'));
  const path = join(dir, 'stdin');
  const remove = () => rmSync(dir, { recursive: true, force: true });
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer | string, _encoding, done) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buf.length;
      done(null, buf);
    },
  });
  let signal: NodeJS.Signals | undefined;
  const unsubscribe = onSignal?.((s) => {
    signal ??= s;
    stdin.destroy(new Error(`interrupted by ${s}`));
  });
  try {
    await pipeline(stdin, counter, createWriteStream(path, { mode: 0o600 }));
    if (signal) throw new Error(`interrupted by ${signal}`);
  } catch (err) {
    remove();
    if (signal)
      throw new StorError(stoppedBy(signal), `interrupted by ${signal} while reading standard input; nothing was sent`);
    throw err;
  } finally {
    unsubscribe?.();
  }
  return { path, size, remove };
}
