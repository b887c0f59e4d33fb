import { stateDirFrom } from '../../core/config/paths.js';
import type { Transport } from '../../core/transport/transport.js';
import type { IO } from './io.js';

/** Options every command accepts (SPEC §3). */
export interface GlobalOptions {
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

  private async openTransport(): Promise<Transport> {
    // Loaded on first use so that `--help` and `--version` never pay for SQLite and the appliance.
    const { EmbeddedTransport } = await import('../../core/transport/embedded.js');
    const apiKey = this.io.env.STOR_API_KEY?.trim() || undefined;
    return EmbeddedTransport.open({ stateDir: this.stateDir, ...(apiKey ? { apiKey } : {}) });
  }

  /** A note for the operator on stderr, unless `--quiet`. */
  note(message: string): void {
    if (!this.globals.quiet) this.io.stderr.write(`${message}\n`);
  }

  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    if (!opened) return;
    const transport = await opened.catch(() => undefined);
    await transport?.close();
  }
}
