import { EventEmitter } from 'node:events';
import { ERRNO, RpcError, RPC_CODE, rpcErrors } from '../errors.js';
import type { Session } from './session.js';

export type JobState = 'WAITING' | 'RUNNING' | 'SUCCESS' | 'FAILED' | 'ABORTED';

/** A `core.get_jobs` item (facts §7.4). */
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
  time_started: { $date: number } | null;
  time_finished: { $date: number } | null;
  credentials: { type: string; data: { username: string } } | null;
}

/** A `collection_update` notification's params for the `core.get_jobs` collection. */
export interface JobEvent {
  msg: 'added' | 'changed';
  collection: 'core.get_jobs';
  id: number;
  fields: JobEntry;
}

/** What a running job may do: report progress. */
export interface JobHandle {
  readonly id: number;
  progress(percent: number, description?: string): void;
}

interface Job {
  entry: JobEntry;
  owner: string | null;
  done: Promise<unknown>;
}

// Like the appliance, keep at most this many jobs; the oldest finished ones go first.
const MAX_JOBS = 1000;

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
      errno: type === 'CallError' ? (err.errno ?? null) : err.data?.trace?.class === 'ValidationError' ? (err.triples[0]?.[2] ?? null) : null,
      extra: validation || type === 'CallError' ? (err.data?.extra ?? null) : null,
    },
  };
}

/**
 * The appliance's jobs: numbered from 1 per process, visible to their owner and to full
 * administrators, announced as `core.get_jobs` events when added and whenever they change.
 */
export class Jobs extends EventEmitter<{ event: [JobEvent, string | null] }> {
  constructor() {
    super();
    // One listener per subscribed connection; a busy server has hundreds.
    this.setMaxListeners(0);
  }

  private readonly jobs = new Map<number, Job>();
  private nextId = 1;

  start(session: Session, method: string, args: unknown[], messageId: unknown, run: (job: JobHandle) => Promise<unknown> | unknown): { id: number; done: Promise<unknown> } {
    const id = this.nextId++;
    const owner = session.credentials?.username ?? null;
    const entry: JobEntry = {
      id,
      message_ids: messageId === undefined ? [] : [messageId],
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
      state: 'RUNNING',
      time_started: { $date: Date.now() },
      time_finished: null,
      credentials: session.credentials ? { type: session.credentials.type, data: { username: session.credentials.username } } : null,
    };
    const handle: JobHandle = {
      id,
      progress: (percent, description) => {
        entry.progress = { percent, description: description ?? entry.progress.description, extra: null };
        this.announce('changed', entry, owner);
      },
    };
    const done = (async () => {
      try {
        const result = await run(handle);
        Object.assign(entry, { state: 'SUCCESS', result: result ?? null, progress: { ...entry.progress, percent: 100 } });
        return result;
      } catch (err) {
        const rpc = err instanceof RpcError ? err : rpcErrors.exception('Exception', err instanceof Error ? err.message : String(err));
        Object.assign(entry, { state: 'FAILED', ...failure(rpc) });
        throw rpc;
      } finally {
        entry.time_finished = { $date: Date.now() };
        this.announce('changed', entry, owner);
      }
    })();
    // A failure is reported through the job; whoever awaits `done` sees it too.
    done.catch(() => undefined);
    this.jobs.set(id, { entry, owner, done });
    this.evict();
    this.announce('added', entry, owner);
    return { id, done };
  }

  private announce(msg: JobEvent['msg'], entry: JobEntry, owner: string | null): void {
    this.emit('event', { msg, collection: 'core.get_jobs', id: entry.id, fields: structuredClone(entry) }, owner);
  }

  private evict(): void {
    for (const [id, job] of this.jobs) {
      if (this.jobs.size <= MAX_JOBS) break;
      if (job.entry.state !== 'RUNNING' && job.entry.state !== 'WAITING') this.jobs.delete(id);
    }
  }

  /** Resolves when no job is running (for a clean shutdown). */
  async idle(): Promise<void> {
    const running = [...this.jobs.values()].filter((j) => j.entry.state === 'RUNNING' || j.entry.state === 'WAITING');
    await Promise.allSettled(running.map((j) => j.done));
  }

  /** Jobs `session` may see: its own, or all for full administrators (facts §7.3). */
  visible(session: Session): JobEntry[] {
    return [...this.jobs.values()].filter((j) => mayRead(session, j.owner)).map((j) => structuredClone(j.entry));
  }

  /**
   * Waits for job `id` and returns its result. A failure is raised as `core.job_wait` raises it
   * (MW/job.py:467-478): a CallError as it is, anything else as `CallError(job.error)`, EFAULT.
   */
  async wait(session: Session, id: number): Promise<unknown> {
    const job = this.jobs.get(id);
    if (!job) throw rpcErrors.instanceNotFound('Job with id', id);
    if (!mayRead(session, job.owner)) throw rpcErrors.call(1, 'Job is not owned by current session');
    try {
      return await job.done;
    } catch (err) {
      if (err instanceof RpcError && err.code === RPC_CODE.CALL_ERROR && err.data?.trace?.class === 'CallError') throw err;
      throw rpcErrors.call(ERRNO.EFAULT, job.entry.error ?? String(err));
    }
  }
}

export function mayRead(session: Session, owner: string | null): boolean {
  return session.isFullAdmin || (owner !== null && owner === session.credentials?.username);
}
