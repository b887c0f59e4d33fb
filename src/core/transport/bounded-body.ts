import type { Dispatcher } from 'undici';

/** The largest answer stor reads: the WebSocket transport's frame limit (remote.ts), for `--rpc http` alike. */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;
/** The largest answer to an upload read: its job id, or a refusal's text. */
export const MAX_UPLOAD_ANSWER_BYTES = 64 * 1024;

/** An HTTP answer's text, read up to a bound: `cut` when there was more (the rest is never read). */
export interface BoundedText {
  text: string;
  cut: boolean;
}

/**
 * At most `maxBytes` of an answer's body, as text. undici's `body.text()` reads without end: a
 * server (or whatever answers at its address) that keeps sending would grow stor's memory until
 * the process died, and `bodyTimeout` counts only silence. Past the bound the body is destroyed.
 */
export async function boundedText(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<BoundedText> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size + chunk.length > maxBytes) {
      chunks.push(chunk.subarray(0, maxBytes - size));
      body.destroy();
      return { text: Buffer.concat(chunks).toString('utf8'), cut: true };
    }
    size += chunk.length;
    chunks.push(chunk);
  }
  return { text: Buffer.concat(chunks).toString('utf8'), cut: false };
}
