import type { Endpoint } from '../transport/endpoint.js';
import type { TraceSink } from '../transport/trace.js';
import type { Transport } from '../transport/transport.js';

/*
 * The hook through which a command run inside the session agent opens a remote target
 * (CommandSetting.sessions, src/commands/framework/context.ts). Here in core, so that the pool
 * (pool.ts) implements it without core importing commands.
 */

/** What the agent offers a command it runs: its pool of logged-in connections. */
export interface SessionOpener {
  open(target: PooledTarget, timeoutSeconds: number, trace?: TraceSink): Promise<Transport>;
  /**
   * Closes the sessions to `url` (Endpoint.display), or only those of the key whose SHA-256 is
   * `keyHash`; resolves with how many. What `logout` run inside the agent uses, rather than asking
   * the agent it runs in through its own socket.
   */
  close(url: string, keyHash?: string): Promise<number>;
  /**
   * Whether a connection for `target` is open and logged in now, so that a command on it opens
   * nothing: a `--targets` run does not count it against `--parallel` (src/commands/fleet/fan-out.ts).
   */
  isOpen?(target: PooledTarget): boolean;
}

/** A remote target as the pool keys it: where, with which key, under which TLS settings. */
export interface PooledTarget {
  endpoint: Endpoint;
  apiKey: string;
  /** The key's user, for SCRAM (TrueNAS 26). */
  username?: string;
  /** The appliance is known to speak SCRAM (its profile says so): the key is never sent itself. */
  scramOnly?: boolean;
  insecure: boolean;
  /** The CA bundle's PEM, already read and checked (readCa). */
  ca?: Buffer;
  profile?: string;
  keepaliveSeconds?: number;
}
