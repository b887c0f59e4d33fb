import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Appliance } from '../appliance/appliance.js';
import type { Origin } from '../appliance/session/session.js';
import { liveToken } from '../appliance/session/session-check.js';

/** aiohttp's bare `web.Response()` with a status: no body. */
function bare(res: ServerResponse, status: number): void {
  res.writeHead(status, { 'content-length': 0 });
  res.end();
}

/**
 * The name as it can travel in `filename="…"`: Node refuses control and non-Latin-1 characters
 * in a header, and a quote or backslash would end or escape the quoted string.
 */
const headerSafe = (name: string) => name.replace(/[^\x20-\x7e]|["\\]/g, '_');

/**
 * `/_download/<job id>?auth_token=…` (MW/apps/file_app.py:50-117, any HTTP method): the token
 * core.download issued for that job — single-use, so a second GET is 401, as is an expired one
 * or one for another job; 404 for a job the appliance does not know, 410 for one whose bytes
 * were fetched already or waited too long. Then 200, chunked, the job's output streamed as it
 * is written: the response's backpressure holds the job, so memory stays bounded. A client that
 * stops reading for `idleMs` is cut off.
 */
export function downloadRoute(appliance: Appliance, idleMs: number) {
  return async (req: IncomingMessage, res: ServerResponse, origin: Origin): Promise<boolean> => {
    const url = new URL(req.url ?? '/', 'http://download');
    if (!url.pathname.startsWith('/_download')) return false;
    req.resume();
    const last = url.pathname.split('/').at(-1)!;
    if (!/^\d+$/.test(last)) {
      bare(res, 404);
      return true;
    }
    const jobId = Number(last);
    const value = url.searchParams.get('auth_token');
    const token = value === null ? null : liveToken(appliance, value, origin);
    // `auth.get_token` spends a single-use token on lookup (MW/plugins/auth.py:440-454).
    if (token?.singleUse) token.destroy();
    if (!token || token.attrs.job !== jobId) {
      bare(res, 401);
      return true;
    }
    if (!appliance.jobs.exists(jobId)) {
      bare(res, 404);
      return true;
    }
    const pipe = appliance.downloads.claim(jobId);
    if (!pipe) {
      bare(res, 410);
      return true;
    }
    res.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-disposition': `attachment; filename="${headerSafe(String(token.attrs.filename ?? ''))}"`,
      'transfer-encoding': 'chunked',
    });
    req.socket.setTimeout(idleMs, () => req.socket.destroy());
    res.once('close', () => req.socket.setTimeout(0));
    await pipe.deliver(res).catch(() => res.destroy());
    return true;
  };
}
