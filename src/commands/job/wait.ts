import { jobFailure, stallWatch } from '../../core/transport/job-wait.js';
import type { Transport } from '../../core/transport/transport.js';
import type { CommandContext } from '../framework/context.js';
import { arg, defineCommand } from '../framework/declare.js';
import { PercentBar } from '../output/progress.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { ended, findJob, jobFields, jobId, summaryOf, type JobItem, type JobSummary } from './model.js';

/**
 * Polls job `id` until it ends, reporting each change of its progress. Polling, not
 * `core.job_wait`, so that progress shows and every transport waits alike; the interval
 * grows to half a second, as the transports' own job waits do, and a job whose state and
 * progress stand still for `stallSeconds` (--timeout) is given up on as they give up on it.
 */
async function pollUntilEnded(
  t: Transport,
  id: number,
  stallSeconds: number,
  onProgress: (job: JobItem) => void,
): Promise<JobItem> {
  const stalled = stallWatch(stallSeconds);
  for (let delay = 20; ; delay = Math.min(delay * 2, 500)) {
    const job = await findJob(t, id);
    if (ended(job.state)) return job;
    onProgress(job);
    stalled(job);
    await new Promise((r) => setTimeout(r, Math.min(delay, stallSeconds * 1000)));
  }
}

/**
 * `stor job wait ID`: waits for the job to end, with a progress bar on a terminal. Exit 0 when it
 * succeeded; a failed or aborted job is reported as the command that started it would report it.
 */
export async function jobWait(ctx: CommandContext, raw: string): Promise<CommandResult<JobSummary>> {
  const id = jobId(raw);
  const t = await ctx.transport();
  const bar = ctx.progress ? new PercentBar(ctx.io.stderr, `job ${id}`) : null;
  let job: JobItem;
  try {
    job = await pollUntilEnded(t, id, ctx.timeoutSeconds, (j) =>
      bar?.update(j.progress.percent, j.progress.description),
    );
  } finally {
    bar?.clear();
  }
  if (job.state !== 'SUCCESS') throw jobFailure(job);
  const data = summaryOf(job);
  return recordResult(data, { fields: jobFields(data, ctx.io.env.TZ) });
}

export const jobWaitCommand = defineCommand({
  summary: 'wait for an appliance job to end; the exit code says how it ended',
  effect: 'read',
  args: { id: arg.required('the job id (`stor job list` shows them)') },
  examples: ['stor job wait 12', 'stor job wait 12 --json'],
  notes:
    'Waits as long as the job moves; one whose state and progress stand still for --timeout seconds ends the wait with JOB_STALLED (exit 3). Ctrl-C stops waiting, not the job (`stor job abort` does that). A failed job exits as the command that started it would have (its errno decides); an aborted one with JOB_ABORTED.',
  run: (ctx, { id }) => jobWait(ctx, id),
});
