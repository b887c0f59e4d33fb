import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterPendingIo } from './idle-timer.js';

/**
 * A request body read before any credential is checked must arrive within a deadline: without
 * one, anyone could hold sockets for ever by sending headers and then nothing, or a
 * byte now and then (the upload's idle timeout counts each byte as progress). An upload lifts it
 * once its `data` part is in (what follows waits for the credential check, and is not read before
 * it passes); a body read whole before its check (POST /api/current) keeps it to its end.
 * The appliance has no such total: its nginx front cuts only a body idle for 60 s (the default
 * `client_body_timeout`; MW/etc_files/local/nginx/nginx.conf.mako:392-400 sets none). This one is
 * stor's own, for strangers only.
 */
const lifts = new WeakMap<IncomingMessage, () => void>();

/** Arms the deadline for `req`: past `ms` with its body unread, it is answered 408 and its socket destroyed. */
export function armBodyDeadline(req: IncomingMessage, res: ServerResponse, ms: number): void {
  let lifted = false;
  const expire = () => {
    // A body that came in time, read late because this process was stalled, is not refused.
    if (lifted || req.complete) return;
    // Answered already by a route that never read the body (GET /api/versions, a 404, a 405):
    // Node still drains it to keep the connection alive, and a trickle would hold the socket.
    if (res.writableFinished) {
      req.socket.destroy();
      return;
    }
    if (!res.headersSent) {
      res.writeHead(408, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
      res.end(`408: the request body did not arrive within ${ms / 1000} s\n`);
    }
    res.once('finish', () => req.socket.destroy());
    // A peer that does not read the answer must not hold the socket either.
    setTimeout(() => req.socket.destroy(), 1000).unref();
  };
  const timer = setTimeout(() => afterPendingIo(expire), ms);
  timer.unref();
  const lift = () => {
    lifted = true;
    clearTimeout(timer);
  };
  lifts.set(req, lift);
  req.once('end', lift);
  // An answer that went out before the body came lifts nothing: the body is still read after it.
  res.once('close', () => {
    if (req.complete) lift();
  });
}

/** What must come before the credential check has come: the rest of the body is the route's to bound. */
export function liftBodyDeadline(req: IncomingMessage): void {
  lifts.get(req)?.();
}
