import { randomUUID } from './light-crypto.js';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import WebSocket from 'ws';
import type { Agent } from 'undici';
import { notAnApplianceAnswer } from '../contract/answer-error.js';
import { jsonNestedDeeperThan, MAX_ANSWER_DEPTH } from '../rpc/json-depth.js';
import { ERRNO, RPC_CODE, RpcError, StorError } from '../errors.js';
import { E } from '../error-catalogue.js';
import { assertSecretMayTravel, type Endpoint } from './endpoint.js';
import { loginError } from './login.js';
import { bearerKey, type LoginLink, type LoginStrategy } from './login-strategies.js';
import { apiNotServed, networkError, notAnAppliance, rateLimited, timedOut } from './network-errors.js';
import { elapsed, traced, type TraceSink } from './trace.js';
import type { DownloadWay } from './download-flow.js';
import type { DownloadRequest, TargetInfo, Transport, UploadRequest } from './transport.js';

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
  /** Seconds between WebSocket pings that keep an idle connection open; 0 sends none. Default 20. */
  keepaliveSeconds?: number;
  profile?: string;
  trace?: TraceSink;
  /**
   * For a connection shared by many commands (the session pool): every upload goes with a fresh
   * single-use token from the session (`auth.generate_token`), never with the key, so an upload
   * makes no login and no hash check of the key; and a keepalive ping whose pong has not come back
   * by the next ping ends the socket, so that a dead link is noticed and replaced on next use.
   */
  pooled?: boolean;
  /**
   * Told once, when the first frame of the login proper (any login call but the question
   * `auth.mechanism_choices`) has been written to the socket: from then on the login only waits
   * for the appliance's check of the credential. The head start (commands/startup/early-target.ts)
   * loads the CLI then, so that its loading runs during that check rather than before the login.
   */
  onLoginSent?: () => void;
}

/** Well inside the 60 s after which the appliance's proxy drops a silent WebSocket. */
const KEEPALIVE_SECONDS = 20;
/** auth.generate_token's TTL for upload tokens, and the age at which a new one is asked for. */
const UPLOAD_TOKEN_TTL_S = 600;
const UPLOAD_TOKEN_RENEW_MS = 300_000;
/** A pooled connection's one-upload token: used within moments of being issued. */
const SINGLE_USE_TOKEN_TTL_S = 60;

/**
 * Calls in flight on one connection at most. The appliance runs ten of a socket's calls at once,
 * queues ten more, and answers any call beyond those at once with -32000 "Maximum number of
 * concurrent calls (20) has exceeded" (SoftHardSemaphore(10, 20), MW/api/base/server/ws_handler/rpc.py:47,
 * 359-364). Many commands may share one connection (the session agent pools a fleet's targets that
 * name one appliance with one key), so the calls past this wait here for a slot instead.
 */
const MAX_CALLS_IN_FLIGHT = 20;

/** Times one upload may log in again while it waits for its job. */
const MAX_RECONNECTS = 5;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * A JSON-RPC session over one WebSocket to `{base}/api/current`, logged in by its login strategy. Calls carry uuid ids and may be answered in any order;
 * server notifications (`collection_update`) are re-emitted as `notification` events.
 */
export class RemoteTransport
  extends EventEmitter<{ notification: [method: string, params: unknown] }>
  implements Transport
{
  readonly target: TargetInfo;
  private readonly pending = new Map<string, Pending>();
  private ws!: WebSocket;
  private closedError: StorError | undefined;
  private keepalive: NodeJS.Timeout | undefined;
  /** HTTP agents for uploads and downloads, one per timeout (a pooled connection serves commands of several). */
  private readonly agents = new Map<number, Agent>();
  /** Slots for calls (MAX_CALLS_IN_FLIGHT) not taken, and the calls waiting for one, in order. */
  private freeSlots = MAX_CALLS_IN_FLIGHT;
  private readonly slotWaiters: (() => void)[] = [];
  /** Upload credentials: none asked yet, a token and when it was issued, or refused. */
  private tokens: { issued: number; token: Promise<string> } | 'refused' | undefined;
  private newStyleJobs = false;
  /** The socket on which `core.get_jobs` events were subscribed to (jobEvent), if any. */
  private jobEventsOn: WebSocket | undefined;
  /** Waits for jobs' ends (jobEvent), by job id: each told every state its job's events carry. */
  private readonly jobEnds = new Map<number, (state: unknown) => void>();
  /** Set by close(): a socket lost from then on is not to be replaced. */
  private closing = false;
  /** The socket is corked until the next tick (corkForTick). */
  private corked = false;
  /** RemoteOptions.onLoginSent, until it is told. */
  private loginSent: (() => void) | undefined;

  private constructor(
    ws: WebSocket,
    private readonly options: RemoteOptions,
  ) {
    super();
    this.loginSent = options.onLoginSent;
    this.target = {
      kind: 'remote',
      url: options.endpoint.display,
      ...(options.profile ? { profile: options.profile } : {}),
    };
    this.attach(ws);
  }

  /** Makes `ws` the session's socket; a reconnect attaches a fresh one. */
  private attach(ws: WebSocket): void {
    this.ws = ws;
    this.closedError = undefined;
    // The appliance's proxy drops a WebSocket on which the server has sent nothing for 60 s, and the
    // server sends nothing of its own accord (MW/etc_files/local/nginx/nginx.conf.mako:242-255 sets no proxy_read_timeout). A ping makes it answer with a pong.
    const seconds = this.options.keepaliveSeconds ?? KEEPALIVE_SECONDS;
    let awaitingPong = false;
    if (this.options.pooled) ws.on('pong', () => (awaitingPong = false));
    const keepalive =
      seconds > 0
        ? setInterval(() => {
            if (ws.readyState !== WebSocket.OPEN) return;
            if (this.options.pooled && awaitingPong) {
              ws.terminate();
              return;
            }
            awaitingPong = true;
            ws.ping();
          }, seconds * 1000).unref()
        : undefined;
    this.keepalive = keepalive;
    ws.on('message', (data) => {
      if (this.ws === ws) this.onMessage(data.toString());
    });
    ws.on('close', (code, reason) => {
      clearInterval(keepalive);
      if (this.ws !== ws) return; // a socket already replaced by a reconnect
      this.closedError ??= new StorError(
        E.CONNECTION_CLOSED,
        `the connection to ${this.options.endpoint.display} closed (code ${code}${reason.length ? `: ${reason.toString()}` : ''})`,
      );
      for (const p of this.pending.values()) {
        clearTimeout(p.timer);
        p.reject(this.closedError);
      }
      this.pending.clear();
    });
    ws.on('error', () => undefined);
  }

  /** A new socket and a new login after the old socket was lost; calls in flight on it have failed. */
  private async reconnect(attempt: number): Promise<void> {
    this.options.trace?.(
      `connection to ${this.options.endpoint.display} lost; reconnecting (${attempt} of ${MAX_RECONNECTS})`,
    );
    const old = this.ws;
    const fresh = await connect(this.options);
    old.terminate();
    this.attach(fresh);
    this.newStyleJobs = false;
    await this.options.login.login(
      (method, params) => this.loginCall(method, params),
      this.options.endpoint.display,
      this.link(),
    );
  }

  /** The connection as a login sees it: the server's certificate (SCRAM channel binding) and `-v`. */
  private link(): LoginLink {
    return {
      peerCertificate: () => {
        return socketOf(this.ws)?.getPeerX509Certificate?.()?.raw ?? null;
      },
      trace: this.options.trace,
    };
  }

  /** Whether `err` says the socket is gone (as opposed to an answer, or a timeout on a live socket). */
  private lost(err: unknown): boolean {
    const answered = err instanceof StorError && (err.code === E.TIMEOUT.code || err.code === E.MALFORMED_ANSWER.code);
    return (
      !this.closing &&
      !answered &&
      err instanceof StorError &&
      err.kind === 'unreachable' &&
      this.ws.readyState !== WebSocket.OPEN
    );
  }

  /** Whether calls can still go out on this connection: its socket is open and was not closed by us. */
  get usable(): boolean {
    return !this.closing && this.closedError === undefined && this.ws.readyState === WebSocket.OPEN;
  }

  static async open(options: RemoteOptions): Promise<RemoteTransport> {
    assertSecretMayTravel(options.endpoint, options.login.secret);
    const ws = await connect(options);
    const transport = new RemoteTransport(ws, options);
    try {
      await options.login.login(
        (method, params) => transport.loginCall(method, params),
        options.endpoint.display,
        transport.link(),
      );
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
    // A question asked before logging in; what follows it is the login itself.
    const written = method === 'auth.mechanism_choices' ? undefined : this.loginSent;
    if (written) this.loginSent = undefined;
    for (let delay = 1000; ; delay = Math.min(delay * 2, 8000)) {
      try {
        const timeout = this.options.timeoutSeconds;
        return await traced(this.options.trace, method, () => this.send<T>(method, params, timeout, written));
      } catch (err) {
        const busy = err instanceof RpcError && err.errno === ERRNO.EBUSY;
        const wait = delay + Math.floor(Math.random() * 250);
        if (!busy || Date.now() + wait > deadline) {
          if (busy) {
            throw new StorError(
              E.RATE_LIMITED,
              `${this.options.endpoint.display} is rate-limiting logins from this address (${err.reason})`,
              {
                hint: 'appliances allow 20 login calls a minute per address (a 26.0 key login is two): space out invocations, use the session agent, or raise --timeout to wait longer',
              },
            );
          }
          throw loginError(err);
        }
        this.options.trace?.(`${method}: the appliance is limiting logins (EBUSY); retrying in ${wait} ms`);
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  private onMessage(text: string): void {
    if (jsonNestedDeeperThan(text, MAX_ANSWER_DEPTH)) {
      this.closedError = notAnApplianceAnswer(
        undefined,
        `${this.options.endpoint.display} sent a frame nested more than ${MAX_ANSWER_DEPTH} deep, which no appliance sends`,
      );
      this.ws.terminate();
      return;
    }
    let msg: { id?: unknown; result?: unknown; error?: unknown; method?: string; params?: unknown } | null | undefined;
    try {
      msg = JSON.parse(text);
    } catch {
      msg = undefined;
    }
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) {
      // Which call it was meant to answer cannot be told: the session cannot go on.
      this.closedError = notAnApplianceAnswer(
        undefined,
        `${this.options.endpoint.display} sent a frame that is not JSON-RPC 2.0: ${JSON.stringify(text.slice(0, 80))}`,
      );
      this.ws.terminate();
      return;
    }
    if (typeof msg.id === 'string' && this.pending.has(msg.id)) {
      const p = this.pending.get(msg.id)!;
      this.pending.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.error !== undefined) p.reject(RpcError.fromWire(msg.error));
      else p.resolve(msg.result);
    } else if (msg.id === undefined && typeof msg.method === 'string') {
      if (msg.method === 'collection_update' && this.jobEnds.size > 0) {
        const update = msg.params as { collection?: unknown; id?: unknown; fields?: { state?: unknown } } | null;
        if (update?.collection === 'core.get_jobs' && typeof update.id === 'number')
          this.jobEnds.get(update.id)?.(update.fields?.state);
      }
      this.emit('notification', msg.method, msg.params);
    }
  }

  call<T>(
    method: string,
    params: readonly unknown[] = [],
    timeoutSeconds: number | null = this.options.timeoutSeconds,
  ): Promise<T> {
    return traced(this.options.trace, method, () => this.send<T>(method, params, timeoutSeconds));
  }

  /**
   * `written`: told once the call's frame is in the socket (the ws library's send callback). A call
   * holds one of the connection's slots (MAX_CALLS_IN_FLIGHT) from its send to its answer, time-out
   * or failure; one that finds none free waits for one, and its --timeout counts from its send.
   */
  private send<T>(
    method: string,
    params: readonly unknown[],
    timeoutSeconds: number | null,
    written?: () => void,
  ): Promise<T> {
    if (this.closedError) return Promise.reject(this.closedError);
    if (this.freeSlots === 0)
      return new Promise<void>((slot) => this.slotWaiters.push(slot)).then(() =>
        this.sendInSlot<T>(method, params, timeoutSeconds, written),
      );
    this.freeSlots--;
    return this.sendInSlot<T>(method, params, timeoutSeconds, written);
  }

  /** Hands the slot a settled call held to the next call waiting, or frees it. */
  private readonly releaseSlot = (): void => {
    const next = this.slotWaiters.shift();
    if (next) next();
    else this.freeSlots++;
  };

  private sendInSlot<T>(
    method: string,
    params: readonly unknown[],
    timeoutSeconds: number | null,
    written?: () => void,
  ): Promise<T> {
    const call = this.closedError
      ? Promise.reject<T>(this.closedError)
      : this.write<T>(method, params, timeoutSeconds, written);
    call.then(this.releaseSlot, this.releaseSlot);
    return call;
  }

  private write<T>(
    method: string,
    params: readonly unknown[],
    timeoutSeconds: number | null,
    written?: () => void,
  ): Promise<T> {
    const id = randomUUID();
    const startedAt = performance.now();
    return new Promise<T>((resolve, reject) => {
      const timer =
        timeoutSeconds === null
          ? undefined
          : setTimeout(() => {
              this.pending.delete(id);
              reject(timedOut(this.options.endpoint.display, method, timeoutSeconds));
            }, timeoutSeconds * 1000);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.corkForTick();
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }), (err) => {
        if (err) {
          clearTimeout(timer);
          this.pending.delete(id);
          reject(networkError(err, this.options.endpoint.display, startedAt));
        } else written?.();
      });
    });
  }

  /**
   * Calls made in one tick leave in one write: a fan-out's pipelined calls on each target's
   * connection then cost the agent one syscall and the appliance one wake-up, not one per frame
   * (bench/HISTORY.md, 2026-11-26: sending was ≈20% of the agent's busy time in a fleet run).
   * ws 8 corks its socket itself for a frame's two parts.
   */
  private corkForTick(): void {
    const socket = socketOf(this.ws);
    if (this.corked || !socket) return;
    this.corked = true;
    socket.cork();
    process.nextTick(() => {
      this.corked = false;
      socket.uncork();
    });
  }

  /**
   * `timeoutSeconds`: the command's own --timeout, when it is not the connection's (a pooled
   * connection serves commands of several); it bounds the POST, the job's wait and their calls.
   */
  async upload(req: UploadRequest, timeoutSeconds: number = this.options.timeoutSeconds): Promise<{ jobId: number }> {
    // Loaded here: undici is a large share of start-up, and most commands never upload.
    const { postUpload, uploadAgent } = await import('./upload-client.js');
    const agent = this.agentFor(timeoutSeconds, uploadAgent);
    const trace = this.options.trace;
    const startedAt = performance.now();
    trace?.(
      `upload ${req.file} to ${req.path}: ${req.size} bytes, POST ${new URL('_upload/', this.options.endpoint.base).href}`,
    );
    // A session that met SCRAM never sends its key (bearerKey refuses): each upload takes a single-use token.
    const withheld = this.options.login.keyWithheld === true;
    const bearer = withheld ? undefined : `Bearer ${bearerKey(this.options.login, this.options.endpoint.display)}`;
    const token = withheld ? await this.singleUseToken(timeoutSeconds) : await this.uploadToken(timeoutSeconds);
    let jobId: number;
    try {
      jobId = await postUpload(
        this.options.endpoint,
        token ? `Token ${token}` : (bearer ?? `Bearer ${bearerKey(this.options.login, this.options.endpoint.display)}`),
        agent,
        req,
        timeoutSeconds,
      );
    } catch (err) {
      // A token the endpoint will not take (another address on the way, say): the key, from now on,
      // and its answer is the one to report. Never for a session that met SCRAM.
      if (!(
        token &&
        bearer &&
        err instanceof StorError &&
        (err.code === E.UPLOAD_FORBIDDEN.code || err.code === E.UPLOAD_UNAUTHORIZED.code)
      ))
        throw err;
      trace?.(`upload to ${req.path}: the session's token was refused; sending with the API key`);
      this.tokens = 'refused';
      jobId = await postUpload(this.options.endpoint, bearer, agent, req, timeoutSeconds);
    }
    trace?.(`upload to ${req.path}: sent in ${elapsed(startedAt)}; waiting for job ${jobId}`);
    // The job may still be fsyncing and renaming; wait for it for as long as it moves. Should the
    // socket have been lost meanwhile, log in again: a job that ended while it was down is still
    // listed by core.get_jobs.
    let reconnects = 0;
    // The job's wait and its polling lose the socket together: one reconnect serves both.
    let reconnecting: Promise<void> | undefined;
    const retrying = async <T>(attempt: () => Promise<T>): Promise<T> => {
      for (;;) {
        try {
          return await attempt();
        } catch (err) {
          if (!this.lost(err) || (!reconnecting && reconnects >= MAX_RECONNECTS)) throw err;
          if (!reconnecting) {
            reconnects++;
            reconnecting = this.reconnect(reconnects).finally(() => (reconnecting = undefined));
          }
          await reconnecting;
        }
      }
    };
    const { awaitJob } = await import('./job-wait.js');
    await awaitJob(
      {
        call: (method, params) => retrying(() => this.call(method, params, timeoutSeconds)),
        ended: this.options.pooled
          ? (id: number, done: AbortSignal) => this.jobEvent(id, done)
          : (id: number) => retrying(() => this.jobWait(id)),
      },
      jobId,
      timeoutSeconds,
    );
    trace?.(`upload to ${req.path}: job ${jobId} done after ${elapsed(startedAt)}`);
    return { jobId };
  }

  /**
   * The credential for this session's uploads: a token from auth.generate_token, asked at the first
   * upload and renewed well before its TTL. The key would cost the appliance a slow hash check at
   * every upload (25.10.x hands `Bearer` to PAM, whose API key hashes are PBKDF2-SHA512 at 500,000
   * rounds: MW/plugins/api_key.py:364-382, MW/utils/crypto.py:84-94) and send the key once more; a
   * token is a lookup, for one call more on a socket already open. Undefined (the upload goes with
   * the key) when the session may not make one. Never traced: it is a credential.
   */
  private async uploadToken(timeoutSeconds: number): Promise<string | undefined> {
    if (this.options.pooled) return this.singleUseToken(timeoutSeconds);
    if (this.tokens === 'refused') return undefined;
    const now = Date.now();
    if (this.tokens === undefined || now - this.tokens.issued > UPLOAD_TOKEN_RENEW_MS) {
      // ttl, attrs (none: the endpoint refuses tokens with attrs), match_origin, single_use.
      this.tokens = {
        issued: now,
        token: import('../contract/client.js').then(({ call }) =>
          call(this.timed(timeoutSeconds), 'auth.generate_token', [UPLOAD_TOKEN_TTL_S, {}, true, false]),
        ),
      };
    }
    try {
      const token = await this.tokens.token;
      return typeof token === 'string' && token.length > 0 ? token : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * A pooled connection's upload credential: a token for this one upload. 25.10.1 takes a token on
   * /_upload/ only without attrs, from the address it was issued to (match_origin), and destroys a
   * single-use one at its first use (MW/plugins/auth.py:386-430, get_token_for_action
   * MW/plugins/auth.py:458-480, MW/restful.py:78-94). The ttl only needs to cover the POST's start.
   * Undefined when the session may not make one: the upload then goes with the key.
   */
  private async singleUseToken(timeoutSeconds: number): Promise<string | undefined> {
    try {
      const { call: contractCall } = await import('../contract/client.js');
      const token = await contractCall(this.timed(timeoutSeconds), 'auth.generate_token', [
        SINGLE_USE_TOKEN_TTL_S,
        {},
        true,
        true,
      ]);
      return typeof token === 'string' && token.length > 0 ? token : undefined;
    } catch {
      return undefined;
    }
  }

  /** This connection's calls, each given `timeoutSeconds` (a transfer's own --timeout). */
  private timed(timeoutSeconds: number): Pick<Transport, 'call'> {
    return { call: (method, params) => this.call(method, params, timeoutSeconds) };
  }

  private agentFor(timeoutSeconds: number, make: (tls: RemoteOptions, timeoutSeconds: number) => Agent): Agent {
    let agent = this.agents.get(timeoutSeconds);
    if (!agent) this.agents.set(timeoutSeconds, (agent = make(this.options, timeoutSeconds)));
    return agent;
  }

  /** core.download, the GET of its URL (TLS as for uploads), then `core.job_wait` for the job's outcome. */
  async download(
    req: DownloadRequest,
    timeoutSeconds: number = this.options.timeoutSeconds,
  ): Promise<{ jobId: number; bytes: number }> {
    const rpc = this.timed(timeoutSeconds);
    const fetch: DownloadWay['fetch'] = async (jobId, url, counter, sink) => {
      const [{ getDownload }, { uploadAgent }] = await Promise.all([
        import('./download-client.js'),
        import('./upload-client.js'),
      ]);
      await getDownload(
        this.options.endpoint,
        this.agentFor(timeoutSeconds, uploadAgent),
        url,
        jobId,
        counter,
        sink,
        timeoutSeconds,
      );
    };
    const jobs = {
      ...rpc,
      ended: this.options.pooled
        ? (id: number, done: AbortSignal) => this.jobEvent(id, done)
        : (id: number) => this.jobWait(id),
    };
    const { downloadFile } = await import('./download-flow.js');
    return downloadFile({ rpc, jobs, timeoutSeconds, fetch }, req);
  }

  /**
   * As midclt does: new-style jobs make `core.job_wait` answer when the job ends, with its outcome.
   * Not on a pooled connection: legacy_jobs is the connection's, and other commands sharing it
   * expect a job method to answer with the job's id; there the job is polled (awaitJob).
   */
  private async jobWait(id: number): Promise<unknown> {
    if (!this.newStyleJobs) {
      await this.call('core.set_options', [{ legacy_jobs: false }]);
      this.newStyleJobs = true;
    }
    return this.call('core.job_wait', [id], null);
  }

  /**
   * A pooled connection's way to hear that job `id` ended without polling: the job's `core.get_jobs`
   * event (CHANGED with its state, MW/job.py:28-30, 400-411), on a subscription made once per socket.
   * Settles when the job succeeded (resolved) or failed (an RpcError: awaitJob reads the job's
   * entry for what failed); never when the event was missed (sent before the subscription, or on a
   * socket since lost): awaitJob's polling, which runs beside it, tells the end then.
   */
  private jobEvent(id: number, done: AbortSignal): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const stop = (): void => {
        this.jobEnds.delete(id);
        done.removeEventListener('abort', stop);
      };
      this.jobEnds.set(id, (state) => {
        if (state === 'SUCCESS') {
          stop();
          resolve(undefined);
        } else if (state === 'FAILED' || state === 'ABORTED') {
          stop();
          reject(new RpcError(RPC_CODE.CALL_ERROR, `job ${id} ${state}`));
        }
      });
      done.addEventListener('abort', stop);
      if (this.jobEventsOn !== this.ws) {
        this.jobEventsOn = this.ws;
        // Not subscribed after all (a session whose role may not, a lost socket): polling tells the end.
        this.call('core.subscribe', ['core.get_jobs']).catch(() => undefined);
      }
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.keepalive);
    await Promise.all([...this.agents.values()].map((a) => a.close()));
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
  const startedAt = performance.now();
  options.trace?.(`connecting to ${options.endpoint.rpcWs.href}`);
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(options.endpoint.rpcWs, {
      handshakeTimeout: options.timeoutSeconds * 1000,
      rejectUnauthorized: !options.insecure,
      ...(options.ca ? { ca: options.ca } : {}),
      maxPayload: 64 * 1024 * 1024,
    });
    const stop = () => {
      ws.removeAllListeners();
      ws.on('error', () => undefined);
      ws.terminate();
    };
    const fail = (err: StorError) => {
      stop();
      reject(err);
    };
    ws.once('open', () => {
      options.trace?.(`connected in ${elapsed(startedAt)}`);
      ws.removeAllListeners();
      resolve(ws);
    });
    ws.once('unexpected-response', (_req, res) => {
      if (res.statusCode === 429) return fail(rateLimited(where, 'connections', ''));
      if (res.statusCode !== 404) return fail(notAnAppliance(where, res.statusCode ?? 0));
      // No /api/current: ask what the server does serve, to tell an old appliance from something else.
      // Loaded only here, as uploads load theirs: the start-up path of every command stays without undici.
      stop();
      const seconds = Math.min(options.timeoutSeconds, 10);
      void Promise.all([import('./api-versions.js'), import('./upload-client.js')])
        .then(([{ apiVersions }, { uploadAgent }]) =>
          apiVersions(options.endpoint, uploadAgent(options, seconds), seconds),
        )
        .then(
          (versions) => reject(versions ? apiNotServed(where, versions) : notAnAppliance(where, 404)),
          () => reject(notAnAppliance(where, 404)),
        );
    });
    ws.once('error', (err) =>
      fail(
        /handshake has timed out/i.test(err.message)
          ? timedOut(where, 'the WebSocket handshake', options.timeoutSeconds)
          : networkError(err, where, startedAt),
      ),
    );
  });
}

/** The ws library's own socket (`_socket`, not in its types): a net.Socket, a TLSSocket on wss://. */
function socketOf(ws: WebSocket): (Socket & Partial<Pick<TLSSocket, 'getPeerX509Certificate'>>) | undefined {
  return (ws as unknown as { _socket?: Socket & Partial<Pick<TLSSocket, 'getPeerX509Certificate'>> })._socket;
}
