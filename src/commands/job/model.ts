import { queryItems, type Needed } from '../../core/contract/client.js';
import { StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';
import type { Transport } from '../../core/transport/transport.js';
import { timeCell } from '../output/format.js';
import type { Cell } from '../output/render.js';

export const JOB_STATES = ['WAITING', 'RUNNING', 'SUCCESS', 'FAILED', 'ABORTED'] as const;

const JOB_FIELDS = [
  'id',
  'method',
  'state',
  'progress',
  'error',
  'time_started',
  'time_finished',
  'arguments',
  'abortable',
  'result',
  'exc_info',
] as const;
export type JobItem = Needed<'core.get_jobs', (typeof JOB_FIELDS)[number]>;

/** One job in `stor job list|show|wait|abort --json`. */
export interface JobSummary {
  id: number;
  method: string;
  /** WAITING, RUNNING, SUCCESS, FAILED or ABORTED. */
  state: string;
  /** Null when the job reports none. */
  percent: number | null;
  description: string | null;
  /** ISO 8601 (UTC), null when not (yet) known. */
  started: string | null;
  finished: string | null;
  /** Why a FAILED job failed. */
  error: string | null;
  abortable: boolean;
}

export const ended = (state: string): boolean => state === 'SUCCESS' || state === 'FAILED' || state === 'ABORTED';

const iso = (d: { $date: number } | null): string | null => (d ? new Date(d.$date).toISOString() : null);

export function summaryOf(j: JobItem): JobSummary {
  return {
    id: j.id,
    method: j.method,
    state: j.state,
    percent: j.progress.percent,
    description: j.progress.description || null,
    started: iso(j.time_started),
    finished: iso(j.time_finished),
    error: j.error,
    abortable: j.abortable,
  };
}

/** Jobs matching `filters`, with the fields the job verbs read. */
export function queryJobs(t: Transport, filters: unknown[]): Promise<JobItem[]> {
  return queryItems(t, 'core.get_jobs', [...JOB_FIELDS], filters, { order_by: ['id'] }) as Promise<JobItem[]>;
}

/** Job `id` as this identity sees it; one it may not see is as unknown to it as one that never was. */
export async function findJob(t: Transport, id: number): Promise<JobItem> {
  const [job] = await queryJobs(t, [['id', '=', id]]);
  if (!job) {
    throw new StorError(
      E.NOT_FOUND,
      `no job ${id} on the appliance (it keeps the last 1,000, and shows an identity only its own unless it is a full administrator)`,
      {
        hint: '`stor job list` shows the jobs you may see',
      },
    );
  }
  return job;
}

/** A job id argument: a whole number from 1. */
export function jobId(raw: string): number {
  const id = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(id) || id < 1) {
    throw new StorError(E.USAGE, `a job id is a whole number from 1, not ${JSON.stringify(raw)}`, {
      hint: '`stor job list` shows the ids, e.g. `stor job show 12`',
    });
  }
  return id;
}

/** The fields `show`, `wait` and `abort` print. */
export function jobFields(j: JobSummary, timeZone: string | undefined): [string, Cell][] {
  return [
    ['id', j.id],
    ['method', j.method],
    ['state', j.state],
    ['progress', j.percent === null ? null : `${j.percent}%${j.description ? ` ${j.description}` : ''}`],
    ['started', timeCell(j.started, timeZone)],
    ['finished', timeCell(j.finished, timeZone)],
    ['error', j.error],
  ];
}
