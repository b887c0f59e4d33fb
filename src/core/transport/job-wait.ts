import { queryItems, type Needed } from '../contract/client.js';
import { ERRNO, RPC_CODE, RpcError, StorError, errnameOf, type ValidationTriple } from '../errors.js';
import { E } from '../error-catalogue.js';

/** What waiting for a job needs from a transport. */
export interface JobSource {
  call<T>(method: string, params: readonly unknown[]): Promise<T>;
  /**
   * Settles once job `id` has ended, if the transport can tell (`core.job_wait`, an in-process
   * promise): resolved when it succeeded, rejected with an RpcError when it did not. Any other
   * rejection (the connection is gone) is passed on. Without it, the job is polled. `done` is
   * aborted once the wait is over, however it ended: what was set up to tell it can go.
   */
  ended?(id: number, done: AbortSignal): Promise<unknown>;
}

/** How far a running job says it is (`core.get_jobs` progress). */
export interface JobProgress {
  percent: number | null;
  description: string | null;
}

/**
 * Waits for job `id` and resolves when it succeeded; a failure is thrown as `jobFailure` maps
 * it, read from the job's own `core.get_jobs` entry, so every transport reports it alike.
 * A long job may take as long as it needs while it moves; one whose state and progress have not
 * changed for `stallSeconds` (the command's --timeout) is given up on with JOB_STALLED.
 * `onProgress` hears the job's progress each time it is read while the job runs.
 */
export async function awaitJob(
  source: JobSource,
  id: number,
  stallSeconds: number,
  onProgress?: (progress: JobProgress) => void,
): Promise<void> {
  let settled = false;
  const done = new AbortController();
  const entry = async () =>
    (
      await queryItems(
        source,
        'core.get_jobs',
        ['id', 'method', 'state', 'progress', 'error', 'exc_info'],
        [['id', '=', id]],
      )
    )[0];
  // Told the job ended: success needs nothing more; a failure is read from the job's entry at once.
  const told = source.ended
    ? source.ended(id, done.signal).then(
        () => true,
        async (err: unknown) => {
          if (!(err instanceof RpcError)) throw err;
          const job = await entry();
          if (job?.state === 'FAILED' || job?.state === 'ABORTED') throw jobFailure(job);
          return new Promise<never>(() => undefined);
        },
      )
    : new Promise<never>(() => undefined);
  const watched = (async () => {
    const stalled = stallWatch(stallSeconds);
    for (let delay = 20; !settled; delay = Math.min(delay * 2, 500)) {
      const job = await entry();
      if (!job) {
        throw new StorError(
          E.JOB_NOT_FOUND,
          `job ${id} is not known to the appliance (any more): its outcome cannot be told`,
          {
            hint: 'check the target with `stor stat` before trying again',
          },
        );
      }
      if (job.state === 'SUCCESS') return true;
      if (job.state === 'FAILED' || job.state === 'ABORTED') throw jobFailure(job);
      onProgress?.({ percent: job.progress.percent, description: job.progress.description });
      stalled(job);
      if (settled) break;
      // Cut short once the wait is over (told by `ended`): a pending back-off of up to 500 ms
      // would otherwise hold the process's exit after the job ended (bench/HISTORY.md, "the job
      // wait's last poll").
      await new Promise<void>((r) => {
        const wake = () => {
          clearTimeout(timer);
          done.signal.removeEventListener('abort', wake);
          r();
        };
        const timer = setTimeout(wake, Math.min(delay, stallSeconds * 1000));
        done.signal.addEventListener('abort', wake);
      });
    }
    return true;
  })();
  try {
    await Promise.race([told, watched]);
  } finally {
    settled = true;
    done.abort();
  }
}

/** A running job as a stall is judged: its state and progress. */
type Watched = Needed<'core.get_jobs', 'id' | 'method' | 'state' | 'progress'>;

/**
 * The stall rule every wait for a job follows: fed each reading of a running job, it throws
 * JOB_STALLED once the job's state and progress have not changed for `stallSeconds`.
 */
export function stallWatch(stallSeconds: number): (job: Watched) => void {
  let seen: string | undefined;
  let movedAt = performance.now();
  return (job) => {
    const now = performance.now();
    const state = JSON.stringify([job.state, job.progress]);
    if (state !== seen) {
      seen = state;
      movedAt = now;
    } else if (now - movedAt >= stallSeconds * 1000) {
      throw jobStalled(job, (now - movedAt) / 1000);
    }
  };
}

function jobStalled(job: Watched, seconds: number): StorError {
  const percent = job.progress.percent === null ? '' : ` at ${job.progress.percent}%`;
  return new StorError(
    E.JOB_STALLED,
    `job ${job.id} (${job.method}) has not moved for ${seconds.toFixed(1)} s (still ${job.state}${percent}); stopped waiting for it`,
    {
      hint: `it may yet finish: look again with \`stor call core.get_jobs '[["id","=",${job.id}]]'\`, or raise --timeout to wait longer for a job that reports no progress`,
    },
  );
}

/**
 * The one mapping of a failed job to the error the CLI reports: what the job itself raised.
 * A CallError keeps its errno and text; validation errors come back as such (the CLI lists
 * them); any other exception (an OSError, say) becomes `CallError(job.error)` with EFAULT,
 * exactly what `core.job_wait` raises for it (MW/job.py:467-478).
 */
export function jobFailure(
  job: Pick<
    Needed<'core.get_jobs', 'id' | 'method' | 'state' | 'error' | 'exc_info'>,
    'id' | 'method' | 'state' | 'error' | 'exc_info'
  >,
): RpcError | StorError {
  if (job.state === 'ABORTED') return new StorError(E.JOB_ABORTED, `job ${job.id} (${job.method}) was aborted`);
  const error = job.error ?? `job ${job.id} (${job.method}) failed and gave no reason`;
  const info = job.exc_info;
  if (info?.type === 'VALIDATION') {
    const triples = Array.isArray(info.extra) ? (info.extra as ValidationTriple[]) : [];
    return new RpcError(RPC_CODE.INVALID_PARAMS, 'Invalid params', {
      error: ERRNO.EINVAL,
      errname: 'EINVAL',
      reason: error,
      trace: null,
      extra: triples,
    });
  }
  if (info && info.errno !== null) {
    return new RpcError(RPC_CODE.CALL_ERROR, 'Method call error', {
      error: info.errno,
      errname: errnameOf(info.errno),
      reason: error,
      trace: null,
      extra: info.extra,
    });
  }
  const reason = `[EFAULT] ${error}`;
  return new RpcError(RPC_CODE.CALL_ERROR, 'Method call error', {
    error: ERRNO.EFAULT,
    errname: 'EFAULT',
    reason,
    trace: null,
    extra: null,
  });
}
