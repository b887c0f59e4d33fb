import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import type { Agent } from 'undici';
import { ERRNO, RpcError, StorError } from '../errors.js';
import { assertSecretMayTravel, type Endpoint } from './endpoint.js';
import { loginError } from './login.js';
import { bearerKey, type LoginStrategy } from './login-strategies.js';
import { networkError, notAnAppliance, timedOut } from './network-errors.js';
import type { TargetInfo, Transport, UploadRequest } from './transport.js';

export interface TlsOptions {
  /** Skip certificate verification (self-signed appliances). */
  insecure?: boolean;
  /** PEM of the CA that signed the appliance's certificate. */
  ca?: string | Buffer;
}

export interface RemoteOptions extends TlsOptions {
  endpoint: Endpoint;
  /** How the session logs in: an API key (`apiKeyLogin`) or a password (`passwordLogin`). */
  login: LoginStrategy;
  /** Seconds allowed for connecting and for each call. */
  timeoutSeconds: number;
  profile?: string;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * A JSON-RPC session over one WebSocket to `{base}/api/current`, logged in by its login strategy. Calls carry uuid ids and may be answered in any order;
 * server notifications (`collection_update`) are re-emitted as `notification` events.
 */
export class RemoteTransport extends EventEmitter<{ notification: [method: string, params: unknown] }> implements Transport {
  readonly target: TargetInfo;
  private readonly pending = new Map<string, Pending>();
  private closedError: StorError | undefined;
  private agent: Agent | undefined;
  private newStyleJobs = false;

  private constructor(
    private readonly ws: WebSocket,
    private readonly options: RemoteOptions,
  ) {
    super();
    this.target = { kind: 'remote', url: options.endpoint.display, ...(options.profile ? { profile: options.profile } : {}) };
    ws.on('message', (data) => this.onMessage(data.toString()));
    ws.on('close', (code, reason) => {
      this.closedError ??= new StorError(
        'unreachable',
        'CONNECTION_CLOSED',
        `the connection to ${options.endpoint.display} closed (code ${code}${reason.length ? `: ${reason.toString()}` : ''})`,
      );
      for (const p of this.pending.values()) {
        clearTimeout(p.timer);
        p.reject(this.closedError);
      }
      this.pending.clear();
    });
    ws.on('error', () => undefined);
  }

  static async open(options: RemoteOptions): Promise<RemoteTransport> {
    assertSecretMayTravel(options.endpoint, options.login.secret);
    const ws = await connect(options);
    const transport = new RemoteTransport(ws, options);
    try {
      await options.login.login((method, params) => transport.loginCall(method, params), options.endpoint.display);
      return transport;
    } catch (err) {
      await transport.close();
      throw err;
    }
  }

  /**
   * Appliances allow 20 anonymous login calls a minute per client address; a busy runbook can
   * trip that. Back off (with jitter) and retry until --timeout runs out, as the Terraform
   * provider does, instead of failing the command.
   */
  private async loginCall<T>(method: string, params: readonly unknown[]): Promise<T> {
    const deadline = Date.now() + this.options.timeoutSeconds * 1000;
    for (let delay = 1000; ; delay = Math.min(delay * 2, 8000)) {
      try {
        return await this.call<T>(method, params);
      } catch (err) {
        const busy = err instanceof RpcError && err.errno === ERRNO.EBUSY;
        const wait = delay + Math.floor(Math.random() * 250);
        if (!busy || Date.now() + wait > deadline) {
          if (busy) {
            throw new StorError('unreachable', 'RATE_LIMITED', `${this.options.endpoint.display} is rate-limiting logins from this address (${err.reason})`, {
              hint: 'appliances allow 20 logins a minute per address: space out invocations, or raise --timeout to wait longer',
            });
          }
          throw loginError(err);
        }
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  private onMessage(text: string): void {
    let msg: { id?: unknown; result?: unknown; error?: unknown; method?: string; params?: unknown };
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof msg.id === 'string' && this.pending.has(msg.id)) {
      const p = this.pending.get(msg.id)!;
      this.pending.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.error !== undefined) p.reject(RpcError.fromWire(msg.error));
      else p.resolve(msg.result);
    } else if (msg.id === undefined && typeof msg.method === 'string') {
      this.emit('notification', msg.method, msg.params);
    }
  }

  call<T>(method: string, params: readonly unknown[] = [], timeoutSeconds: number | null = this.options.timeoutSeconds): Promise<T> {
    if (this.closedError) return Promise.reject(this.closedError);
    const id = randomUUID();
    return new Promise<T>((resolve, reject) => {
      const timer =
        timeoutSeconds === null
          ? undefined
          : setTimeout(() => {
              this.pending.delete(id);
              reject(timedOut(this.options.endpoint.display, method, timeoutSeconds));
            }, timeoutSeconds * 1000);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }), (err) => {
        if (err) {
          clearTimeout(timer);
          this.pending.delete(id);
          reject(networkError(err, this.options.endpoint.display, this.options.timeoutSeconds));
        }
      });
    });
  }

  async upload(req: UploadRequest): Promise<{ jobId: number }> {
    // Loaded here: undici and form-data are a large share of start-up, and most commands never upload.
    const { postUpload, uploadAgent } = await import('./upload-client.js');
    this.agent ??= uploadAgent(this.options, this.options.timeoutSeconds);
    const jobId = await postUpload(this.options.endpoint, bearerKey(this.options.login, this.options.endpoint.display), this.agent, req, this.options.timeoutSeconds);
    // The job may still be fsyncing and renaming; wait for it, however long it takes. As midclt
    // does, new-style jobs make `core.job_wait` answer when the job ends, with its outcome.
    if (!this.newStyleJobs) {
      await this.call('core.set_options', [{ legacy_jobs: false }]);
      this.newStyleJobs = true;
    }
    await this.call('core.job_wait', [jobId], null);
    return { jobId };
  }

  async close(): Promise<void> {
    await this.agent?.close();
    if (this.ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        this.ws.terminate();
        resolve();
      }, 1000);
      t.unref();
      this.ws.once('close', () => {
        clearTimeout(t);
        resolve();
      });
      this.ws.close(1000);
    });
  }
}

function connect(options: RemoteOptions): Promise<WebSocket> {
  const where = options.endpoint.display;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(options.endpoint.rpcWs, {
      handshakeTimeout: options.timeoutSeconds * 1000,
      rejectUnauthorized: !options.insecure,
      ...(options.ca ? { ca: options.ca } : {}),
      maxPayload: 64 * 1024 * 1024,
    });
    const fail = (err: StorError) => {
      ws.removeAllListeners();
      ws.on('error', () => undefined);
      ws.terminate();
      reject(err);
    };
    ws.once('open', () => {
      ws.removeAllListeners();
      resolve(ws);
    });
    ws.once('unexpected-response', (_req, res) => fail(notAnAppliance(where, res.statusCode ?? 0)));
    ws.once('error', (err) =>
      fail(/handshake has timed out/i.test(err.message) ? timedOut(where, 'the WebSocket handshake', options.timeoutSeconds) : networkError(err, where, options.timeoutSeconds)),
    );
  });
}
