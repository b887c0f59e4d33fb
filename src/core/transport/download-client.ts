import type { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Agent } from 'undici';
import { requestOn } from './http-request.js';
import { E } from '../error-catalogue.js';
import { StorError } from '../errors.js';
import type { Endpoint } from './endpoint.js';
import { networkError, timedOut } from './network-errors.js';

/** What the `/_download/` statuses mean (MW/apps/file_app.py:50-95). */
const REFUSALS: Record<number, string> = {
  401: 'its download token was refused (expired, spent, or for another job)',
  404: 'the appliance does not know the job',
  410: 'the download was fetched already or waited too long to be fetched',
};

/**
 * Where the GET of core.download's answer goes. 25.10.1 answers a path on the appliance itself,
 * `/_download/<job>?auth_token=…` (MW/service/core_service.py:530); one that resolves to another
 * origin (scheme, host or port: an absolute URL, `//host/…`, `\\host/…`) is no appliance's
 * answer, and fetching it would hand the token to whoever that is. Refused, never fetched.
 */
export function downloadUrl(endpoint: Endpoint, path: string, jobId: number): URL {
  const resolve = (relative: string): URL | undefined => {
    try {
      return new URL(relative, endpoint.base);
    } catch {
      return undefined;
    }
  };
  // Relative to the base, so an appliance served below a path prefix keeps it. Both the path as
  // given and the URL fetched must be on the appliance's origin: `/http://elsewhere/…` is on it
  // as given, and elsewhere once its leading slash is dropped.
  const fetched = resolve(path.replace(/^\/+/, ''));
  if (resolve(path)?.origin !== endpoint.base.origin || fetched?.origin !== endpoint.base.origin) {
    throw new StorError(
      E.MALFORMED_ANSWER,
      `not a valid appliance answer: core.download gave job ${jobId} a download URL on another origin than ${endpoint.display}; not fetched`,
      {
        hint: 'check that the URL names a 25.10.1 appliance',
      },
    );
  }
  return fetched;
}

/**
 * GET of the `/_download/<job>?auth_token=…` path core.download answered, streamed through
 * `counter` into `sink` (which it ends): a download's fetch over the network (download-flow.ts).
 * Only the job id travels into messages: the URL carries the token, which is a credential.
 */
export async function getDownload(
  endpoint: Endpoint,
  agent: Agent,
  path: string,
  jobId: number,
  counter: Transform,
  sink: Writable,
  timeoutSeconds: number,
): Promise<void> {
  const url = downloadUrl(endpoint, path, jobId);
  const startedAt = performance.now();
  let res;
  try {
    res = await requestOn(agent, url, {
      method: 'GET',
      headersTimeout: timeoutSeconds * 1000,
      bodyTimeout: timeoutSeconds * 1000,
    });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'UND_ERR_HEADERS_TIMEOUT')
      throw timedOut(endpoint.display, `the download of job ${jobId}`, timeoutSeconds);
    throw networkError(err, endpoint.display, startedAt);
  }
  if (res.statusCode !== 200) {
    await res.body.dump();
    throw new StorError(
      E.DOWNLOAD_REFUSED,
      `${endpoint.display} refused the download of job ${jobId} (HTTP ${res.statusCode}: ${REFUSALS[res.statusCode] ?? 'unexpected status'})`,
      {
        hint: 'start the download again; a download URL serves one GET, within a minute of being issued',
      },
    );
  }
  try {
    await pipeline(res.body, counter, sink);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'UND_ERR_BODY_TIMEOUT')
      throw timedOut(endpoint.display, `the rest of the download of job ${jobId} (nothing moved)`, timeoutSeconds);
    if (code?.startsWith('UND_ERR') || code === 'ECONNRESET') throw networkError(err, endpoint.display, startedAt);
    throw err;
  }
}
