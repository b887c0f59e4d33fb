import type { Socket } from 'node:net';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { colorLevelFor } from '../commands/output/color-level.js';
import type { IO, OutputStream } from '../commands/output/io.js';
import { encodeLine, type RunMessage, type RunRequest } from '../core/session/protocol.js';

/** Characters of text one `out`/`err` line carries at most: well under MAX_LINE_BYTES even when every one is escaped. */
const TEXT_CHUNK = 64 * 1024;
/** Bytes one base64 `out` line carries at most. */
const BYTES_CHUNK = 192 * 1024;

/** Pieces of `text` of at most TEXT_CHUNK characters, never splitting a surrogate pair. */
function textPieces(text: string): string[] {
  if (text.length <= TEXT_CHUNK) return [text];
  const pieces: string[] = [];
  for (let start = 0; start < text.length;) {
    let end = Math.min(start + TEXT_CHUNK, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

/**
 * The agent's end of one `run` connection: sends the command's messages while the first stage
 * listens, and nothing once it has gone or been told the command's end (`silence`).
 */
export class RunWire {
  private silenced = false;
  /** The first stage closed the connection, or it broke. */
  gone = false;

  constructor(readonly conn: Socket) {}

  /** The socket is corked until the next tick (send). */
  private corked = false;

  /**
   * False when the socket's buffer is full (the first stage reads slower than the command writes).
   * The lines of one tick go out in one write: a fan-out's targets answer together, and each
   * answer's `out` line written on its own cost a system call (and a wake-up of the first stage)
   * apiece. `end()` writes what is corked.
   */
  send(message: RunMessage): boolean {
    if (this.silenced || this.gone || this.conn.destroyed) return true;
    if (!this.corked) {
      this.corked = true;
      this.conn.cork();
      process.nextTick(() => {
        this.corked = false;
        this.conn.uncork();
      });
    }
    return this.conn.write(encodeLine(message));
  }

  /** From now on nothing more is sent (the command's exit was answered already). */
  silence(): void {
    this.silenced = true;
  }

  get open(): boolean {
    return !this.silenced && !this.gone && !this.conn.destroyed;
  }
}

/** Standard output or error of a handed-over command: each write becomes `out`/`err` lines. */
class WireOutput implements OutputStream {
  constructor(
    private readonly wire: RunWire,
    private readonly t: 'out' | 'err',
    readonly isTTY: boolean,
    readonly columns: number | undefined,
  ) {}

  /** Text, or bytes (a download to `-` writes a file's bytes as the process's stdout takes them). */
  write(chunk: string | Uint8Array): boolean {
    let flowing = true;
    if (typeof chunk === 'string') {
      for (const d of textPieces(chunk)) flowing = this.wire.send({ t: this.t, d }) && flowing;
      return flowing;
    }
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    for (let at = 0; at < bytes.length; at += BYTES_CHUNK) {
      flowing =
        this.wire.send({ t: this.t, d: bytes.subarray(at, at + BYTES_CHUNK).toString('base64'), b64: true }) && flowing;
    }
    return flowing;
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
