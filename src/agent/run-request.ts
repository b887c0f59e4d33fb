import type { Socket } from 'node:net';
import type { RunRequest } from '../core/session/protocol.js';
import type { SessionOpener } from '../commands/shared/io.js';

/** Stub until the runner of handed-over commands lands: every `run` is declined, so the first stage runs it in-process. */
export function handleRun(conn: Socket, request: RunRequest, sessions: SessionOpener): void {
  void request;
  void sessions;
  conn.end(`${JSON.stringify({ t: 'declined', reason: 'not yet' })}\n`);
}
