import type { Socket } from 'node:net';
import type { SessionOpener } from '../core/session/opener.js';
import { EXIT } from '../commands/output/exit-codes.js';
import { processEnvDifference } from '../core/session/process-env.js';
import { GO_WAIT_MS, HEARTBEAT_MS, lineReader, type RunRequest } from '../core/session/protocol.js';
import { handedOverIO, RunWire, SignalHandlers, WireStdin } from './handed-over-io.js';
import { decideRun } from './run-policy.js';
import { readCommandLine } from '../commands/framework/command-line.js';

/**
 * Runs one command handed over by a first stage (src/first-stage.ts) on `conn`, the connection
 * its `run` request came on, with the very `run(line, io)` of src/cli.ts and an IO made of the
 * request (handed-over-io.ts); `sessions` is the agent's pool. The agent's server calls it for
 * every `run` request, after reading the request's line: any bytes after that line must be given
 * back to the socket (`conn.unshift`) first, since this reads the rest of the connection.
 *
 * The protocol (src/core/session/protocol.ts): `declined` and nothing else, or `accepted` with
 * whether the command may change anything; then, once the first stage has answered `go` (and only
 * then does the command start), its `out`/`err`, a `pull` when it first reads standard input, a
 * `beat` every HEARTBEAT_MS, and `exit` with its code. The request's environment (it may hold
 * STOR_API_KEY) lives only in this command's IO.
 */
export function handleRun(conn: Socket, request: RunRequest, sessions: SessionOpener): void {
  runHandedOver(conn, request, sessions).catch(() => conn.destroy());
}

/**
 * A command whose TZ, TLS trust or Node options are not the agent's (process-env.ts): Node reads
 * them for the whole process, so inside the agent it would read and write local times in the
 * agent's zone (`--expires 2030-06-30T18:00`), or trust the agent's certificate authorities. It
 * runs in its own process.
 */
function otherProcessEnv(name: string) {
  return { declined: `its ${name} is not the session agent's: Node reads it for the whole process` };
}

const SIGNAL_EXIT: Record<'SIGINT' | 'SIGTERM', number> = { SIGINT: EXIT.INTERRUPTED, SIGTERM: EXIT.TERMINATED };

async function runHandedOver(conn: Socket, request: RunRequest, sessions: SessionOpener): Promise<void> {
  const wire = new RunWire(conn);
  const signals = new SignalHandlers();
  const stdin = new WireStdin(wire, request.tty.stdin);
  let exited = false;
  let accepted = false;
  /** Settled by the first stage's `go` (true), or by its going away or a signal before it (false). */
  let goAhead!: (go: boolean) => void;
  const wentAhead = new Promise<boolean>((resolve) => (goAhead = resolve));

  const stopped = new AbortController();
  /**
   * A signal with no handler: answered at once, as the process would have died of it; what the
   * command still writes is dropped, and nothing new of it reaches the appliance (CommandSetting.stopped): a
   * call under way is left to finish or fail, every later one fails at once. Before `go` the
   * command has not started: it is answered the same, and never starts.
   */
  const signalled = (s: 'SIGINT' | 'SIGTERM') => {
    if (signals.deliver(s) || exited) return;
    stopped.abort(s);
    goAhead(false);
    wire.send({ t: 'exit', code: SIGNAL_EXIT[s] });
    wire.silence();
    conn.end();
  };
  /** The first stage went away (it was killed, or it gave up on a silent agent): the command is terminated. */
  const gone = () => {
    if (wire.gone) return;
    wire.gone = true;
    goAhead(false);
    // Never an end of input: a command reading it would take what came so far for all of it.
    if (stdin.wasPulled) stdin.destroy(new Error("the command's caller went away"));
    if (!exited && !signals.deliver('SIGTERM')) stopped.abort('SIGTERM');
  };
  conn.on(
    'data',
    lineReader(
      (m) => {
        // A `go` before `accepted` answers nothing it was asked: a broken client.
        if (m.t === 'go' && accepted) goAhead(true);
        else if (m.t === 'in' && typeof m.d === 'string' && stdin.wasPulled) stdin.feed(Buffer.from(m.d, 'base64'));
        else if (m.t === 'eof' && stdin.wasPulled) stdin.push(null);
        else if (m.t === 'signal' && (m.s === 'SIGINT' || m.s === 'SIGTERM')) signalled(m.s);
        else conn.destroy();
      },
      () => conn.destroy(),
    ),
  );
  conn.on('end', gone);
  conn.on('close', gone);
  conn.on('error', gone);
  // The agent's server paused the connection once it had read the request's line (readLines):
  // what the first stage sends from now on (a signal, its input, its going away) must be read.
  // Paused again only while the command has not taken up its input (WireStdin.feed).
  conn.resume();

  // The agent is a process of its own: the first stage's reading of the command line stays there,
  // the request carries argv. Read once here, for the run policy and for run() (command-line.ts).
  const line = readCommandLine(request.argv);
  const differs = processEnvDifference(request.env, process.env);
  const decision =
    differs !== undefined
      ? otherProcessEnv(differs)
      : await decideRun(line, request.tty).catch((err: unknown) => ({
          declined: `cannot tell what it does: ${(err as Error).message}`,
        }));
  if ('declined' in decision) {
    wire.send({ t: 'declined', reason: decision.declined });
    conn.end();
    return;
  }
  accepted = true;
  wire.send({ t: 'accepted', changes: decision.changes });
  // Nothing runs before the first stage's `go`: one that gave up on this agent (stopped, then
  // continued) may be running the command in its own process, and its request can be read here
  // before its hang-up is. No beat meanwhile: the first stage answers at once, and its silence
  // limit still runs. A client that never answers (another version) is dropped.
  const noGo = setTimeout(() => goAhead(false), GO_WAIT_MS);
  const go = await wentAhead;
  clearTimeout(noGo);
  if (!go || wire.gone || stopped.signal.aborted) {
    // A signal before `go` is answered already, its `exit` on its way (signalled); otherwise the
    // first stage went away, or never answered.
    if (wire.gone || !stopped.signal.aborted) conn.destroy();
    return;
  }
  const beat = setInterval(() => wire.send({ t: 'beat' }), HEARTBEAT_MS);
  let code: number;
  try {
    // Loaded here, not above: the agent's server loads this module before any command is handed over.
    const { run } = await import('../cli.js');
    code = await run(line, handedOverIO(request, wire, stdin, signals), { sessions, stopped: stopped.signal });
  } catch {
    // run() maps every error to a code itself; this is a bug in it.
    code = EXIT.FAILED;
  } finally {
    clearInterval(beat);
  }
  exited = true;
  // What the command left running when it returned (a --targets read interrupted while a target
  // was still logging in or answering: fan-out.ts abandons it) sends nothing more to an appliance,
  // as nothing more would leave a process of its own that exits here (docs/REMOTE.md). The agent
  // outlives the command: without this, that work would go on making its calls.
  if (!stopped.signal.aborted) stopped.abort('SIGTERM');
  wire.send({ t: 'exit', code });
  wire.silence();
  conn.end();
}
