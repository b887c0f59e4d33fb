import type { IncomingMessage, ServerResponse } from 'node:http';

/** nginx's defaults (`lingering_time`, `lingering_timeout`); the appliance's nginx.conf sets neither. */
export const LINGER_TOTAL_MS = 30_000;
export const LINGER_IDLE_MS = 5_000;

/**
 * Marks `res` as the connection's last answer (`Connection: close`) and closes the connection the
 * way the appliance's front, nginx, does after answering a request whose body it has not read (a
 * refused upload, a body over the limit): "lingering close". It stops sending, then reads and
 * discards what the client still sends, until the client has sent its whole request, pauses
 * `LINGER_IDLE_MS` or `LINGER_TOTAL_MS` have passed, and only then closes. Node instead destroys the
 * socket as soon as a `Connection: close` answer is written (net.Socket.destroySoon, called by the
 * HTTP server once the answer finishes): the client, still writing its body, meets a reset
 * (`write EPIPE`) and never reads the answer. Call before the answer is written.
 */
export function lingerAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  if (!res.headersSent) res.setHeader('connection', 'close');
  const socket = req.socket;
  // The bytes still coming are read (and dropped) from here on, not only once the answer is out.
  req.resume();
  let closing = false;
  socket.destroySoon = function lingeringClose(this: typeof socket) {
    if (closing) return;
    closing = true;
    this.end();
    if (req.complete || this.readableEnded || this.destroyed) {
      this.destroy();
      return;
    }
    const close = () => {
      clearTimeout(total);
      clearTimeout(idle);
      this.destroy();
    };
    const total = setTimeout(close, LINGER_TOTAL_MS);
    let idle = setTimeout(close, LINGER_IDLE_MS);
    total.unref();
    idle.unref();
    req.on('data', () => {
      clearTimeout(idle);
      idle = setTimeout(close, LINGER_IDLE_MS);
      idle.unref();
    });
    req.once('end', close);
    this.once('end', close);
    this.once('close', close);
  };
}
