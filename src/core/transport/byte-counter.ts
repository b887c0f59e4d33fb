import { Transform } from 'node:stream';

const CHUNK = 1024 * 1024;

/** At most `bytes` may pass; the chunk that would carry more is held back and `exceeded()` ends the stream. */
export interface ByteLimit {
  bytes: number;
  exceeded: () => Error;
}

/**
 * A pass-through that counts the bytes on their way into the sink. With a `limit`, not one byte
 * past it reaches the sink: a peer that sends more than it announced is stopped there, so a
 * hostile answer cannot fill the disk or the terminal.
 */
export function byteCounter(onProgress?: (bytes: number) => void, limit?: ByteLimit): Transform & { bytes: number } {
  const counter = new Transform({
    readableHighWaterMark: CHUNK,
    writableHighWaterMark: CHUNK,
    transform(chunk: Buffer, _encoding, done) {
      if (limit && counter.bytes + chunk.length > limit.bytes) return done(limit.exceeded());
      counter.bytes += chunk.length;
      onProgress?.(counter.bytes);
      done(null, chunk);
    },
  }) as Transform & { bytes: number };
  counter.bytes = 0;
  return counter;
}
