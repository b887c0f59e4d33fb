import { Transform } from 'node:stream';

const CHUNK = 1024 * 1024;

/** A pass-through that counts the bytes on their way into the sink. */
export function byteCounter(onProgress?: (bytes: number) => void): Transform & { bytes: number } {
  const counter = new Transform({
    readableHighWaterMark: CHUNK,
    writableHighWaterMark: CHUNK,
    transform(chunk: Buffer, _encoding, done) {
      counter.bytes += chunk.length;
      onProgress?.(counter.bytes);
      done(null, chunk);
    },
  }) as Transform & { bytes: number };
  counter.bytes = 0;
  return counter;
}
