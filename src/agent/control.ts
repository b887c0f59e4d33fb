import { BUILD_ID } from '../core/session/paths.js';
import type { SessionPool } from '../core/session/pool.js';
import type { ControlAnswer, ControlRequest, Request } from '../core/session/protocol.js';

const str = (v: unknown): v is string => typeof v === 'string';

/** Whether a parsed line is a request this agent knows, with fields of the right types. */
export function isRequest(value: unknown): value is Request {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const r = value as Record<string, unknown>;
  switch (r.op) {
    case 'ping':
    case 'list':
    case 'stop':
      return true;
    case 'close':
      return str(r.url) && (r.keySha256 === undefined || str(r.keySha256));
    case 'run':
      return (
        Array.isArray(r.argv) &&
        r.argv.every(str) &&
        str(r.cwd) &&
        r.env !== null &&
        typeof r.env === 'object' &&
        Object.values(r.env as object).every(str) &&
        r.tty !== null &&
        typeof r.tty === 'object' &&
        typeof r.pid === 'number' &&
        Number.isInteger(r.umask) &&
        (r.umask as number) >= 0 &&
        (r.umask as number) <= 0o777
      );
    default:
      return false;
  }
}

/** The answer to one control request other than `stop` (which ends the agent after answering). */
export async function answerControl(
  request: Exclude<ControlRequest, { op: 'stop' }>,
  pool: SessionPool,
  self: { pid: number; startedAt: number },
): Promise<ControlAnswer> {
  switch (request.op) {
    case 'ping':
      return { t: 'pong', version: BUILD_ID, pid: self.pid, startedAt: self.startedAt };
    case 'list':
      return { t: 'sessions', agentPid: self.pid, sessions: await pool.list() };
    case 'close':
      return { t: 'closed', count: await pool.close(request.url, request.keySha256) };
  }
}
