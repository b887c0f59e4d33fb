import type { Transform, Writable } from 'node:stream';
import { call as contractCall } from '../contract/client.js';
import { E } from '../error-catalogue.js';
import { StorError } from '../errors.js';
import { byteCounter, type ByteLimit } from './byte-counter.js';
import { awaitJob, type JobSource } from './job-wait.js';
import type { DownloadRequest, Transport } from './transport.js';

/** core.download's params for `filesystem.get` of `path`: unbuffered, named after the file. */
export function downloadParams(path: string): [string, [string], string, boolean] {
  return ['filesystem.get', [path], path.split('/').filter(Boolean).at(-1) ?? 'download', false];
}

/** The byte limit of a download that states its size: more is the appliance's contradiction, stopped at once. */
export function downloadLimit(request: DownloadRequest): ByteLimit | undefined {
  const size = request.size;
  if (size === undefined) return undefined;
  return {
    bytes: size,
    exceeded: () =>
      new StorError(
        E.DOWNLOAD_SIZE_MISMATCH,
        `${request.path} brought more than the ${size} bytes the appliance reported; stopped there, nothing more written`,
        {
          hint: 'it may have changed meanwhile: download it again',
        },
      ),
  };
}

/** What one transport's download does its own way; the rest is `downloadFile`. */
export interface DownloadWay {
  /** This transport's connection, for `core.download` (its answer checked by the contract client). */
  rpc: Pick<Transport, 'call'>;
  /** How its job is waited for (polled, or told by `core.job_wait` or the appliance in process). */
  jobs: JobSource;
  /** How long the job may go without moving. */
  timeoutSeconds: number;
  /**
   * Brings the file of job `jobId`, whose URL core.download answered, through `counter` into
   * `sink`, and ends it: a GET of the URL, or the appliance's pipe taken straight.
   */
  fetch(jobId: number, url: string, counter: Transform, sink: Writable): Promise<void>;
  /**
   * When the bytes fail to arrive, whether the job's outcome is waited for first, because its own
   * failure says more than the stream it broke (the appliance in process). Over the network a
   * refused GET leaves the job waiting for a fetch that never comes: the failure is thrown at once.
   */
  jobFailureFirst?: boolean;
}

/**
 * A download, as every transport makes it (25.10.1's path: MW/service/core_service.py:530):
 * `core.download` of `filesystem.get`, the bytes of the URL it answers into the request's sink
 * (counted, and stopped at the size the appliance reported), then the job waited for; resolves
 * when the job succeeded, with the bytes written. The sink is destroyed when anything fails.
 */
export async function downloadFile(way: DownloadWay, req: DownloadRequest): Promise<{ jobId: number; bytes: number }> {
  try {
    const [jobId, url] = await contractCall(way.rpc, 'core.download', downloadParams(req.path));
    const counter = byteCounter(req.onProgress, downloadLimit(req));
    const fetched = way.fetch(jobId, url, counter, req.sink);
    const broken = way.jobFailureFirst
      ? await fetched.then(
          () => undefined,
          (reason: unknown) => ({ reason }),
        )
      : await fetched;
    await awaitJob(way.jobs, jobId, way.timeoutSeconds);
    if (broken) throw broken.reason;
    return { jobId, bytes: counter.bytes };
  } catch (err) {
    req.sink.destroy();
    throw err;
  }
}
