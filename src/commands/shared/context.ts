import { stateDirFrom } from '../../core/config/paths.js';
import type { Transport } from '../../core/transport/transport.js';
import { escapeControls } from './escape.js';
import type { IO } from './io.js';
import { DEFAULT_TIMEOUT_SECONDS, readCa, resolveTarget, type TargetOptions, type TargetSpec } from './target.js';

/** Options every command accepts (SPEC §3). */
export interface GlobalOptions extends TargetOptions {
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  /** Seconds to wait for the target before giving up. */
  timeout?: number;
}

/**
 * What a command gets: its IO, the global options, and the target — chosen once here, opened
 * lazily on first use, and closed by `run()` whatever the command did.
 */
export class CommandContext {
  private opened: Promise<Transport> | undefined;
  private chosen: Promise<TargetSpec> | undefined;

  constructor(
    readonly io: IO,
    readonly globals: GlobalOptions,
  ) {}

  get stateDir(): string {
    return stateDirFrom(this.io.env);
  }

  /** The transport to the selected target; the first call opens and logs in. */
  transport(): Promise<Transport> {
    this.opened ??= this.openTransport();
    return this.opened;
  }

  /** Which target this invocation uses, without connecting to it. */
  target(): Promise<TargetSpec> {
    // Once per invocation, so that the -v trace of the choice is printed once.
    this.chosen ??= resolveTarget(this.globals, this.io, (message) => {
      if (this.globals.verbose) this.note(message);
    });
    return this.chosen;
  }

  get timeoutSeconds(): number {
    return this.globals.timeout ?? DEFAULT_TIMEOUT_SECONDS;
  }

  private async openTransport(): Promise<Transport> {
    return openTarget(await this.target(), this.timeoutSeconds);
  }

  /** A note for the operator on stderr, unless `--quiet`; it may quote the appliance, so controls are escaped. */
  note(message: string): void {
    if (!this.globals.quiet) this.io.stderr.write(`${escapeControls(message)}\n`);
  }

  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    if (!opened) return;
    const transport = await opened.catch(() => undefined);
    await transport?.close();
  }
}

/**
 * Opens a transport to a resolved target. Each implementation is loaded on first use, so that
 * `--help` and `--version` never pay for SQLite, WebSockets or the appliance.
 */
export async function openTarget(spec: TargetSpec, timeoutSeconds: number): Promise<Transport> {
  if (spec.kind === 'embedded') {
    const { EmbeddedTransport } = await import('../../core/transport/embedded.js');
    return EmbeddedTransport.open({ stateDir: spec.stateDir, timeoutSeconds, ...(spec.apiKey ? { apiKey: spec.apiKey } : {}) });
  }
  const { apiKeyLogin } = await import('../../core/transport/login-strategies.js');
  const options = {
    endpoint: spec.endpoint,
    login: apiKeyLogin(spec.apiKey),
    timeoutSeconds,
    insecure: spec.insecure,
    ...(spec.caPath ? { ca: readCa(spec.caPath) } : {}),
    ...(spec.profile ? { profile: spec.profile } : {}),
    ...(spec.keepaliveSeconds !== undefined ? { keepaliveSeconds: spec.keepaliveSeconds } : {}),
  };
  if (spec.rpc === 'http') {
    const { HttpRpcTransport } = await import('../../core/transport/remote-http.js');
    return HttpRpcTransport.open(options);
  }
  const { RemoteTransport } = await import('../../core/transport/remote.js');
  return RemoteTransport.open(options);
}
