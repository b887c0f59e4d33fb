import { ERRNO, RpcError, RPC_CODE, rpcErrors } from '../../errors.js';
import type { EventHub } from '../events.js';
import type { Session } from '../session/session.js';

export type JobState = 'WAITING' | 'RUNNING' | 'SUCCESS' | 'FAILED' | 'ABORTED';

type EjsonDate = { $date: number };

/** A `core.get_jobs` item (CoreGetJobsItem, MW/api/v25_10_1/core.py:84); the contract's `coreGetJobsItem` checks it. */
export interface JobEntry {
  id: number;
  message_ids: unknown[];
  method: string;
  arguments: unknown[];
  transient: boolean;
  description: string | null;
  abortable: boolean;
  logs_path: string | null;
  logs_excerpt: string | null;
  progress: { percent: number | null; description: string | null; extra: unknown };
  result: unknown;
  result_encoding_error: unknown;
  error: string | null;
  exception: string | null;
  exc_info: { repr: string; type: string; errno: number | null; extra: unknown } | null;
  state: JobState;
  time_started: EjsonDate | null;
  time_finished: EjsonDate | null;
  credentials: { type: string; data: JobCredentialsData } | null;
}

/** The credential's `dump()` (MW/auth.py:129-160), in its key order; a type, so it is a record as the contract types it. */
type JobCredentialsData = {
  username: string;
  login_id: string | null;
  login_at: EjsonDate;
  api_key?: { id: number; name: string };
};

/** What a running job may do: report progress. */
export interface JobHandle {
  readonly id: number;
  progress(percent: number, description?: string): void;
}

interface Job {
  entry: JobEntry;
  owner: string | null;
  /** Started with an output pipe (core.download): only such a job may be named by a download token. */
  outputPipe: boolean;
  done: Promise<unknown>;
  abort: AbortController;
}

// Like the appliance, keep at most this many jobs; the oldest finished ones go first.
const MAX_JOBS = 1000;

/** Datetimes travel as whole seconds (EJSON encodes `timetuple()`: truenas_api_client/ejson.py:52). */
const ejsonDate = (ms: number): EjsonDate => ({ $date: Math.floor(ms / 1000) * 1000 });

const ended = (state: JobState) => state === 'SUCCESS' || state === 'FAILED' || state === 'ABORTED';

/** How a job's failure is recorded (MW/job.py:395-398, 624-650): only a CallError keeps an errno and extra. */
function failure(err: RpcError): Pick<JobEntry, 'error' | 'exception' | 'exc_info'> {
  const validation = err.code === RPC_CODE.INVALID_PARAMS;
  const type = validation ? 'VALIDATION' : (err.data?.trace?.class ?? 'CallError');
  return {
    error: err.reason,
    exception: err.data?.trace?.formatted ?? err.reason,
    exc_info: {
      repr: err.data?.trace?.repr ?? err.reason,
      type,
      // A single ValidationError keeps its own errno; ValidationErrors has none.
      errno:
        type === 'CallError'
          ? (err.errno ?? null)
          : err.data?.trace?.class === 'ValidationError'
            ? (err.triples[0]?.[2] ?? null)
            : null,
      extra: validation || type === 'CallError' ? (err.data?.extra ?? null) : null,
    },
  };
}

function credentialsOf(session: Session): JobEntry['credentials'] {
  const c = session.credentials;
  if (!c) return null;
  const data: JobCredentialsData = { username: c.username, login_id: session.loginId, login_at: ejsonDate(c.loginAt) };
  if (c.apiKey) data.api_key = { id: c.apiKey.id, name: c.apiKey.name };
  return { type: c.type, data };
}

/**
 * Why `session` may not read (or abort) a job owned by `owner`, or null when it may
 * (`Job.credential_access_error`, MW/job.py:350-367): full administrators see every job, others
 * their own user's only.
 */
function accessError(session: Session, owner: string | null): string | null {
  if (session.isFullAdmin) return null;
  if (owner === null) return 'Only users with full administrative privileges can access internally ran jobs';
  return owner === session.credentials?.username ? null : 'Job is not owned by current session';
}

export function mayRead(session: Session, owner: string | null): boolean {
  return session.authenticated && accessError(session, owner) === null;
}

const ABORTED = Symbol('aborted');

/**
 * The appliance's jobs: numbered from 1 per process, visible to their owner and to full
 * administrators, announced as `core.get_jobs` events: ADDED while WAITING, CHANGED when they
 * start, progress and end (MW/job.py:151-153, 508-560).
 */
export class Jobs {
  constructor(private readonly events: EventHub) {}

  private readonly jobs = new Map<number, Job>();
  private nextId = 1;

  start(
    session: Session,
    method: string,
    args: unknown[],
    messageId: unknown,
    run: (job: JobHandle) => Promise<unknown> | unknown,
    pipes: { output: boolean } = { output: false },
  ): { id: number; done: Promise<unknown> } {
    const id = this.nextId++;
    const owner = session.credentials?.username ?? null;
    const entry: JobEntry = {
      id,
      // Python tests the id's truth: a request id of 0 or "" is not recorded (MW/job.py:300).
      message_ids: messageId ? [messageId] : [],
      method,
      arguments: args,
      transient: false,
      description: null,
      abortable: false,
      logs_path: null,
      logs_excerpt: null,
      progress: { percent: 0, description: '', extra: null },
      result: null,
      result_encoding_error: null,
      error: null,
      exception: null,
      exc_info: null,
      state: 'WAITING',
      time_started: ejsonDate(Date.now()),
      time_finished: null,
      credentials: credentialsOf(session),
    };
    const abort = new AbortController();
    const handle: JobHandle = {
      id,
      progress: (percent, description) => {
        const next = {
          percent: Math.trunc(percent),
          description: description || entry.progress.description,
          extra: entry.progress.extra,
        };
        if (next.percent === entry.progress.percent && next.description === entry.progress.description) return;
        entry.progress = next;
        this.announce('changed', entry, owner);
      },
    };
    const aborted = new Promise<typeof ABORTED>((resolve) =>
      abort.signal.addEventListener('abort', () => resolve(ABORTED), { once: true }),
    );
    const done = (async () => {
      // The queue starts the job after the caller has its id and the ADDED event is out.
      await Promise.resolve();
      try {
        if (abort.signal.aborted) return this.finish(entry, owner, { state: 'ABORTED' });
        entry.state = 'RUNNING';
        this.announce('changed', entry, owner);
        const work = Promise.resolve().then(() => run(handle));
        // An aborted job's handler may still settle; nobody awaits it any more.
        work.catch(() => undefined);
        const result = await Promise.race([work, aborted]);
        if (result === ABORTED) return this.finish(entry, owner, { state: 'ABORTED' });
        return this.finish(entry, owner, {
          state: 'SUCCESS',
          result: result ?? null,
          progress: { ...entry.progress, percent: 100 },
        });
      } catch (err) {
        const rpc =
          err instanceof RpcError
            ? err
            : rpcErrors.exception('Exception', err instanceof Error ? err.message : String(err));
        this.finish(entry, owner, { state: 'FAILED', ...failure(rpc) });
        throw rpc;
      }
    })();
    // A failure is reported through the job; whoever awaits `done` sees it too.
    done.catch(() => undefined);
    this.jobs.set(id, { entry, owner, outputPipe: pipes.output, done, abort });
    this.evict();
    this.announce('added', entry, owner);
    return { id, done };
  }

  /** Ends the job with `changes`; an aborted or successful job's `done` resolves with its result. */
  private finish(entry: JobEntry, owner: string | null, changes: Partial<JobEntry>): unknown {
    Object.assign(entry, changes, { time_finished: ejsonDate(Date.now()) });
    this.announce('changed', entry, owner);
    return entry.result;
  }

  private announce(msg: 'added' | 'changed', entry: JobEntry, owner: string | null): void {
    // One snapshot per event, shared by every connection that gets it.
    this.events.send({ msg, collection: 'core.get_jobs', id: entry.id, fields: structuredClone(entry) }, (s) =>
      mayRead(s, owner),
    );
  }

  private evict(): void {
    for (const [id, job] of this.jobs) {
      if (this.jobs.size <= MAX_JOBS) break;
      if (ended(job.entry.state)) this.jobs.delete(id);
    }
  }

  /** Resolves when no job is running (for a clean shutdown). */
  async idle(): Promise<void> {
    const running = [...this.jobs.values()].filter((j) => !ended(j.entry.state));
    await Promise.allSettled(running.map((j) => j.done));
  }

  /** Whether job `id` is (still) kept. */
  exists(id: number): boolean {
    return this.jobs.has(id);
  }

  /**
   * Why `session` may not make a token naming job `id` in its attrs, or null when it may
   * (`auth.generate_token`, MW/plugins/auth.py:417-426): the job must exist, be one the session
   * may access (its user's, or any for a full administrator) and have an output pipe. This is what
   * keeps one user's download from another: /_download/ trusts the token's `job`.
   */
  downloadTokenRefusal(session: Session, id: unknown): string | null {
    const job = typeof id === 'number' ? this.jobs.get(id) : undefined;
    if (!job) return `${String(id)}: job does not exist.`;
    const denied = accessError(session, job.owner);
    if (denied) return `${id}: ${denied}`;
    return job.outputPipe ? null : `${id}: job is not suitable for download token`;
  }

  /** Jobs `session` may see: its own, or all for full administrators (MW/job.py:113-124). */
  visible(session: Session): JobEntry[] {
    return [...this.jobs.values()].filter((j) => mayRead(session, j.owner)).map((j) => structuredClone(j.entry));
  }

  /** Every kept job of `method`, by id, as the middleware's own `core.get_jobs` call lists them (no caller to filter by). */
  ofMethod(method: string): JobEntry[] {
    return [...this.jobs.values()].filter((j) => j.entry.method === method).map((j) => structuredClone(j.entry));
  }

  /** The job `session` may reach (`__job_by_credential_and_id`, MW/service/core_service.py:99-117). */
  private reach(session: Session, id: number): Job {
    const job = this.jobs.get(id);
    if (!job) throw rpcErrors.instanceNotFound('Job with id', id);
    const denied = accessError(session, job.owner);
    if (denied) throw rpcErrors.call(ERRNO.EPERM, denied);
    return job;
  }

  /**
   * Waits for job `id` and returns its result. A failure is raised as `core.job_wait` raises it
   * (MW/job.py:467-478): a CallError as it is, anything else as `CallError(job.error)`, EFAULT;
   * an aborted job has no error and answers null.
   */
  async wait(session: Session, id: number): Promise<unknown> {
    const job = this.reach(session, id);
    try {
      return await job.done;
    } catch (err) {
      if (err instanceof RpcError && err.code === RPC_CODE.CALL_ERROR && err.data?.trace?.class === 'CallError')
        throw err;
      throw rpcErrors.call(ERRNO.EFAULT, job.entry.error ?? String(err));
    }
  }

  /**
   * `core.job_abort` (MW/service/core_service.py:202-205, MW/job.py:502-506): a waiting or running
   * job ends ABORTED; a finished one is left as it is.
   */
  abort(session: Session, id: number): void {
    const job = this.reach(session, id);
    if (!ended(job.entry.state)) job.abort.abort();
  }
}
