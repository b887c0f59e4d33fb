import busboy from 'busboy';
import { pythonJsonLoads } from '../rpc/python-json.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough, Readable } from 'node:stream';
import type { Appliance } from '../appliance/appliance.js';
import type { Origin } from '../appliance/session/session.js';
import {
  AIOHTTP_500,
  authorizeUpload,
  UploadRefused,
  type UploadCall,
  type UploadStarter,
} from '../appliance/jobs/upload.js';
import { authenticateUpload } from './upload-credentials.js';
import { sendText } from './http-rpc.js';
import { liftBodyDeadline } from './body-deadline.js';
import { idleTimer } from './idle-timer.js';
import { lingerAfterAnswer } from './lingering-close.js';
import type { RateLimiter } from '../appliance/session/rate-limit.js';

const MAX_FILES = 5;
const DATA_LIMIT = 64 * 1024;
const CHUNK = 1024 * 1024;
/**
 * Python's decoder gives up near its recursion limit (1000); deeper `data` would also be too deep
 * to copy into the job's record (structuredClone overflows the stack), which breaks core.get_jobs.
 */
const MAX_DATA_DEPTH = 1000;

/** The container kind (`array` or `object`) at which `text` nests deeper than `limit`, if it does. */
function tooDeep(text: string, limit: number): 'array' | 'object' | null {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return c === 0x5b ? 'array' : 'object';
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return null;
}

function parseData(text: string): UploadCall {
  const deep = tooDeep(text, MAX_DATA_DEPTH);
  if (deep)
    throw new UploadRefused(
      400,
      `maximum recursion depth exceeded while decoding a JSON ${deep} from a unicode string`,
    );
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // `json.loads(await part.read())` (MW/apps/file_app.py:134-137): Python's words; bytes lose a leading BOM.
    try {
      value = pythonJsonLoads(text.replace(/^\ufeff/, ''));
    } catch (err) {
      throw new UploadRefused(400, (err as Error).message);
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new UploadRefused(400, 'the "data" part must be a JSON object');
  const { method, params } = value as { method?: unknown; params?: unknown };
  if (method === undefined) throw new UploadRefused(422, '');
  if (typeof method !== 'string') throw new UploadRefused(412, '[EBADMSG] Invalid method name');
  return { method, params: Array.isArray(params) ? params : params === undefined ? [] : [params] };
}

/** Reads a small part whole; more than `limit` bytes is refused. */
async function readSmall(stream: Readable, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      stream.resume();
      throw new UploadRefused(400, `the "data" part is larger than ${limit} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * An upload has no total time limit, only this one: when the client's bytes stop for `idleMs`
 * (while the server was ready to read them), `onStall` answers, and the socket is destroyed
 * once the answer is out. A pause the server imposes (the job writing) is not the client's stall,
 * nor is one of the server's own process: bytes that arrived meanwhile are read before judging
 * (idleTimer). The appliance's nginx cuts likewise: its `/_upload` location sets no
 * `client_body_timeout` (MW/etc_files/local/nginx/nginx.conf.mako:392-405), so the default 60 s
 * between two successive reads of the body applies.
 */
function stallCutoff(req: IncomingMessage, res: ServerResponse, idleMs: number, onStall: () => void): void {
  const idle = idleTimer(
    idleMs,
    () => {
      if (req.complete || res.writableEnded) return;
      onStall();
      res.once('finish', () => req.socket.destroy());
      setTimeout(() => req.socket.destroy(), 1000).unref();
    },
    () => req.readableFlowing === false,
  );
  req.on('data', idle.touch);
  req.once('end', idle.stop);
  req.once('close', idle.stop);
}

/**
 * `POST /_upload/`: a streaming multipart parser in front of `filesystem.put` (MW/apps/file_app.py:118-240).
 * Part order and every refusal follow the appliance: `data` first (JSON: method, params), then
 * `file`; credentials are checked after `data` and before any byte of `file` is read. The file
 * streams straight into the job; the job commits the target only if the whole request arrived.
 */
export function uploadRoute(appliance: Appliance, limiter: RateLimiter, idleMs: number, log?: (line: string) => void) {
  return (req: IncomingMessage, res: ServerResponse, origin: Origin): boolean => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path !== '/_upload' && !path.startsWith('/_upload/')) return false;
    // Any method reaches the handler (`add_route('*', '/_upload{path_info:.*}')`, MW/main.py:1439);
    // what is no multipart body fails in `request.multipart()`, outside any try: aiohttp's 500.

    let answered = false;
    const answer = (status: number, body: string, type?: string) => {
      // Already answered by the body deadline (armBodyDeadline), whose socket is going.
      if (answered || res.headersSent) return;
      answered = true;
      // A refusal comes before the body is read (after the `data` part): the client may still be
      // sending its file, which is read and dropped until it is done, as nginx does.
      if (status !== 200) lingerAfterAnswer(req, res);
      sendText(res, status, body, type);
    };

    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        highWaterMark: CHUNK,
        fileHwm: CHUNK,
        limits: { fieldSize: DATA_LIMIT, fields: 20, files: 20 },
      });
    } catch {
      answer(500, AIOHTTP_500);
      return true;
    }

    let resolveCommit!: () => void;
    let rejectCommit!: (err: Error) => void;
    const commit = new Promise<void>((resolve, reject) => {
      resolveCommit = resolve;
      rejectCommit = reject;
    });
    commit.catch(() => undefined);
    let parts = 0;
    let files = 0;
    let starter: UploadStarter | undefined;
    let jobId: number | undefined;

    const refuse = (err: unknown) => {
      rejectCommit(err instanceof Error ? err : new Error(String(err)));
      if (err instanceof UploadRefused) answer(err.status, err.body);
      else answer(500, err instanceof Error ? err.message : String(err));
    };

    // Parts are handled one after another, in order: a `data` part sent as a file (as some
    // clients do) is read to the end before the `file` part is looked at.
    let queue: Promise<void> = Promise.resolve();
    const enqueue = (step: () => Promise<void> | void, stream: Readable | null = null) => {
      queue = queue.then(step).catch((err: unknown) => {
        stream?.resume();
        refuse(err);
      });
    };

    const onPart = (name: string, kind: 'field' | 'file', value: string | null, stream: Readable | null) => {
      const index = ++parts;
      enqueue(async () => {
        if (answered) {
          stream?.resume();
          return;
        }
        if (index === 1) {
          if (name !== 'data') throw new UploadRefused(405, '"data" part must be the first on payload');
          const text = kind === 'field' ? (value ?? '') : await readSmall(stream!, DATA_LIMIT);
          const call = parseData(text);
          // The part read before any credential has come whole: the check that follows is the
          // server's time, not the client's, and no byte of the file is read before it passes.
          // From here only the idle timeout (stallCutoff) bounds the body.
          liftBodyDeadline(req);
          starter = authorizeUpload(
            appliance,
            await authenticateUpload(appliance, limiter, req, origin, call.method, log),
            call,
          );
          return;
        }
        if (name !== 'file')
          throw new UploadRefused(
            405,
            index === 2 ? '"file" not found as second part on payload' : `Unknown payload part '${name}'`,
          );
        files++;
        if (files > MAX_FILES) throw new UploadRefused(405, 'Too many uploaded files');
        if (files > 1) {
          stream?.resume(); // filesystem.put reads the first file only
          return;
        }
        // The job reads a stream of its own: when it stops early (a full disk) its pipeline destroys
        // that stream, and busboy's must then keep flowing to the end of the request, or the parser
        // stalls and the request is never answered.
        let source: Readable;
        if (stream) {
          const own = new PassThrough({ highWaterMark: CHUNK });
          own.on('error', () => undefined); // heard by the job's pipeline once attached
          stream.on('error', (err) => own.destroy(err));
          stream.pipe(own);
          own.on('close', () => {
            if (stream.readableEnded) return;
            stream.unpipe(own);
            stream.resume();
          });
          source = own;
        } else {
          source = Readable.from([Buffer.from(value ?? '')]);
        }
        // If the request breaks, stop the job's read at once rather than leave it waiting.
        commit.catch((err: Error) => source.destroy(err));
        jobId = starter!(source, commit).jobId;
      }, stream);
    };

    bb.on('field', (name, value, info) => {
      if (info.valueTruncated) {
        parts++;
        refuse(new UploadRefused(400, `the "${name}" part is larger than ${DATA_LIMIT} bytes`));
        return;
      }
      onPart(name, 'field', value, null);
    });
    bb.on('file', (name, stream) => {
      // busboy destroys the current file stream with an error when the request breaks or is
      // refused; the job learns of it through its pipeline and `commit`. Until the job attaches
      // its pipeline (after a few awaits), and for skipped extra parts, nothing else listens, and
      // an unheard 'error' event would bring the whole server down.
      stream.on('error', () => undefined);
      onPart(name, 'file', null, stream);
    });
    bb.on('close', () =>
      enqueue(() => {
        if (answered) return;
        if (parts === 0) throw new UploadRefused(405, 'No part found on payload');
        if (jobId === undefined) throw new UploadRefused(405, '"file" not found as second part on payload');
        resolveCommit();
        answer(200, JSON.stringify({ job_id: jobId }), 'application/json');
      }),
    );
    // In order with the parts: a body that breaks while its credentials are still being checked
    // (the hash runs off the main thread) fails the job that check starts, as it would a moment later.
    bb.on('error', (err: Error) =>
      enqueue(() => {
        rejectCommit(err); // the job fails with the parser's own words
        // Before any part, aiohttp's reader fails to find the first boundary outside any try: its 500.
        if (parts === 0) throw new UploadRefused(500, AIOHTTP_500);
        throw new UploadRefused(400, `malformed multipart body: ${err.message}`);
      }),
    );
    // A client that goes away mid-upload: nothing may be committed.
    req.on('aborted', () => rejectCommit(new Error('the upload was interrupted')));
    req.on('close', () => {
      if (!req.complete) rejectCommit(new Error('the upload was interrupted'));
    });
    req.pipe(bb);
    stallCutoff(req, res, idleMs, () => {
      rejectCommit(new Error('the upload stalled'));
      answer(408, `408: the upload stalled: no bytes for ${idleMs / 1000} s`);
    });
    return true;
  };
}
