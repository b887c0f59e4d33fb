import FormData from 'form-data';
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setFlagsFromString } from 'node:v8';
import { Agent, request } from 'undici';
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

const CHUNK = 1024 * 1024;
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
  return new Agent({
    connect: { rejectUnauthorized: !tls.insecure, ...(tls.ca ? { ca: tls.ca } : {}), timeout: timeoutSeconds * 1000 },
  });
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
  const file = createReadStream(req.file, { highWaterMark: CHUNK });
  // Progress is counted on a stream of its own: a 'data' listener on the file would set it
  // flowing before the form reads it, and the form would buffer what arrives early.
  const counted = new PassThrough({ highWaterMark: CHUNK });
  let sent = 0;
  let lastActivity = Date.now();
  counted.on('data', (chunk: Buffer) => {
    sent += chunk.length;
    lastActivity = Date.now();
    req.onProgress?.(sent);
  });
  counted.pause();
  pipeline(file, counted).catch(() => undefined);
  const form = new FormData();
  form.append('data', JSON.stringify({ method: 'filesystem.put', params: putParams(req) }), {
    contentType: 'application/json',
  });
  // form-data reads a knownLength of 0 as "not known" and then cannot tell the body's length:
  // an empty file goes as an empty buffer, and the whole (small) body as one buffer.
  const empty = req.size === 0;
  if (empty) file.destroy();
  form.append('file', empty ? Buffer.alloc(0) : counted, {
    filename: basename(req.file),
    contentType: 'application/octet-stream',
    knownLength: req.size,
  });
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
      res = await request(new URL('_upload/', endpoint.base), {
        method: 'POST',
        dispatcher: agent,
        headers: { ...form.getHeaders(), 'content-length': String(form.getLengthSync()), authorization },
        body: empty ? form.getBuffer() : form,
        signal: req.signal ? AbortSignal.any([abort.signal, req.signal]) : abort.signal,
        headersTimeout: 0,
        bodyTimeout: timeoutSeconds * 1000,
      });
    } catch (err) {
      file.destroy();
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
    const probe = await request(new URL('_upload/', endpoint.base), {
      method: 'POST',
      dispatcher: agent,
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
