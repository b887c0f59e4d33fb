import type { Socket } from 'node:net';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { colorLevelFor } from '../commands/output/color-level.js';
import type { IO, OutputStream } from '../commands/output/io.js';
import { encodeLine, type RunMessage, type RunRequest } from '../core/session/protocol.js';

/**
 * Characters of text held to go out as one `out`/`err` (RunWire): past that, it is written at
 * once, so that the socket's buffer, not this one, says when the first stage falls behind.
 */
const HELD_CHARS = 64 * 1024;

/**
 * Whether the last piece ends in half a surrogate pair: written on its own, each half becomes a
 * replacement character on the way out, as it would in a process's own stdout; joined to the next
 * write's other half it would become another character.
 */
const endsHigh = (pieces: string[]): boolean => {
  const last = pieces[pieces.length - 1]!;
  const c = last.charCodeAt(last.length - 1);
  return c >= 0xd800 && c <= 0xdbff;
};

/** The line announcing `n` bytes of output (protocol.ts): the bytes follow it. */
const announce = (t: 'out' | 'err', n: number): string => `{"t":"${t}","n":${n}}\n`;

/**
 * The agent's end of one `run` connection: sends the command's messages while the first stage
 * listens, and nothing once it has gone or been told the command's end (`silence`).
 *
 * What is sent in one turn of the event loop leaves in one write, at its end (setImmediate): a
 * fan-out's targets answer in the same turn, one socket each, and each answer's output written on
 * its own cost a system call, and a wake-up and a write to its standard output in the first stage,
 * apiece (bench/HISTORY.md). Text written to one stream in a row goes out as one `out`/`err`: the
 * same bytes, in the same order between the two streams.
 */
export class RunWire {
  private silenced = false;
  /** The first stage closed the connection, or it broke. */
  gone = false;

  constructor(readonly conn: Socket) {}

  /** The socket is corked until the end of this turn of the event loop (corkForTurn). */
  private corked = false;
  /** Text of one stream not yet sent, to go out as one `out`/`err`. */
  private held: { t: 'out' | 'err'; pieces: string[]; length: number } | undefined;

  /**
   * A message of the protocol's but output (which `output` sends). False when the socket's buffer
   * is full (the first stage reads slower than the command writes): then 'drain' follows.
   */
  send(message: Exclude<RunMessage, { t: 'out' | 'err' }>): boolean {
    if (!this.open) return true;
    this.corkForTurn();
    this.release();
    return this.conn.write(encodeLine(message));
  }

  /** Output of the command's: text, or bytes (a download to `-`), sent as they are after their count. */
  output(t: 'out' | 'err', data: string | Buffer): boolean {
    if (!this.open) return true;
    this.corkForTurn();
    if (typeof data !== 'string') {
      this.release();
      this.conn.write(announce(t, data.length));
      return this.conn.write(data);
    }
    const held = this.held;
    if (held && (held.t !== t || endsHigh(held.pieces))) this.release();
    if (this.held) {
      this.held.pieces.push(data);
      this.held.length += data.length;
    } else this.held = { t, pieces: [data], length: data.length };
    if (this.held.length < HELD_CHARS) return !this.conn.writableNeedDrain;
    return this.release();
  }

  /** Writes the held text; false when the socket's buffer is full. */
  private release(): boolean {
    const held = this.held;
    if (!held) return true;
    this.held = undefined;
    const text = held.pieces.length === 1 ? held.pieces[0]! : held.pieces.join('');
    return this.conn.write(announce(held.t, Buffer.byteLength(text)) + text);
  }

  private corkForTurn(): void {
    if (this.corked) return;
    this.corked = true;
    this.conn.cork();
    setImmediate(() => {
      this.corked = false;
      if (this.open) this.release();
      this.conn.uncork();
    });
  }

  /** From now on nothing more is sent (the command's exit was answered already). */
  silence(): void {
    this.silenced = true;
  }

  get open(): boolean {
    return !this.silenced && !this.gone && !this.conn.destroyed;
  }
}

/** Standard output or error of a handed-over command: its writes go out as `out`/`err` (RunWire). */
class WireOutput implements OutputStream {
  constructor(
    private readonly wire: RunWire,
    private readonly t: 'out' | 'err',
    readonly isTTY: boolean,
    readonly columns: number | undefined,
  ) {}

  /** Text, or bytes (a download to `-` writes a file's bytes as the process's stdout takes them). */
  write(chunk: string | Uint8Array): boolean {
    if (typeof chunk === 'string') return this.wire.output(this.t, chunk);
    return this.wire.output(this.t, Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }

  /** As a process's stream: 'drain' when the socket can take more (download.ts waits for it). */
  once(event: 'drain', listener: () => void): this {
    if (!this.wire.open) {
      setImmediate(listener);
      return this;
    }
    // A first stage that goes away never drains: the writer must not wait for it forever.
    const conn = this.wire.conn;
    const done = () => {
      conn.off(event, done);
      conn.off('close', done);
      listener();
    };
    conn.on(event, done);
    conn.on('close', done);
    return this;
  }
}

/** The command's standard input: nothing is asked of the first stage until the command reads. */
export class WireStdin extends Readable {
  private pulled = false;
  isTTY: boolean;

  constructor(
    private readonly wire: RunWire,
    isTTY: boolean,
  ) {
    super();
    this.isTTY = isTTY;
  }

  override _read(): void {
    if (!this.pulled) {
      this.pulled = true;
      this.wire.send({ t: 'pull' });
    }
    // Taken up again after the command fell behind (see feed).
    this.wire.conn.resume();
  }

  /** A chunk from the first stage; its socket waits while the command has not read what came before. */
  feed(bytes: Buffer): void {
    if (!this.push(bytes)) this.wire.conn.pause();
  }

  get wasPulled(): boolean {
    return this.pulled;
  }
}

/** Signal handlers a handed-over command registered through `io.onSignal`. */
export class SignalHandlers {
  private readonly handlers = new Set<(signal: NodeJS.Signals) => void>();

  subscribe(handler: (signal: NodeJS.Signals) => void): () => void {
    // Each registration its own entry, as process.on would count it.
    const own = (s: NodeJS.Signals) => handler(s);
    this.handlers.add(own);
    return () => this.handlers.delete(own);
  }

  /** False when no handler is registered: the command does not stop by itself. */
  deliver(signal: NodeJS.Signals): boolean {
    if (this.handlers.size === 0) return false;
    for (const h of [...this.handlers]) h(signal);
    return true;
  }
}

/** The directories stor reads from the environment (src/core/config/paths.ts), which may be given relative to the working directory. */
const DIRECTORY_VARIABLES = ['STOR_HOME', 'STOR_CONFIG_DIR', 'TMPDIR', 'TMP', 'TEMP'] as const;

/**
 * The command's environment with a relative STOR_HOME, STOR_CONFIG_DIR or temporary directory made absolute against
 * the command's own working directory: paths.ts resolves them against the process's, which in the
 * agent is `/` (a relative STOR_HOME would otherwise open, or create, another appliance there).
 */
function withOwnDirectories(env: Record<string, string>, cwd: string): Record<string, string> {
  const own = { ...env };
  for (const name of DIRECTORY_VARIABLES) {
    const value = own[name];
    if (value) own[name] = resolve(cwd, value);
  }
  // An empty or relative HOME too: the directories under it are relative to the working directory.
  if (own.HOME !== undefined) own.HOME = resolve(cwd, own.HOME);
  return own;
}

/**
 * The IO of a command handed over by a first stage: its working directory, its own environment
 * (never the agent's), its terminal facts and the colour they give, its streams over the
 * connection and its signals. The agent's pool and the command's `stopped` are not the process's
 * but the agent's: run-request.ts hands them to the command's context (CommandSetting).
 */
export function handedOverIO(request: RunRequest, wire: RunWire, stdin: WireStdin, signals: SignalHandlers): IO {
  const { tty } = request;
  const env = withOwnDirectories(request.env, request.cwd);
  return {
    stdout: new WireOutput(wire, 'out', tty.stdout, tty.stdout ? tty.columns : undefined),
    stderr: new WireOutput(wire, 'err', tty.stderr, tty.stderr ? tty.columns : undefined),
    stdin,
    env,
    cwd: request.cwd,
    umask: request.umask,
    color: { stdout: colorLevelFor(env, tty.stdout), stderr: colorLevelFor(env, tty.stderr) },
    onSignal: (handler) => signals.subscribe(handler),
  };
}
