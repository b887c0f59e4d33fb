import { existsSync, readFileSync, statSync } from 'node:fs';
import { connect, Socket } from 'node:net';
import { createRequire } from 'node:module';
import { isatty } from 'node:tty';
import { fileURLToPath } from 'node:url';
import {
  privateDirProblem,
  privateSocketProblem,
  sessionDirFrom,
  socketPathIn,
  startingMarkerIn,
} from './core/session/paths.js';
import {
  DECLINED_COMMANDS,
  encodeLine,
  HEARTBEAT_MS,
  runMessageReader,
  STDIN_CHUNK_BYTES,
  type RunInput,
  type RunMessage,
  type RunRequest,
} from './core/session/protocol.js';
import { sessionSetting } from './core/session/setting.js';
import { readCommandLine, type CommandLine } from './commands/framework/command-line.js';
import { startAgent } from './core/session/start-agent.js';

/*
 * The first stage (docs/SESSIONS.md): what bin/stor.js loads before anything else. It hands the
 * command line to the session agent when one runs, and relays what comes back; otherwise it loads
 * the full CLI and runs the command in this process, as stor always did. It must start in a few
 * milliseconds over bare Node, so it imports node built-ins, src/core/session/{paths,setting,
 * protocol,start-agent,process-env}.ts and the CLI's reading of the command line
 * (src/commands/framework/command-line.ts, with the global options it reads) only: scripts/bundle.mjs
 * checks that nothing else comes in.
 */

/**
 * How long a first stage waits for an agent that another command is starting (its marker fresh
 * and its process alive): on a loaded machine the start can take seconds, and waiting costs less
 * than a login of its own, which counts against the appliance's 20 a minute.
 */
const STARTING_WAIT_MS = 5000;
/**
 * How long a `--targets` run waits for the agent it starts: the agent then logs in on each target,
 * once, and the next run logs in nowhere. Bounded by STARTING_FRESH_MS too.
 */
const FLEET_WAIT_MS = 5000;
/** A starting marker older than this is a start that failed, not one under way. */
const STARTING_FRESH_MS = 5000;
/** Beats the agent may miss before it counts as lost (stopped, or gone without closing). */
const LOST_AFTER_BEATS = 5;

/** Whether the agent is never asked for `line`: no command words, help, the version, or a command it always declines. */
export function alwaysDeclined(line: CommandLine): boolean {
  return line.top === undefined || line.asksHelp || line.asksVersion || DECLINED_COMMANDS.includes(line.top);
}

/**
 * How long the agent may stay silent before the command counts as lost: five missed beats, but
 * never longer than the command's own `--timeout` (at least two beats), so that no command waits
 * past it for an agent that was stopped.
 */
export function silenceLimitMs(line: CommandLine): number {
  const given = Number(line.globals.timeout);
  const timeout = given > 0 ? given * 1000 : undefined;
  return Math.min(LOST_AFTER_BEATS * HEARTBEAT_MS, Math.max(2 * HEARTBEAT_MS, timeout ?? Infinity));
}

/**
 * Loads the CLI and runs the command in this process: start.cjs (src/start.ts), a sibling of this
 * bundle, which picks the fastest way this Node has to load it. Required, not imported: no module
 * loader is started for it.
 */
async function inProcess(line: CommandLine): Promise<void> {
  const { start: startInProcess } = createRequire(import.meta.url)('./start.cjs') as {
    start(line: CommandLine): Promise<void>;
  };
  await startInProcess(line);
}

/** A start under way: the marker exists, is fresh, and names a live process (when it names one). */
function startingNow(marker: string): boolean {
  try {
    if (Date.now() - statSync(marker).mtimeMs > STARTING_FRESH_MS) return false;
    const pid = Number(readFileSync(marker, 'utf8').trim());
    if (Number.isInteger(pid) && pid > 0) process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A connection to the agent, when one answers; waits up to `waitMs` while another command is
 * starting one (its marker fresh). 'stale' when a socket is there but nothing listens on it: its
 * agent died without removing it (kill -9).
 */
async function connectAgent(env: NodeJS.ProcessEnv, waitMs: number): Promise<Socket | 'stale' | undefined> {
  const dir = sessionDirFrom(env);
  const path = socketPathIn(dir);
  const marker = startingMarkerIn(dir);
  for (const deadline = Date.now() + waitMs; ; await new Promise((resolve) => setTimeout(resolve, 20))) {
    const waiting = () => Date.now() <= deadline && startingNow(marker);
    if (!existsSync(path)) {
      if (waiting()) continue;
      return undefined;
    }
    // Any problem is reported by the full CLI (SESSION_DIR_UNSAFE), which checks again.
    if (privateDirProblem(dir) !== undefined || privateSocketProblem(path) !== undefined) return undefined;
    const socket = await connectTo(path);
    if (typeof socket !== 'string') return socket;
    if (waiting()) continue;
    return socket === 'ECONNREFUSED' ? 'stale' : undefined;
  }
}

/**
 * Starts an agent from here, for the two cases the full CLI cannot see: a socket its agent left
 * behind (the CLI would take it for a live agent and never start another, so every later command
 * would log in on its own), and a `--targets` run, which waits for the agent it starts. Whether an
 * agent is now on its way.
 */
function launchAgent(env: NodeJS.ProcessEnv, staleSocket: boolean): boolean {
  const entry = fileURLToPath(new URL('./agent.js', import.meta.url));
  if (!existsSync(entry)) return false;
  try {
    const outcome = startAgent(env, entry, undefined, staleSocket);
    return 'started' in outcome || 'starting' in outcome;
  } catch {
    // The full CLI, which runs the command next, reports what is wrong.
    return false;
  }
}

function commandEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return env;
}

function runRequest(argv: string[]): RunRequest {
  const stdout = isatty(1);
  const stderr = isatty(2);
  const columns = stdout ? process.stdout.columns : stderr ? process.stderr.columns : undefined;
  return {
    op: 'run',
    argv,
    cwd: process.cwd(),
    env: commandEnv(),
    tty: { stdin: isatty(0), stdout, stderr, ...(columns ? { columns } : {}) },
    pid: process.pid,
    // Read, not changed: process.umask() with no argument sets it back at once.
    umask: process.umask(),
  };
}

/**
 * As src/output-errors.ts, copied because the first stage may import none of the CLI: a reader that
 * went away ends the process with 0; another write error with 1.
 */
function endWhenOutputFails(stream: NodeJS.WriteStream, name: 'stdout' | 'stderr'): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    if (name === 'stdout') process.stderr.write(`stor: cannot write to standard output: ${err.code ?? err.message}\n`);
    process.exit(1);
  });
}

/** How a handed-over command ended, as far as this process can tell. */
type Outcome =
  | { exit: number }
  | { declined: true }
  | { lost: { changes: boolean | undefined; wrote: boolean; readStdin: boolean } };

/** Hands the command to the agent on `socket` and relays it until its exit, a decline, or the agent's loss. */
function relay(socket: Socket, line: CommandLine): Promise<Outcome> {
  return new Promise((resolve) => {
    let changes: boolean | undefined;
    let wrote = false;
    let pulled = false;
    let settled = false;
    let signalled: NodeJS.Signals | undefined;
    const send = (m: RunInput) => socket.write(encodeLine(m));

    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(watchdog);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      if (pulled) process.stdin.pause();
      socket.destroy();
      resolve(outcome);
    };
    const lost = () => finish({ lost: { changes, wrote, readStdin: pulled } });

    const limit = silenceLimitMs(line);
    /** Messages and bytes heard from the agent so far: what the watchdog's judgement looks at. */
    let heardCount = 0;
    /**
     * The silence is judged once what already waits on the socket is read. When this process itself
     * was stopped (Ctrl-Z, then `fg`) or starved, the watchdog and the agent's beats of meanwhile
     * become due in the same turn of the event loop, and Node runs timers before it reads: judged at
     * once, a live agent would be taken for lost for this process's own pause. `setImmediate` runs
     * after that turn's reads (as src/core/server/idle-timer.ts judges a peer).
     */
    const judge = () => {
      const seen = heardCount;
      setImmediate(() => {
        if (heardCount === seen && waitingFor === undefined) lost();
      });
    };
    let watchdog = setTimeout(judge, limit);
    /** The stream whose drain this process waits for before it reads from the agent again (relayOut). */
    let waitingFor: NodeJS.WriteStream | undefined;
    const heard = () => {
      heardCount++;
      clearTimeout(watchdog);
      // While stdout or stderr drains, the silence limit does not run: what is left of the chunk
      // being read (a beat, the next out's line) must not start it again, or a reader that pauses
      // longer than the limit would have a live agent taken for lost.
      if (waitingFor === undefined) watchdog = setTimeout(judge, limit);
    };

    /**
     * Backpressure, as a process's own stdout gives it: once stdout or stderr holds more than it
     * can pass on (a slow reader: `stor download BIG - | slow-reader`), nothing more is read from
     * the agent until it drains. The agent's socket then fills, its command's writes report it
     * (handed-over-io.ts), and the download waits, instead of this process holding the whole file.
     * The agent's beats wait in the socket meanwhile: the silence limit runs only while reading.
     */
    const relayOut = (stream: NodeJS.WriteStream, data: string | Buffer) => {
      if (stream.write(data) || waitingFor !== undefined) return;
      waitingFor = stream;
      socket.pause();
      clearTimeout(watchdog);
      stream.once('drain', () => {
        waitingFor = undefined;
        if (settled) return;
        heard();
        socket.resume();
      });
    };

    const onSignal = (s: NodeJS.Signals) => {
      // A second one: the operator means it; the agent's command is left to its handlers.
      if (signalled) process.exit(s === 'SIGINT' ? 130 : 143);
      signalled = s;
      send({ t: 'signal', s: s === 'SIGINT' ? 'SIGINT' : 'SIGTERM' });
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);

    const pull = () => {
      if (pulled) return;
      pulled = true;
      process.stdin.on('data', (chunk: Buffer) => {
        let flowing = true;
        for (let at = 0; at < chunk.length; at += STDIN_CHUNK_BYTES)
          flowing = send({ t: 'in', d: chunk.subarray(at, at + STDIN_CHUNK_BYTES).toString('base64') }) && flowing;
        if (!flowing) {
          process.stdin.pause();
          socket.once('drain', () => process.stdin.resume());
        }
      });
      process.stdin.on('end', () => send({ t: 'eof' }));
      // An unreadable stdin (closed, a directory): the command sees an empty one, as it would have.
      process.stdin.on('error', () => send({ t: 'eof' }));
    };

    /** Where the bytes of the last `out`/`err` go. */
    let outputTo: NodeJS.WriteStream = process.stdout;
    const onMessage = (m: Record<string, unknown>) => {
      if (settled) return;
      heard();
      const msg = m as RunMessage;
      switch (msg.t) {
        case 'declined':
          if (changes === undefined) finish({ declined: true });
          return;
        case 'accepted':
          // The go-ahead: the agent starts nothing before it, and it is never sent once this
          // process gave up (settled, above). From now on the command may be running there.
          changes = msg.changes === true;
          send({ t: 'go' });
          return;
        case 'out':
        case 'err':
          // Its bytes follow (onBytes).
          wrote = true;
          outputTo = msg.t === 'out' ? process.stdout : process.stderr;
          return;
        case 'pull':
          pull();
          return;
        case 'beat':
          return;
        case 'exit':
          finish({ exit: typeof msg.code === 'number' ? msg.code : 1 });
          return;
        default:
          lost();
      }
    };
    const onBytes = (bytes: Buffer) => {
      if (settled) return;
      heard();
      relayOut(outputTo, bytes);
    };
    socket.on('data', runMessageReader(onMessage, onBytes, lost));
    socket.on('close', lost);
    socket.on('error', lost);
    socket.write(encodeLine(runRequest([...line.argv])));
  });
}

/** Connects to the agent's socket; the error's code when that fails (ECONNREFUSED: nothing listens there). */
function connectTo(path: string): Promise<Socket | string> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.off('error', refused);
      resolve(socket);
    });
    const refused = (err: NodeJS.ErrnoException) => resolve(err.code ?? 'EUNKNOWN');
    socket.once('error', refused);
  });
}

/**
 * Ends this process with the agent's exit code, once what was written has left it. The first stage
 * may end the process (bin/stor.js): here, at a second SIGINT/SIGTERM (130/143, the command left to
 * the agent) and when its stdout or stderr fails; a command run in-process ends as src/bin-entry.ts says.
 */
function exitAfterFlush(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

/** What bin/stor.js runs. */
export async function start(): Promise<void> {
  // The one reading of this process's command line: what runs next here gets it (command-line.ts).
  const line = readCommandLine(process.argv.slice(2));
  if (line.globals.session === false || sessionSetting(process.env.STOR_SESSION) !== 'on' || alwaysDeclined(line))
    return inProcess(line);
  let socket = await connectAgent(process.env, STARTING_WAIT_MS);
  if (!(socket instanceof Socket)) {
    // This command runs in its own process, as any that finds no agent; the agent started here is
    // for the next ones. A --targets run waits for it instead.
    // It logs in on each target: waiting for an agent to start costs less than the logins the
    // next run would otherwise make again.
    const fleet = line.globals.targets !== undefined;
    const launched = (socket === 'stale' || fleet) && launchAgent(process.env, socket === 'stale');
    if (launched && fleet) socket = await connectAgent(process.env, FLEET_WAIT_MS);
  }
  if (!(socket instanceof Socket)) return inProcess(line);
  endWhenOutputFails(process.stdout, 'stdout');
  endWhenOutputFails(process.stderr, 'stderr');
  const outcome = await relay(socket, line);
  if ('declined' in outcome) return inProcess(line);
  if ('exit' in outcome) return exitAfterFlush(outcome.exit);
  const { changes, wrote, readStdin } = outcome.lost;
  if (changes !== true && !wrote && !readStdin) {
    // Run again with a connection of its own: not waiting for, nor starting, another agent.
    process.env.STOR_SESSION = 'off';
    return inProcess(line);
  }
  const cli = new URL('./stor.js', import.meta.url).href;
  const { reportSessionLost } = (await import(cli)) as { reportSessionLost(line: CommandLine): Promise<number> };
  exitAfterFlush(await reportSessionLost(line));
}
