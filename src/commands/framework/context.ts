import { stateDirFrom } from '../../core/config/paths.js';
import type { TraceSink } from '../../core/transport/trace.js';
import type { Transport } from '../../core/transport/transport.js';
import { escapeControls } from '../output/escape.js';
import type { GlobalOptions } from './global-options.js';
import type { HeadStart } from '../startup/head-start.js';
import type { IO } from '../output/io.js';
import { JsonArrayWriter } from '../output/json-array.js';
import { jsonLine, render, renderMode, type CommandResult } from '../output/render.js';
import { DEFAULT_TIMEOUT_SECONDS, implicitTargetCheck, readCa, resolveTarget, type TargetSpec } from './target.js';
import { openTarget, traceTarget } from './open-target.js';
import { queueAgentStart, sessionsOn } from '../../core/session/spawn.js';
import type { PooledTarget, SessionOpener } from '../../core/session/opener.js';
import type { ProfilesDocument } from '../../core/config/profiles.js';
import { stoppable, throwIfStopped } from '../../core/session/interrupted.js';

export type { GlobalOptions } from './global-options.js';

/** What the caller of `run()` hands a command besides its IO and command line: where it runs, and what started before it. */
export interface CommandSetting {
  /**
   * The connection bin-entry.ts started opening before the CLI loaded (early-target.ts), for this
   * command to take if it opens the very same target.
   */
  headStart?: HeadStart;
  /**
   * Set only when the command runs inside the session agent (docs/SESSIONS.md): opens a remote
   * target as a lease on the agent's logged-in connection instead of a connection of its own.
   * Closing the transport it returns ends the lease, not the connection.
   */
  sessions?: SessionOpener;
  /**
   * Set only when the command runs inside the session agent: aborted (its reason the signal's name)
   * once SIGINT or SIGTERM reached the command while it had no handler of its own (IO.onSignal). Its
   * own process would have died there; from then on its transports refuse every call (stoppable,
   * src/core/session/interrupted.ts).
   */
  stopped?: AbortSignal;
}

/**
 * What a command gets: its IO, the global options, and the target — chosen once here, opened
 * lazily on first use, and closed by `run()` whatever the command did.
 */
export class CommandContext {
  private opened: Promise<Transport> | undefined;
  private chosen: Promise<TargetSpec> | undefined;
  /**
   * In a `--targets` change: this target's plan as the fan-out showed it and the operator
   * confirmed it (the verb's dry-run data), which the verb holds its change to (plan-check.ts).
   */
  confirmedPlan: unknown = undefined;
  /**
   * In a `--targets` run: the profiles file as read once for the whole run (resolveFleet), so
   * that each target's choice does not read and parse it again (≈0.25 ms a target in the agent).
   */
  profiles: ProfilesDocument | undefined = undefined;
  /** The verb may change the target (its declared effect): a change on an embedded appliance nobody chose is told or refused (implicitTargetCheck). */
  changes = false;

  private readonly headStart: HeadStart | undefined;
  /** The target as the session pool keys it, made once (its CA bundle read once). */
  private pooled: PooledTarget | undefined;
  /** In the session agent: its pool of logged-in connections (CommandSetting.sessions). */
  readonly sessions: SessionOpener | undefined;
  /** In the session agent: aborted once the command was interrupted (CommandSetting.stopped). */
  readonly stopped: AbortSignal | undefined;

  constructor(
    readonly io: IO,
    readonly globals: GlobalOptions,
    setting: CommandSetting = {},
  ) {
    this.headStart = setting.headStart;
    this.sessions = setting.sessions;
    this.stopped = setting.stopped;
  }

  get stateDir(): string {
    return stateDirFrom(this.io.env);
  }

  /**
   * The transport to the selected target; the first call opens and logs in. `whileLoggingIn`
   * (the first call's only) is told once that call's own WebSocket connection has written its
   * login (RemoteOptions.onLoginSent), while the appliance checks the key and this process has
   * nothing to do; never for another transport, a head start's or a pooled connection.
   */
  transport(whileLoggingIn?: () => void): Promise<Transport> {
    this.opened ??= this.stopped ? this.openStoppable(this.stopped) : this.openTransport(whileLoggingIn);
    return this.opened;
  }

  /** The transport if this invocation opened one (and it opened), without opening one. */
  async openedTransport(): Promise<Transport | undefined> {
    return this.opened?.catch(() => undefined);
  }

  /** In the session agent: not opened once the command was interrupted (CommandSetting.stopped), and refusing every call from then on. */
  private async openStoppable(stopped: AbortSignal): Promise<Transport> {
    throwIfStopped(stopped);
    return stoppable(await this.openTransport(), stopped);
  }

  /**
   * In the session agent: whether this invocation's target is served by a pooled connection that
   * is open and logged in now, so that running it opens no connection (SessionOpener.isOpen).
   * False when it cannot tell (no agent, another kind of target, a target that does not resolve:
   * the command itself then says why).
   */
  async onOpenConnection(): Promise<boolean> {
    const sessions = this.sessions;
    if (!sessions?.isOpen) return false;
    try {
      const spec = await this.target();
      if (spec.kind !== 'remote' || spec.rpc !== 'ws') return false;
      this.pooled ??= pooledTarget(spec);
      return sessions.isOpen(this.pooled);
    } catch {
      return false;
    }
  }

  /** Which target this invocation uses, without connecting to it. */
  target(): Promise<TargetSpec> {
    // Once per invocation, so that the -v trace of the choice is printed once.
    this.chosen ??= resolveTarget(this.globals, this.io, (message) => this.verbose(message), this.profiles);
    return this.chosen;
  }

  get timeoutSeconds(): number {
    return this.globals.timeout ?? DEFAULT_TIMEOUT_SECONDS;
  }

  private async openTransport(whileLoggingIn?: () => void): Promise<Transport> {
    const spec = await this.target();
    if (this.changes) implicitTargetCheck(spec, this.io.env, (message) => this.warn(message));
    const sessions = this.sessions;
    if (sessions) {
      // Inside the session agent: a remote WebSocket target is a lease on its pooled connection.
      // JSON-RPC over HTTP logs in on every request anyway, and the embedded target is opened per command.
      if (spec.kind === 'remote' && spec.rpc === 'ws') {
        // The same `target:` and `transport:` lines as a command's own connection prints.
        if (this.trace) traceTarget(spec, this.trace);
        this.pooled ??= pooledTarget(spec);
        return sessions.open(this.pooled, this.timeoutSeconds, this.trace);
      }
    } else if (sessionsOn(this.globals.session, this.io.env)) {
      // The next command finds the agent running; this one goes on with a connection of its own,
      // and starts the agent once it has run (bin-entry).
      queueAgentStart(this.io.env);
    }
    const ahead = await this.headStart?.take(spec, this.timeoutSeconds);
    if (ahead) return ahead;
    return openTarget(spec, this.timeoutSeconds, {
      ...(this.trace ? { trace: this.trace } : {}),
      ...(this.io.onSignal ? { onSignal: this.io.onSignal.bind(this.io) } : {}),
      ...(whileLoggingIn ? { onLoginSent: whileLoggingIn } : {}),
    });
  }

  /** With `-v`, where the transports say what they do: `stor: trace: …` lines on stderr. */
  get trace(): TraceSink | undefined {
    if (!this.globals.verbose) return undefined;
    return (line) => this.io.stderr.write(`stor: trace: ${escapeControls(line)}\n`);
  }

  /*
   * What a command writes on stderr, besides the error `run()` prints, is decided here and only
   * here; no verb reads `globals.json` or `globals.quiet` to silence itself. The rule:
   * - `note`: what a person reads along: what happened, what is next, a dry run's summary, a
   *   plan, progress. The result says it too (under `--json` the document on stdout carries it),
   *   so `--json` silences notes, as `--quiet` does.
   * - `warn`: what the operator must see even from a script, because the document does not say
   *   it or not why: what was done, or left out, otherwise than they may have meant (a symbolic
   *   link not uploaded, a `--mode` the appliance will not apply as given, a redundant role list
   *   saved, with the smallest equivalent), an exposure (a key file others can read, a server
   *   without TLS), a clean-up that failed, the safe first step of a question being asked at a
   *   terminal. Only `--quiet` ("nothing but results and errors") silences it.
   * - `log`: a server's running log (`stor serve`), whose `--json` document is one line at start:
   *   the rest of what it has to say is this log. Only `--quiet` silences it.
   * - `verbose`: what `-v` asks for besides the transports' traces (which target was chosen, and
   *   why): asked for by name, so `--json` does not silence it; `--quiet` does.
   */

  /** Whether notes reach stderr: not under `--json` or `--quiet`. */
  get notes(): boolean {
    return !this.globals.json && !this.globals.quiet;
  }

  /** A note for the operator on stderr (see the rule above); it may quote the appliance, so controls are escaped. */
  note(message: string): void {
    if (this.notes) this.write(message);
  }

  /**
   * In a `--targets` run: the notes said once for the whole run (noteOnce), shared by every
   * target's context, so a preamble the targets share is not repeated per target.
   */
  saidOnce: Set<string> | undefined = undefined;

  /** Notes about the output (what to run next), written after it: below the table they refer to. */
  readonly afterOutput: string[] = [];

  /** A note that explains the run as a whole (how findings were judged): once, even over many targets that say the same. */
  noteOnce(message: string): void {
    if (!this.notes || this.saidOnce?.has(message)) return;
    this.saidOnce?.add(message);
    this.note(message);
  }

  /** A note written after the command's output (run() writes it), since it refers to that output. */
  noteAfter(message: string): void {
    if (this.notes) this.afterOutput.push(message);
  }

  /** Writes the notes kept for after the output. */
  flushAfterOutput(): void {
    for (const message of this.afterOutput.splice(0)) this.write(message);
  }

  /** A warning the operator must see, `--json` or not (see the rule above); silenced only by `--quiet`. */
  warn(message: string): void {
    if (!this.globals.quiet) this.write(message);
  }

  /** A line of a server's log (`stor serve`), `--json` or not; silenced only by `--quiet`. */
  log(message: string): void {
    if (!this.globals.quiet) this.write(message);
  }

  /** With `-v`, a line of what stor decided, `--json` or not; silenced by `--quiet`. */
  verbose(message: string): void {
    if (this.globals.verbose && !this.globals.quiet) this.write(message);
  }

  /**
   * Under `--json-lines`: one line of the result written on stdout now, as soon as it is known (a
   * `--targets` run's target as it finishes); otherwise nothing, the result's document carries it.
   * `line` makes the document, called only under `--json-lines` (not once per target of every
   * `--targets` run).
   */
  record(line: () => unknown): void {
    if (this.globals.jsonLines) this.io.stdout.write(jsonLine(line()));
  }

  /**
   * Under `--json` (not `--json-lines`): the result's array of `length` elements, written on stdout
   * as its elements become known (json-array.ts); the result then says `streamed`. Otherwise
   * undefined: the renderer prints the document at the end.
   */
  jsonArray(length: number): JsonArrayWriter | undefined {
    return this.globals.json && !this.globals.jsonLines && length > 0
      ? new JsonArrayWriter(this.io.stdout, length)
      : undefined;
  }

  /** A view shown on stderr as a note: the plan before a question (silenced as notes are). */
  async noteView(result: CommandResult): Promise<void> {
    if (this.notes) this.io.stderr.write(await render(result, renderMode(this.io, false, 'stderr')));
  }

  /** Whether a progress bar is drawn: notes on, and stderr a terminal. */
  get progress(): boolean {
    return this.notes && this.io.stderr.isTTY === true;
  }

  private write(message: string): void {
    this.io.stderr.write(`${escapeControls(message)}\n`);
  }

  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    if (!opened) return;
    const transport = await opened.catch(() => undefined);
    await transport?.close();
  }
}

/** A remote target as the session pool keys it: the CA bundle read (and checked) here, as openTarget does. */
function pooledTarget(spec: Extract<TargetSpec, { kind: 'remote' }>): PooledTarget {
  return {
    endpoint: spec.endpoint,
    apiKey: spec.apiKey,
    ...(spec.username ? { username: spec.username } : {}),
    ...(spec.scramOnly ? { scramOnly: true } : {}),
    insecure: spec.insecure,
    ...(spec.caPath ? { ca: readCa(spec.caPath) } : {}),
    ...(spec.profile ? { profile: spec.profile } : {}),
    ...(spec.keepaliveSeconds !== undefined ? { keepaliveSeconds: spec.keepaliveSeconds } : {}),
  };
}
