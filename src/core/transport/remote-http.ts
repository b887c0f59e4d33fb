import type { Agent } from 'undici';
import { requestOn } from './http-request.js';
import { notAnApplianceAnswer } from '../contract/answer-error.js';
import { jsonNestedDeeperThan, MAX_ANSWER_DEPTH } from '../rpc/json-depth.js';
import { boundedText, MAX_ANSWER_BYTES } from './bounded-body.js';
import { ERRNO, RpcError } from '../errors.js';
import { assertSecretMayTravel } from './endpoint.js';
import { loginError, loginRejected } from './login.js';
import { networkError, notAnAppliance, rateLimited, timedOut } from './network-errors.js';
import { bearerKey } from './login-strategies.js';
import type { RemoteOptions } from './remote.js';
import { elapsed, traced } from './trace.js';
import { getDownload } from './download-client.js';
import type { DownloadRequest, TargetInfo, Transport, UploadRequest } from './transport.js';
import { postUpload, uploadAgent } from './upload-client.js';

/**
 * JSON-RPC over `POST /api/current`, the key as a bearer credential on every request (the
 * seed's form; `--rpc http`). Each request is composed and authorized on its own.
 */
export class HttpRpcTransport implements Transport {
  readonly target: TargetInfo;
  private nextId = 1;

  private constructor(
    private readonly options: RemoteOptions,
    private readonly agent: Agent,
  ) {
    this.target = {
      kind: 'remote',
      url: options.endpoint.display,
      ...(options.profile ? { profile: options.profile } : {}),
    };
  }

  static async open(options: RemoteOptions): Promise<HttpRpcTransport> {
    assertSecretMayTravel(options.endpoint, options.login.secret);
    // The upload agent (the same TLS settings and connect timeout): its sockets give the upload's
    // file buffers back to their ring once written, which a plain Agent's do not (upload-client.ts).
    const agent = uploadAgent(options, options.timeoutSeconds);
    const transport = new HttpRpcTransport(options, agent);
    try {
      // Nothing logs in over HTTP; an authenticated call proves the key instead.
      await transport.call('auth.me').catch((err: unknown) => {
        if (err instanceof RpcError && err.errno === ERRNO.ENOTAUTHENTICATED)
          throw loginRejected(options.endpoint.display, options.login.apiKey);
        throw loginError(err);
      });
      return transport;
    } catch (err) {
      await transport.close();
      throw err;
    }
  }

  call<T>(method: string, params: readonly unknown[] = []): Promise<T> {
    return traced(this.options.trace, method, () => this.post<T>(method, params));
  }

  private async post<T>(method: string, params: readonly unknown[]): Promise<T> {
    const where = this.options.endpoint.display;
    const seconds = this.options.timeoutSeconds;
    const startedAt = performance.now();
    let res;
    try {
      res = await requestOn(this.agent, this.options.endpoint.rpcHttp, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${bearerKey(this.options.login, this.options.endpoint.display)}`,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params }),
        headersTimeout: seconds * 1000,
        bodyTimeout: seconds * 1000,
      });
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') throw timedOut(where, method, seconds);
      throw networkError(err, where, startedAt);
    }
    const { text, cut } = await boundedText(res.body, MAX_ANSWER_BYTES);
    if (res.statusCode === 429) throw rateLimited(where, `calls (${method})`, text.trim());
    if (res.statusCode !== 200) throw notAnAppliance(where, res.statusCode);
    if (cut)
      throw notAnApplianceAnswer(
        method,
        `${where} answered ${method} with more than ${MAX_ANSWER_BYTES} bytes, which no appliance sends`,
      );
    if (jsonNestedDeeperThan(text, MAX_ANSWER_DEPTH)) {
      throw notAnApplianceAnswer(
        method,
        `${where} answered ${method} with JSON nested more than ${MAX_ANSWER_DEPTH} deep, which no appliance sends`,
      );
    }
    let msg: { result?: unknown; error?: unknown } | null;
    try {
      msg = JSON.parse(text);
    } catch {
      msg = null;
    }
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) {
      throw notAnApplianceAnswer(
        method,
        `${where} answered ${method} with something that is not JSON-RPC 2.0: ${JSON.stringify(text.slice(0, 80))}`,
      );
    }
    if (msg.error !== undefined) throw RpcError.fromWire(msg.error);
    return msg.result as T;
  }

  /** Each HTTP call is its own session, with nothing to be told the job ended on: the job is polled. */
  async upload(req: UploadRequest): Promise<{ jobId: number }> {
    const trace = this.options.trace;
    const startedAt = performance.now();
    trace?.(
      `upload ${req.file} to ${req.path}: ${req.size} bytes, POST ${new URL('_upload/', this.options.endpoint.base).href}`,
    );
    const jobId = await postUpload(
      this.options.endpoint,
      `Bearer ${bearerKey(this.options.login, this.options.endpoint.display)}`,
      this.agent,
      req,
      this.options.timeoutSeconds,
    );
    trace?.(`upload to ${req.path}: sent in ${elapsed(startedAt)}; polling job ${jobId}`);
    // Loaded when first used, as remote.ts does: they bring zod and the contract (answer-error.ts).
    const { awaitJob } = await import('./job-wait.js');
    await awaitJob(this, jobId, this.options.timeoutSeconds);
    trace?.(`upload to ${req.path}: job ${jobId} done after ${elapsed(startedAt)}`);
    return { jobId };
  }

  /** core.download, the GET of its URL, then the job polled for its outcome. */
  async download(req: DownloadRequest): Promise<{ jobId: number; bytes: number }> {
    const { endpoint, timeoutSeconds } = this.options;
    const { downloadFile } = await import('./download-flow.js');
    return downloadFile(
      {
        rpc: this,
        jobs: this,
        timeoutSeconds,
        fetch: (jobId, url, counter, sink) =>
          getDownload(endpoint, this.agent, url, jobId, counter, sink, timeoutSeconds),
      },
      req,
    );
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
