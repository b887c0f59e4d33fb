import { lstatSync } from 'node:fs';
import { connect } from 'node:net';
import { E } from '../error-catalogue.js';
import { StorError } from '../errors.js';
import { readLines } from './lines.js';
import { privateDirProblem, privateSocketProblem, sessionDirFrom, socketPathIn } from './paths.js';
import type { ControlAnswer, ControlRequest } from './protocol.js';
import { sessionDirUnsafe } from './unsafe.js';

type Env = Readonly<Record<string, string | undefined>>;

function missing(path: string): boolean {
  try {
    lstatSync(path);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/**
 * Sends one control request to this user's session agent and reads its one answer. Undefined when
 * no agent runs (no directory, no socket, or nobody listening on it: at once, without waiting). The
 * directory and socket are checked first (owner, mode, no symlink): an unsafe one is refused with
 * SESSION_DIR_UNSAFE before anything is sent. Bounded by `timeoutSeconds`.
 */
export async function askAgent(
  env: Env,
  request: ControlRequest,
  timeoutSeconds: number,
): Promise<ControlAnswer | undefined> {
  const dir = sessionDirFrom(env);
  if (missing(dir)) return undefined;
  const dirProblem = privateDirProblem(dir);
  if (dirProblem) throw sessionDirUnsafe(dirProblem);
  const path = socketPathIn(dir);
  if (missing(path)) return undefined;
  const socketProblem = privateSocketProblem(path);
  if (socketProblem) throw sessionDirUnsafe(socketProblem);
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      fn();
    };
    const timer = setTimeout(
      () =>
        finish(() =>
          reject(
            new StorError(E.TIMEOUT, `the session agent did not answer ${request.op} within ${timeoutSeconds} s`, {
              hint: 'raise --timeout, or end it with `kill` (its pid: `pgrep -f "stor session agent"`)',
            }),
          ),
        ),
      timeoutSeconds * 1000,
    );
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // Nobody listening (a socket left by an agent that died): no agent.
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOENT') finish(() => resolve(undefined));
      else
        finish(() =>
          reject(new StorError(E.CONNECTION_CLOSED, `the session agent's socket failed: ${err.code ?? err.message}`)),
        );
    });
    socket.on('close', () =>
      finish(() =>
        reject(
          new StorError(E.CONNECTION_CLOSED, `the session agent closed the connection without answering ${request.op}`),
        ),
      ),
    );
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    readLines(socket, (line) => {
      finish(() => {
        try {
          resolve(JSON.parse(line) as ControlAnswer);
        } catch {
          reject(new StorError(E.CONNECTION_CLOSED, 'the session agent answered with something that is not JSON'));
        }
      });
      return false;
    });
  });
}
