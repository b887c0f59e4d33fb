import { traced, type TraceSink } from '../transport/trace.js';
import type { RemoteTransport } from '../transport/remote.js';
import type { DownloadRequest, TargetInfo, Transport, UploadRequest } from '../transport/transport.js';
import type { PooledTarget } from './opener.js';
import type { Connector, PooledSession } from './pooled-session.js';

/**
 * Methods that change the state of the connection itself, not of the appliance: who it is logged
 * in as (auth.login*, auth.logout), what it may do (26's privilege.become_readonly rewrites the
 * session's own allowlist and privilege, MW/plugins/account_/privilege.py:488-505 at stable/26),
 * how it answers job methods (core.set_options' legacy_jobs, MW/service/core_service.py:693-705,
 * MW/api/base/server/method.py:59-63) and which events it is sent. On a shared connection they
 * would change it for every command using it, so a lease sends them, and everything after them,
 * on a connection of its own.
 */
const CONNECTION_STATE =
  /^(auth\.login|auth\.logout$|privilege\.become_readonly$|core\.set_options$|core\.(un)?subscribe$)/;

/**
 * A command's use of a pooled connection: calls go through the shared, logged-in connection (ids
 * are uuids, so commands never mix up their answers); close() ends the lease, not the connection.
 */
export class PoolLease implements Transport {
  readonly target: TargetInfo;
  private ended = false;
  /** The lease's own connection, once it sent a method that changes connection state. */
  private own: Promise<RemoteTransport> | undefined;

  /**
   * `ownTarget` is the command's own target: the session's key, URL and TLS settings (poolKey), but its
   * own profile name, which the pool does not key on, so the command is told the profile it chose.
   */
  constructor(
    private readonly session: PooledSession,
    private readonly connector: Connector,
    private readonly timeoutSeconds: number,
    private readonly trace?: TraceSink,
    private readonly ownTarget: PooledTarget = session.target,
  ) {
    const t = ownTarget;
    this.target = { kind: 'remote', url: t.endpoint.display, ...(t.profile ? { profile: t.profile } : {}) };
    session.leases++;
  }

  call<T = unknown>(method: string, params: readonly unknown[] = []): Promise<T> {
    return traced(this.trace, method, async () => {
      if (this.own === undefined && CONNECTION_STATE.test(method)) {
        this.trace?.(`${method} changes the connection's state: this command continues on a connection of its own`);
        // The session's login strategy: a connection of its own is no way around a SCRAM appliance's withheld key.
        this.own = this.connector(this.ownTarget, this.timeoutSeconds, this.session.login);
      }
      if (this.own) return (await this.own).call<T>(method, params, this.timeoutSeconds);
      return this.session.call<T>(method, params, this.timeoutSeconds);
    });
  }

  /** The session's connection, while this lease's calls go through it (not one of its own). */
  sharedConnection(): object | undefined {
    return this.own === undefined && !this.ended ? this.session.connectionNow : undefined;
  }

  /**
   * Through the shared connection, with a single-use token (RemoteOptions.pooled): no login, no
   * hash of the key. Bounded by this command's --timeout, not that of the command that opened it.
   */
  upload(request: UploadRequest): Promise<{ jobId: number }> {
    return this.transfer((conn) => conn.upload(request, this.timeoutSeconds));
  }

  /** core.download's URL carries its own token; the GET needs nothing of the key. Bounded by this command's --timeout. */
  download(request: DownloadRequest): Promise<{ jobId: number; bytes: number }> {
    return this.transfer((conn) => conn.download(request, this.timeoutSeconds));
  }

  private async transfer<T>(work: (conn: RemoteTransport) => Promise<T>): Promise<T> {
    if (this.own) return work(await this.own);
    return this.session.transfer(this.timeoutSeconds, work);
  }

  async close(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.session.lastUsed = Date.now();
    this.session.release();
    const own = this.own;
    this.own = undefined;
    await (await own?.catch(() => undefined))?.close();
  }
}
