/**
 * The session agent's wire protocol: newline-delimited JSON over the agent's Unix socket
 * (docs/SESSIONS.md). Two kinds of client speak it:
 *
 * - the first stage (src/first-stage.ts, the tiny module bin/stor.js loads before anything else)
 *   hands a whole command line to the agent with a `run` request, then relays its output, its
 *   standard input when the command asks for it, and signals, until `exit`;
 * - commands run in-process (`stor session list|stop`, `logout`, `profile remove`, `login`) send
 *   one control request and read one answer.
 *
 * Every line is one JSON object of at most MAX_LINE_BYTES bytes; only the output bytes an
 * `out`/`err` line announces follow it as they are. Either side closes a connection that sends
 * anything else. Nothing here is ever written to disk or a log: `run` carries the command's
 * environment, which may hold STOR_API_KEY.
 */

/**
 * Bumped on any incompatible change; it is part of the socket's name (paths.ts), so a first stage
 * never asks an agent that speaks another version. Bundled builds differ by build id anyway; this
 * also keeps apart builds that share one (`dev`, run from src/ or dist/).
 * 2: the first stage's `go` after `accepted`.
 * 3: the caller's umask in `run`.
 * 4: `out`/`err` give a byte count, and the bytes follow the line as they are (no JSON, no base64).
 */
export const PROTOCOL_VERSION = 4;

/** Longest line either side accepts (a `run` request carries the environment). */
export const MAX_LINE_BYTES = 1024 * 1024;

/** Bytes of standard input one `in` message carries at most (before base64). */
export const STDIN_CHUNK_BYTES = 64 * 1024;

/** The agent sends `beat` this often while a command runs, so a stopped agent is noticed. */
export const HEARTBEAT_MS = 1000;

/**
 * How long the agent waits for `go` after `accepted` before it drops the connection, command not
 * run: longer than any first stage's silence limit (five beats), by which it has given up anyway.
 * Only a client that never sends `go` (another version, a broken one) ever meets it.
 */
export const GO_WAIT_MS = 10_000;

/**
 * Command words the agent always declines (docs/SESSIONS.md): they serve, ask, or manage the agent
 * itself. The first stage, which knows them too, does not even ask; the agent decides in the end.
 */
export const DECLINED_COMMANDS: readonly string[] = ['help', 'serve', 'login', 'session', 'completion'];

/** Terminal facts of the first stage's process: what `processIO()` would have seen. */
export interface TerminalFacts {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  /** Columns of stdout's terminal (else stderr's), when one is a terminal. */
  columns?: number;
}

/** First stage → agent: run this command line as `bin/stor.js` would have, and stream it back. */
export interface RunRequest {
  op: 'run';
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  tty: TerminalFacts;
  /** The first stage's pid, for `stor session list`'s view of who is being served. */
  pid: number;
  /** The first stage's umask: what its own process would have created its files under (IO.umask). */
  umask: number;
}

/** Control requests: one request, one answer, then the agent closes the connection. */
export type ControlRequest =
  | { op: 'ping' }
  | { op: 'list' }
  /** Ends the agent (and so every session) after answering. */
  | { op: 'stop' }
  /**
   * Closes the sessions to `url` (an Endpoint's `display`), all of them, or only those logged in
   * with the key whose SHA-256 is `keySha256` (hex). Used by `session stop`, `logout`,
   * `profile remove` and a `login` that replaces a profile's key.
   */
  | { op: 'close'; url: string; keySha256?: string };

export type Request = RunRequest | ControlRequest;

/** One session as `stor session list` shows it. Never a key or token. */
export interface SessionInfo {
  target: string;
  /** Who the appliance says the session is (auth.me's pw_name), once known. */
  user?: string;
  ageSeconds: number;
  idleSeconds: number;
  calls: number;
  /** Commands currently running on it. */
  active: number;
  /** Whether its connection is open now; one that was lost is re-established (one login) on next use. */
  connected: boolean;
}

/** Agent → client answers to control requests. */
export type ControlAnswer =
  | { t: 'pong'; version: string; pid: number; startedAt: number }
  | { t: 'sessions'; agentPid: number; sessions: SessionInfo[] }
  | { t: 'stopping' }
  | { t: 'closed'; count: number }
  | { t: 'error'; message: string };

/** Agent → first stage, during a `run`. */
export type RunMessage =
  /** The agent will not run it (a prompt at a terminal, `serve`, `login`, …): run it in-process. Sent before anything else. */
  | { t: 'declined'; reason: string }
  /**
   * The agent will run it once the first stage says `go`, and not before. `changes`: whether the
   * command may change the appliance (so a lost agent means an unknown outcome).
   */
  | { t: 'accepted'; changes: boolean }
  /**
   * Output: the `n` bytes right after this line's newline are the command's, as it wrote them
   * (text in UTF-8, or a file's bytes: `stor download PATH -`). Not JSON: the first stage passes
   * them on as they come, with nothing to escape or decode (a fleet's `--json` is megabytes).
   */
  | { t: 'out'; n: number }
  | { t: 'err'; n: number }
  /** The command reads standard input: start relaying it. */
  | { t: 'pull' }
  | { t: 'beat' }
  | { t: 'exit'; code: number };

/** First stage → agent, during a `run`. */
export type RunInput =
  /**
   * The answer to `accepted`, sent only by a first stage that has not given up on the agent; from
   * then on it no longer runs the command itself unless it is a read that printed nothing. The
   * agent runs nothing before it, so a first stage that gave up (a stopped agent) and ran the
   * command in its own process never has it run twice.
   */
  { t: 'go' } | { t: 'in'; d: string /* base64 */ } | { t: 'eof' } | { t: 'signal'; s: 'SIGINT' | 'SIGTERM' };

/** One message as it goes on the wire: its JSON and a newline. */
export function encodeLine(message: object): string {
  return `${JSON.stringify(message)}\n`;
}

/** Whether `message` announces output bytes that follow it (`out`/`err`), and how many. */
function announced(message: Record<string, unknown>): number | undefined {
  if (message.t !== 'out' && message.t !== 'err') return undefined;
  return Number.isSafeInteger(message.n) && (message.n as number) >= 0 ? (message.n as number) : -1;
}

/**
 * The first stage's reading of a `run` connection: lineReader's messages, and after an `out` or
 * `err` line its `n` bytes, handed to `onBytes` as they arrive (in as many pieces as the socket
 * gives them, none held back). An `out`/`err` without a count is a bad line.
 */
export function runMessageReader(
  onMessage: (message: Record<string, unknown>) => void,
  onBytes: (bytes: Buffer) => void,
  onBad: (why: string) => void,
): (chunk: Buffer) => void {
  let owed = 0;
  let bad = false;
  const lines = lineFeeder(
    (message) => {
      const n = announced(message);
      if (n === -1) {
        bad = true;
        return onBad('an output line without its byte count');
      }
      onMessage(message);
      owed = n ?? 0;
    },
    (why) => {
      bad = true;
      onBad(why);
    },
    () => owed > 0 || bad,
  );
  return (chunk) => {
    let at = 0;
    while (at < chunk.length && !bad) {
      if (owed > 0) {
        const take = Math.min(owed, chunk.length - at);
        owed -= take;
        onBytes(chunk.subarray(at, at + take));
        at += take;
        continue;
      }
      at = lines(chunk, at);
    }
  };
}

/**
 * Splits a connection's bytes into messages: each complete line parsed as JSON. `onBad` is called
 * (and nothing more is parsed) for a line longer than MAX_LINE_BYTES or one that is not a JSON
 * object: the caller then closes the connection. Returns the function to feed with each chunk.
 */
export function lineReader(
  onMessage: (message: Record<string, unknown>) => void,
  onBad: (why: string) => void,
): (chunk: Buffer) => void {
  const lines = lineFeeder(onMessage, onBad, () => false);
  return (chunk) => void lines(chunk, 0);
}

/**
 * lineReader's work on `chunk` from `start`: returns where it stopped, the chunk's end, or right
 * after a line once `pause()` says what follows is not a line (runMessageReader: bytes it announced).
 */
function lineFeeder(
  onMessage: (message: Record<string, unknown>) => void,
  onBad: (why: string) => void,
  pause: () => boolean,
): (chunk: Buffer, start: number) => number {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let broken = false;
  return (chunk, start) => {
    if (broken) return chunk.length;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      const line =
        pendingBytes === 0 ? chunk.subarray(start, nl) : Buffer.concat([...pending, chunk.subarray(start, nl)]);
      pending = [];
      pendingBytes = 0;
      start = nl + 1;
      if (line.length > MAX_LINE_BYTES) return fail(`a line of more than ${MAX_LINE_BYTES} bytes`, chunk);
      let message: unknown;
      try {
        message = JSON.parse(line.toString('utf8'));
      } catch {
        return fail('a line that is not JSON', chunk);
      }
      if (typeof message !== 'object' || message === null || Array.isArray(message))
        return fail('a line that is not a JSON object', chunk);
      onMessage(message as Record<string, unknown>);
      if (broken) return chunk.length;
      if (pause()) return start;
    }
    if (start < chunk.length) {
      pending.push(chunk.subarray(start));
      pendingBytes += chunk.length - start;
      if (pendingBytes > MAX_LINE_BYTES) return fail(`a line of more than ${MAX_LINE_BYTES} bytes`, chunk);
    }
    return chunk.length;
  };
  function fail(why: string, chunk: Buffer): number {
    broken = true;
    pending = [];
    onBad(why);
    return chunk.length;
  }
}
