import type { Transport } from '../../core/transport/transport.js';
import type { TargetSpec } from '../framework/target.js';

/** A transport opened before the command line was parsed, and what it was opened for. */
interface Opened {
  /** specKey() of the target and timeout it was opened with. */
  key: string;
  opened: Promise<Transport>;
}

/** Equal only for equal targets (URL, key, TLS settings, transport, state directory) and timeouts. */
export function specKey(spec: TargetSpec, timeoutSeconds: number): string {
  return JSON.stringify([spec, timeoutSeconds]);
}

/**
 * The head start of one command (early-target.ts): a connection being opened, and its key
 * checked, while the CLI still loads. bin-entry.ts hands it to the command in its IO
 * (`IO.headStart`); the command takes it if it opens the very same target, and the process drops
 * it once the command is done. A failed open is reported only by a command that takes it.
 */
export class HeadStart {
  private pending: Promise<Opened | undefined> | undefined;
  private readonly sent: Promise<unknown>;

  /**
   * `loginSent`: resolves once the login's frame is written (RemoteOptions.onLoginSent); never
   * told for other transports, for which the open settling (or nothing opened) ends the wait.
   */
  constructor(started: Promise<Opened | undefined>, loginSent: Promise<void> = Promise.resolve()) {
    this.pending = started.then(
      (s) => {
        s?.opened.catch(() => undefined);
        return s;
      },
      () => undefined,
    );
    const settled = (s: Opened | undefined) => s?.opened.then(noop, noop);
    this.sent = Promise.race([loginSent, this.pending.then(settled)]);
  }

  /**
   * Resolves once the head start has nothing more to send before the appliance's answer to the
   * login: its login frame is written, or the open settled, or nothing was opened. Waits at most
   * `capMs`, in case the target never answers and the command turns out not to take it.
   */
  async loginUnderWay(capMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.sent, new Promise((resolve) => (timer = setTimeout(resolve, capMs)))]);
    clearTimeout(timer);
  }

  /**
   * The transport opened ahead for exactly this target and timeout, if any: the command then
   * continues with it as if it had opened it itself, its failure included. One opened for anything
   * else is closed, unused. Taken once.
   */
  async take(spec: TargetSpec, timeoutSeconds: number): Promise<Promise<Transport> | undefined> {
    const started = await this.pending;
    this.pending = undefined;
    if (!started) return undefined;
    if (started.key === specKey(spec, timeoutSeconds)) return started.opened;
    await closeQuietly(started.opened);
    return undefined;
  }

  /**
   * Closes a head start no command took. False when it is still opening (a host that does not
   * answer): the caller then need not wait for its timeout.
   */
  async drop(): Promise<boolean> {
    const started = await this.pending;
    this.pending = undefined;
    if (!started) return true;
    const settled = await Promise.race([
      started.opened.then(
        () => true,
        () => true,
      ),
      new Promise<false>((r) => setImmediate(() => r(false))),
    ]);
    if (!settled) return false;
    await closeQuietly(started.opened);
    return true;
  }
}

function noop(): void {}

async function closeQuietly(opened: Promise<Transport>): Promise<void> {
  const transport = await opened.catch(() => undefined);
  await transport?.close();
}
