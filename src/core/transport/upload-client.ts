import FormData from 'form-data';
import { close, open, read } from 'node:fs';
import { basename } from 'node:path';
import type { Duplex, Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { Agent, buildConnector } from 'undici';
import { requestOn } from './http-request.js';
import { notAnApplianceAnswer } from '../contract/answer-error.js';
import type { Endpoint } from './endpoint.js';
import { boundedText, MAX_UPLOAD_ANSWER_BYTES } from './bounded-body.js';
import { StorError } from '../errors.js';
import { E } from '../error-catalogue.js';
import { networkError, rateLimited, timedOut } from './network-errors.js';
import type { TlsOptions } from './remote.js';
import { putParams, type UploadRequest } from './transport.js';
import { uploadRefused } from './upload-errors.js';

/*
 * undici parses HTTP with llhttp compiled to WebAssembly, on the first connection. V8 compiles it
 * at once with its baseline compiler (Liftoff) and again, optimised, on background threads; a
 * process waits for that background work before it exits, which held every in-process upload or
 * download for 0.8–1.5 s after its answer was printed on a loaded 2-core machine (bench/HISTORY.md,
 * "Uploads at the wire's speed"). The baseline code parses the few bytes of an upload's answer
 * and a download's headers as well; a body is handed on in spans, not parsed byte by byte. Set
 * here, before undici compiles llhttp, and only in a process that uploads or downloads.
 */
setFlagsFromString('--liftoff-only');

/**
 * Bytes read at a time: 2 MiB halves the reads and writes of 1 MiB and costs about 7% less CPU per
 * GiB (bench/HISTORY.md); RING of them are an upload's memory for the file.
 */
const CHUNK = 2 * 1024 * 1024;
/** Buffers of one upload that go round: read into, sent, and read into again once the socket is done with them. */
const RING = 4;

/**
 * A buffer of a FileChunks ring, lent to the socket: how to give it back. The socket's write
 * callback (Node's contract: called once the chunk is flushed, so nothing reads the buffer after
 * it) returns it; a buffer whose write is never seen (a layer copied it, or wrote it otherwise) is
 * never read into again, and the ring reads into new buffers instead.
 */
const lent = new WeakMap<ArrayBufferLike, () => void>();

type WriteCallback = (err?: Error | null) => void;

/**
 * Every socket of an upload agent tells the FileChunks ring when a chunk of one was written.
 * Writes of anything else pass as they are.
 */
function returnLentBuffers(socket: Duplex): void {
  const write = socket.write.bind(socket) as (chunk: unknown, encoding?: unknown, cb?: WriteCallback) => boolean;
  socket.write = ((chunk: unknown, encoding?: unknown, cb?: WriteCallback): boolean => {
    const backing = chunk instanceof Uint8Array ? chunk.buffer : undefined;
    const giveBack = backing && lent.get(backing);
    if (!giveBack) return write(chunk, encoding, cb);
    lent.delete(backing);
    const done = typeof encoding === 'function' ? (encoding as WriteCallback) : cb;
    return write(chunk, typeof encoding === 'function' ? undefined : encoding, (err) => {
      giveBack();
      done?.(err);
    });
  }) as Duplex['write'];
}

/**
 * A file read in CHUNK-sized pieces into a few buffers used again and again: a new buffer for every
 * piece (fs.ReadStream) costs a garbage collection every few dozen MiB, most of an upload's CPU
 * time (bench/HISTORY.md, "Uploads without a buffer per MiB"). A buffer is read into again only
 * once the socket has written it (returnLentBuffers); until then a new one is taken.
 *
 * An async iterator, not a Readable: undici asks for the next chunk once the socket has taken the
 * last, and it is read then. A stream between the two (its buffer, its read-ahead, its ticks and
 * calls per chunk) cost about 0.04-0.05 s of CPU per GiB, 5% of the client's (bench/HISTORY.md,
 * "upload client CPU per GiB: the file read when the socket asks").
 */
class FileChunks implements AsyncIterable<Buffer> {
  private position = 0;
  private owned = 0;
  private readonly free: Buffer[] = [];
  /** CHUNK, or less for a smaller file: a file of a few KiB does not take two buffers of CHUNK. */
  private readonly length: number;
  /** The reading under way, once asked for: destroy() ends it (its `finally` closes the file). */
  private reading: AsyncGenerator<Buffer> | undefined;
  private destroyed = false;
  /**
   * Set when the file turned out longer or shorter than `size` while it was read (the request's
   * Content-Length is `size`, so the body could only be cut off: undici's "Request aborted", or
   * "Request body length does not match content-length header"), or could not be opened or read
   * (removed since it was planned, EIO): either would be told as a network failure, the appliance
   * "unreachable", though the fault is the local file's.
   */
  failed: StorError | undefined;

  constructor(
    private readonly file: string,
    private readonly size: number,
  ) {
    // One more byte than the file: the read that finds its end needs a buffer too.
    this.length = Math.min(CHUNK, size + 1);
  }

  [Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    if (this.reading || this.destroyed) throw new Error('a FileChunks is read once');
    this.reading = this.chunks();
    return this.reading;
  }

  /**
   * Stops the reading: a reading waiting at a chunk closes the file now; one waiting for a read
   * closes it once that read is back (as fs.ReadStream: a descriptor closed under a read in flight
   * could be another file's by the time the read runs). Never opened: nothing to close.
   */
  destroy(): void {
    this.destroyed = true;
    this.reading?.return(undefined).catch(() => undefined);
  }

  private nextBuffer(): { buf: Buffer; ring: boolean } {
    const again = this.free.pop();
    if (again) return { buf: again, ring: true };
    if (this.owned < RING) {
      this.owned++;
      // A buffer of its own (not a slice of Node's shared pool): it is known by its ArrayBuffer.
      return { buf: Buffer.allocUnsafeSlow(this.length), ring: true };
    }
    return { buf: Buffer.allocUnsafe(this.length), ring: false };
  }

  /** An error of the local file's, kept to be told as what it is (`failed`). */
  private unreadable(err: NodeJS.ErrnoException): StorError {
    this.failed = new StorError(
      E.LOCAL_FILE_UNREADABLE,
      `cannot read the local file ${this.file}: ${err.code ?? err.message}`,
    );
    return this.failed;
  }

  private async *chunks(): AsyncGenerator<Buffer> {
    const fd = await new Promise<number>((resolve, reject) =>
      open(this.file, 'r', (err, fd) => (err ? reject(this.unreadable(err)) : resolve(fd))),
    );
    try {
      while (!this.destroyed) {
        const { buf, ring } = this.nextBuffer();
        // Never more than one byte past the size the request declared: that byte says the file grew.
        const want = Math.min(buf.length, this.size + 1 - this.position);
        const n = await new Promise<number>((resolve, reject) =>
          read(fd, buf, 0, want, this.position, (err, n) => (err ? reject(this.unreadable(err)) : resolve(n))),
        );
        if (this.position + n > this.size || (n === 0 && this.position < this.size)) {
          if (ring) this.free.push(buf);
          this.failed =
            this.size === 0
              ? new StorError(E.SIZE_MISMATCH, `${this.file} had 0 bytes when the upload began and has content now`, {
                  hint:
                    'a file of /proc or /sys says 0 bytes whatever it holds: upload it from standard input ' +
                    `(cat ${this.file} | stor upload - DEST); a file being written: upload it once nothing writes to it any more`,
                })
              : new StorError(
                  E.SIZE_MISMATCH,
                  `${this.file} changed size while it was read: it had ${this.size} bytes when the upload began, ` +
                    (n === 0 ? `and ended after ${this.position}` : 'and has more now'),
                  { hint: 'upload it once nothing writes to it any more' },
                );
          throw this.failed;
        }
        if (n === 0) {
          if (ring) this.free.push(buf);
          return;
        }
        this.position += n;
        if (ring) lent.set(buf.buffer, () => this.free.push(buf));
        yield n === buf.length ? buf : buf.subarray(0, n);
      }
    } finally {
      await new Promise<void>((resolve) => close(fd, () => resolve()));
    }
  }
}

/** How a connection the server closed while the body was still being sent fails. */
const BROKEN = new Set(['EPIPE', 'ECONNRESET', 'UND_ERR_SOCKET']);

/**
 * The server gave up on the upload while it was under way: the appliance cuts uploads on which
 * nothing moved for a while, so this is a timeout (exit 3), not a refusal of the file.
 */
function uploadCut(where: string, sent: number, body = ''): StorError {
  const why = body ? `: ${body}` : '';
  return new StorError(E.TIMEOUT, `${where} cut the upload off after ${sent} bytes were sent${why}`, {
    hint: 'the appliance ends uploads on which no bytes arrive for a while: check the link to it and try again',
  });
}

/** The operator stopped the upload (UploadRequest.signal): the POST was cut off. */
function stoppedUpload(signal: AbortSignal, path: string, sent: number, size: number): StorError {
  const name = signal.reason === 'SIGTERM' ? 'SIGTERM' : 'SIGINT';
  return new StorError(
    name === 'SIGTERM' ? E.TERMINATED : E.INTERRUPTED,
    `interrupted by ${name}; the upload to ${path} was cut off after ${sent} of ${size} bytes`,
  );
}

/** One agent per remote session: TLS settings as for the JSON-RPC connection. */
export function uploadAgent(tls: TlsOptions, timeoutSeconds: number): Agent {
  // What undici's Client builds from these options itself, with each socket watched for the
  // FileChunks buffers it writes.
  const connector = buildConnector({
    rejectUnauthorized: !tls.insecure,
    ...(tls.ca ? { ca: tls.ca } : {}),
    timeout: timeoutSeconds * 1000,
  });
  return new Agent({
    connect: (options, callback) =>
      connector(options, (err, socket) => {
        if (socket) returnLentBuffers(socket);
        callback(err, socket as never);
      }),
  });
}

/**
 * The envelope of a multipart/form-data body of two parts, the `data` field (JSON) and the file:
 * what goes before the file's bytes and after them. form-data writes it (its part headers, boundary
 * and filename escaping), over an empty file; the file's own chunks then go from the FileChunks
 * ring to undici as they are, not through form-data's CombinedStream and DelayedStream, which cost
 * CPU per chunk (bench/HISTORY.md, "Upload client CPU per GiB").
 */
export function multipartFraming(data: string, filename: string): { head: Buffer; tail: Buffer; contentType: string } {
  const form = new FormData();
  form.append('data', data, { contentType: 'application/json' });
  form.append('file', Buffer.alloc(0), { filename, contentType: 'application/octet-stream' });
  const whole = form.getBuffer();
  // After each part's value form-data writes a line break, and after the last part the closing
  // boundary (form_data.js _lastBoundary): with the file empty and last, those two end the body.
  const tail = Buffer.from(`\r\n--${form.getBoundary()}--\r\n`);
  if (!whole.subarray(whole.length - tail.length).equals(tail))
    throw new Error('form-data did not close the body as expected');
  return {
    head: whole.subarray(0, whole.length - tail.length),
    tail,
    contentType: form.getHeaders()['content-type'] as string,
  };
}

/**
 * `POST {base}/_upload/` with `authorization` (`Bearer <key>` or `Token <token>`, MW/restful.py:30-71):
 * a `data` part naming `filesystem.put`, then the file, streamed from disk with its length known.
 * Returns the job id.
 */
export async function postUpload(
  endpoint: Endpoint,
  authorization: string,
  agent: Agent,
  req: UploadRequest,
  timeoutSeconds: number,
): Promise<number> {
  if (req.signal?.aborted) throw stoppedUpload(req.signal, req.path, 0, req.size);
  const file = new FileChunks(req.file, req.size);
  let sent = 0;
  let lastActivity = Date.now();
  const { head, tail, contentType } = multipartFraming(
    JSON.stringify({ method: 'filesystem.put', params: putParams(req) }),
    basename(req.file),
  );
  const length = head.length + req.size + tail.length;
  // An empty file is read too, for the byte that says it is not empty after all: a file of /proc
  // or /sys says 0 bytes and has content, which the embedded appliance copies and then refuses as
  // a size that differs; sent as empty, its content was lost without a word.
  // Progress is counted as undici takes the file's chunks from this iterator, i.e. as they go to
  // the socket (not as they are read ahead into the stream's buffer).
  async function* parts(): AsyncGenerator<Buffer> {
    yield head;
    for await (const chunk of file) {
      sent += chunk.length;
      lastActivity = Date.now();
      req.onProgress?.(sent);
      yield chunk;
    }
    yield tail;
  }
  // A large file takes as long as it takes; what must not happen is a stall. Give up when
  // nothing has moved for --timeout seconds.
  const abort = new AbortController();
  const watchdog = setInterval(() => {
    if (Date.now() - lastActivity > timeoutSeconds * 1000) abort.abort();
  }, 250);
  watchdog.unref();
  const startedAt = performance.now();
  try {
    let res;
    try {
      res = await requestOn(agent, new URL('_upload/', endpoint.base), {
        method: 'POST',
        headers: { 'content-type': contentType, 'content-length': String(length), authorization },
        // undici takes an async iterable body (its client-h1 writeIterable); request()'s types name
        // only a Readable among streams.
        body: parts() as unknown as Readable,
        signal: req.signal ? AbortSignal.any([abort.signal, req.signal]) : abort.signal,
        headersTimeout: 0,
        bodyTimeout: timeoutSeconds * 1000,
      });
    } catch (err) {
      file.destroy();
      if (file.failed) throw file.failed;
      if (req.signal?.aborted) throw stoppedUpload(req.signal, req.path, sent, req.size);
      if (abort.signal.aborted) throw timedOut(endpoint.display, `the upload (nothing moved)`, timeoutSeconds);
      const code = (err as { code?: string }).code ?? '';
      if (BROKEN.has(code)) throw await cutOff(endpoint, agent, err, startedAt, sent, req.size);
      throw networkError(err, endpoint.display, startedAt);
    }
    const answer = await boundedText(res.body, MAX_UPLOAD_ANSWER_BYTES);
    const body = answer.text.trim();
    if (res.statusCode === 408) throw uploadCut(endpoint.display, sent, body);
    if (res.statusCode !== 200) throw uploadRefused(endpoint.display, res.statusCode, body);
    if (answer.cut)
      throw notAnApplianceAnswer(
        'filesystem.put',
        `${endpoint.display} took the upload but answered more than ${MAX_UPLOAD_ANSWER_BYTES} bytes, not a job id`,
      );
    let jobId: unknown;
    try {
      jobId = (JSON.parse(body) as { job_id?: unknown } | null)?.job_id;
    } catch {
      jobId = undefined;
    }
    if (typeof jobId !== 'number') {
      throw notAnApplianceAnswer(
        'filesystem.put',
        `${endpoint.display} took the upload but answered no job id: ${JSON.stringify(body.slice(0, 200))}`,
      );
    }
    return jobId;
  } finally {
    clearInterval(watchdog);
  }
}

/**
 * A server that refuses an upload may answer before it has read the body and drop the
 * connection (a rate limiter does); whether its answer is read before the write fails is a race.
 * One bodiless, credential-free request asks again: a 429 to it is reported as what it is.
 * Otherwise the break is told as it happened: when, and how far the upload got.
 */
async function cutOff(
  endpoint: Endpoint,
  agent: Agent,
  err: unknown,
  startedAt: number,
  sent: number,
  size: number,
): Promise<StorError> {
  try {
    const probe = await requestOn(agent, new URL('_upload/', endpoint.base), {
      method: 'POST',
      headers: { 'content-length': '0' },
      headersTimeout: 5000,
      bodyTimeout: 5000,
    });
    const body = (await boundedText(probe.body, MAX_UPLOAD_ANSWER_BYTES)).text.trim();
    if (probe.statusCode === 429) return rateLimited(endpoint.display, 'uploads', body);
  } catch {
    // No answer to the probe either: the break itself is the news.
  }
  const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
  return new StorError(
    E.CONNECTION_CLOSED,
    `${endpoint.display} closed the connection during the upload, after ${seconds} s and ${sent} of ${size} bytes, without an answer`,
    {
      hint: 'the appliance may be refusing large or frequent uploads, or restarting; try again later',
      cause: err,
    },
  );
}
