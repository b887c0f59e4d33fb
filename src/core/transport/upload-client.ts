import FormData from 'form-data';
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { Agent, request } from 'undici';
import type { Endpoint } from './endpoint.js';
import { networkError } from './network-errors.js';
import type { TlsOptions } from './remote.js';
import { putParams, type UploadRequest } from './transport.js';
import { uploadRefused } from './upload-errors.js';

const CHUNK = 1024 * 1024;

/** One agent per remote session: TLS settings as for the JSON-RPC connection. */
export function uploadAgent(tls: TlsOptions): Agent {
  return new Agent({ connect: { rejectUnauthorized: !tls.insecure, ...(tls.ca ? { ca: tls.ca } : {}) } });
}

/**
 * `POST {base}/_upload/` with the key as a bearer credential: a `data` part naming
 * `filesystem.put`, then the file, streamed from disk with its length known. Returns the job id.
 */
export async function postUpload(endpoint: Endpoint, apiKey: string, agent: Agent, req: UploadRequest, timeoutSeconds: number): Promise<number> {
  const file = createReadStream(req.file, { highWaterMark: CHUNK });
  let sent = 0;
  if (req.onProgress) {
    file.on('data', (chunk) => {
      sent += chunk.length;
      req.onProgress!(sent);
    });
  }
  const form = new FormData();
  form.append('data', JSON.stringify({ method: 'filesystem.put', params: putParams(req) }), { contentType: 'application/json' });
  form.append('file', file, { filename: basename(req.file), contentType: 'application/octet-stream', knownLength: req.size });
  let res;
  try {
    res = await request(new URL('_upload/', endpoint.base), {
      method: 'POST',
      dispatcher: agent,
      headers: { ...form.getHeaders(), 'content-length': String(form.getLengthSync()), authorization: `Bearer ${apiKey}` },
      body: form,
      // The server answers once every byte arrived; a large file may take long, so no body timer.
      headersTimeout: 0,
      bodyTimeout: timeoutSeconds * 1000,
    });
  } catch (err) {
    file.destroy();
    throw networkError(err, endpoint.display, timeoutSeconds);
  }
  const body = (await res.body.text()).trim();
  if (res.statusCode !== 200) throw uploadRefused(endpoint.display, res.statusCode, body);
  const parsed = JSON.parse(body) as { job_id?: unknown };
  if (typeof parsed.job_id !== 'number') throw uploadRefused(endpoint.display, res.statusCode, body);
  return parsed.job_id;
}
