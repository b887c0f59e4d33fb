import type { IncomingMessage } from 'node:http';

/** The bearer credential of a request, if any. */
export function bearerKey(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return m?.[1];
}
