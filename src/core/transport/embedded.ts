import { createReadStream } from 'node:fs';
import { KEY_FILE, readSmallFile } from '../config/small-file.js';
import { join } from 'node:path';
import { pipeline, Transform, type Readable } from 'node:stream';
import { pipeline as pipelineAsync } from 'node:stream/promises';
import { Appliance } from '../appliance/appliance.js';
import type { Session } from '../appliance/session/session.js';
import { StorError } from '../errors.js';
import { E } from '../error-catalogue.js';
import { asRpcError, Dispatcher } from '../rpc/dispatcher.js';
import { ADMIN_KEY_FILE } from '../store/seed.js';
import { fileIdentity } from '../store/admin-key-binding.js';
import { loginWithOwnKeyFile, rememberOwnKeyFile } from '../appliance/session/admin-key-file.js';
import { awaitJob } from './job-wait.js';
import { loginError, loginRejected } from './login.js';
import { elapsed, traced, type TraceSink } from './trace.js';
import { downloadFile, type DownloadWay } from './download-flow.js';
import { putParams, type DownloadRequest, type TargetInfo, type Transport, type UploadRequest } from './transport.js';
import { authorizeUpload, UploadRefused } from '../appliance/jobs/upload.js';
import { uploadRefused } from './upload-errors.js';

export interface EmbeddedOptions {
  stateDir: string;
  /** The key to log in with; default: the administrator key the seed wrote to `<state>/admin.key`. */
  apiKey?: string;
  /** Seconds a job may go without moving before the wait for it gives up. */
  timeoutSeconds: number;
  trace?: TraceSink;
  /** Subscribes to SIGINT/SIGTERM (the process's IO); an upload under way then stops and cleans up. */
  onSignal?(handler: (signal: NodeJS.Signals) => void): () => void;
}

/**
 * An upload stopped by a signal. Its put failed before the rename, so the target is as it was and
 * the temporary file is gone; only when every byte was already read is the put left to finish.
 */
function interruptedBy(signal: NodeJS.Signals, path: string, written: boolean): StorError {
  const terminated = signal === 'SIGTERM';
  const message = written
    ? `interrupted by ${signal} as the upload to ${path} finished: it was written`
    : `interrupted by ${signal}; ${path} was not written, and nothing of it was left behind`;
  return new StorError(terminated ? E.TERMINATED : E.INTERRUPTED, message);
}

/** The administrator key the seed wrote, and the identity of the file it was read from. */
function readAdminKey(stateDir: string): { key: string; file: string } {
  const path = join(stateDir, ADMIN_KEY_FILE);
  try {
    const read = readSmallFile(path, KEY_FILE);
    return { key: read.data.toString('utf8').trim(), file: fileIdentity(read.stats) };
  } catch (err) {
    if (err instanceof StorError) throw err;
    throw new StorError(
      E.ADMIN_KEY_MISSING,
      `the embedded appliance's administrator key file ${path} is missing or unreadable`,
      {
        hint: 'restore the file, or log in with another key (STOR_API_KEY)',
      },
    );
  }
}

/**
 * The state's own key file, admitted without a second hash of its key when the state knows it as
 * that key's file (appliance/session/admin-key-file.ts says why that is enough); null when it does not, and
 * the real login decides. Errors are named as the login method's would be.
 */
function loginByOwnKeyFile(
  appliance: Appliance,
  session: Session,
  own: { key: string; file: string },
  trace: TraceSink | undefined,
): boolean | null {
  let outcome;
  try {
    outcome = loginWithOwnKeyFile(appliance, session, own.key, own.file);
  } catch (err) {
    throw loginError(asRpcError(err, appliance.store.mntDir), `TrueNAS ${appliance.release.versionShort}`);
  }
  if (outcome === null) {
    trace?.(`login: ${ADMIN_KEY_FILE} is not known as the state's own key file: checking its key's hash`);
    return null;
  }
  trace?.(
    `login: ${ADMIN_KEY_FILE} is the state's own key file: admitted without a second hash of its key (${outcome})`,
  );
  return outcome === 'SUCCESS';
}

/**
 * The emulated appliance in this process. Calls go through the same dispatcher as the network
 * server, so authorization and the 25.10.1 login defect behave the same on both targets. The
 * session is the one a key login gives: the state's own key file is admitted with a login's
 * checks minus the second hash (loginByOwnKeyFile); any other key makes a real
 * `auth.login_with_api_key`.
 */
export class EmbeddedTransport implements Transport {
  readonly target: TargetInfo;

  private constructor(
    private readonly appliance: Appliance,
    private readonly dispatcher: Dispatcher,
    private readonly session: Session,
    private readonly options: EmbeddedOptions,
  ) {
    this.target = { kind: 'embedded', stateDir: options.stateDir };
  }

  static async open(options: EmbeddedOptions): Promise<EmbeddedTransport> {
    const appliance = Appliance.open({ stateDir: options.stateDir });
    try {
      const dispatcher = new Dispatcher(appliance);
      const session = appliance.createSession({ transport: 'embedded', address: 'local', secure: true });
      const own = options.apiKey === undefined ? readAdminKey(options.stateDir) : null;
      const key = options.apiKey ?? own!.key;
      let ok: unknown = own ? loginByOwnKeyFile(appliance, session, own, options.trace) : null;
      if (ok === null) {
        ok = await traced(options.trace, 'auth.login_with_api_key', () =>
          dispatcher.call(session, 'auth.login_with_api_key', [key]),
        ).catch((err: unknown) => {
          throw loginError(err, `TrueNAS ${appliance.release.versionShort}`);
        });
        if (ok === true && own) rememberOwnKeyFile(appliance, session, own.file);
      }
      if (ok !== true) throw loginRejected('the embedded appliance', options.apiKey);
      return new EmbeddedTransport(appliance, dispatcher, session, options);
    } catch (err) {
      appliance.close();
      throw err;
    }
  }

  call<T>(method: string, params: readonly unknown[] = []): Promise<T> {
    return traced(this.options.trace, method, async () => {
      // The wire round trip a remote call makes, so both targets hand back plain JSON values.
      const result = await this.dispatcher.call(this.session, method, JSON.parse(JSON.stringify(params)) as unknown[]);
      return (result === undefined ? null : JSON.parse(JSON.stringify(result))) as T;
    });
  }

  /** The same gate and job as the upload endpoint, fed straight from the file: no HTTP in between. */
  async upload(req: UploadRequest): Promise<{ jobId: number }> {
    let start;
    try {
      start = authorizeUpload(this.appliance, this.session, { method: 'filesystem.put', params: putParams(req) });
    } catch (err) {
      if (err instanceof UploadRefused) throw uploadRefused('the embedded appliance', err.status, err.body);
      throw err;
    }
    const file = createReadStream(req.file, { highWaterMark: 1024 * 1024 });
    let source: Readable = file;
    if (req.onProgress) {
      // Count through a pass-through stage. A 'data' listener on the file itself would start it
      // flowing at once, and every chunk read before the job attaches its pipeline (after a few
      // awaits) would be lost: the target would be written short.
      const onProgress = req.onProgress;
      let read = 0;
      const counter = new Transform({
        readableHighWaterMark: 1024 * 1024,
        writableHighWaterMark: 1024 * 1024,
        transform(chunk: Buffer, _encoding, done) {
          read += chunk.length;
          onProgress(read);
          done(null, chunk);
        },
      });
      source = pipeline(file, counter, () => undefined);
    }
    const trace = this.options.trace;
    const startedAt = performance.now();
    trace?.(`upload ${req.file} to ${req.path}: ${req.size} bytes`);
    let ended = false;
    source.once('end', () => (ended = true));
    let interrupted: NodeJS.Signals | undefined;
    const unsubscribe = this.options.onSignal?.((signal) => {
      interrupted ??= signal;
      trace?.(
        `upload to ${req.path}: ${signal}${ended ? ', every byte read: letting the put finish' : ', stopping it'}`,
      );
      // The put then fails before its rename and removes its temporary file.
      if (!ended) source.destroy(new Error(`interrupted by ${signal}`));
    });
    let jobId: number;
    try {
      const job = start(source, Promise.resolve());
      jobId = job.jobId;
      trace?.(`upload to ${req.path}: waiting for job ${jobId}`);
      await awaitJob(
        { call: (method, params) => this.call(method, params), ended: () => job.done },
        jobId,
        this.options.timeoutSeconds,
      );
    } catch (err) {
      if (interrupted) throw interruptedBy(interrupted, req.path, false);
      throw err;
    } finally {
      unsubscribe?.();
    }
    if (interrupted) throw interruptedBy(interrupted, req.path, true);
    trace?.(`upload to ${req.path}: job ${jobId} done after ${elapsed(startedAt)}`);
    return { jobId };
  }

  /**
   * core.download through the dispatcher (the same role check, job and sandbox as on the
   * network), then the pipe taken straight from the appliance: no HTTP, so the URL's token is
   * spent here unused.
   */
  download(req: DownloadRequest): Promise<{ jobId: number; bytes: number }> {
    const fetch: DownloadWay['fetch'] = async (jobId, url, counter, sink) => {
      const token = new URL(url, 'http://embedded').searchParams.get('auth_token');
      if (token !== null) this.appliance.tokens.find(token, this.session.origin)?.destroy();
      const pipe = this.appliance.downloads.claim(jobId)!;
      const broken = (await Promise.allSettled([pipe.deliver(counter), pipelineAsync(counter, sink)])).find(
        (r) => r.status === 'rejected',
      );
      if (broken) throw broken.reason;
    };
    // The job's own failure says more than the broken stream it caused.
    const jobs = { call: this.call.bind(this), ended: (id: number) => this.appliance.jobs.wait(this.session, id) };
    return downloadFile(
      { rpc: this, jobs, timeoutSeconds: this.options.timeoutSeconds, fetch, jobFailureFirst: true },
      req,
    );
  }

  async close(): Promise<void> {
    this.appliance.close();
  }
}
