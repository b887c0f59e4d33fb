import { call } from '../../core/contract/client.js';
import type { CommandContext } from '../framework/context.js';
import { arg, defineCommand, yesFlag, type OptionValues } from '../framework/declare.js';
import { confirmChange } from '../shared/prompts.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { ended, findJob, jobFields, jobId, summaryOf, type JobSummary } from './model.js';

const options = {
  yes: yesFlag(),
};

type JobAbortOptions = OptionValues<typeof options>;

/** `stor job abort --json` */
export interface JobAborted extends JobSummary {
  /** False when the job had already ended: the appliance leaves a finished job as it is. */
  aborted: boolean;
}

/** `stor job abort ID`: asks (or --yes), then core.job_abort, then reads the job's state back. */
export async function jobAbort(
  ctx: CommandContext,
  raw: string,
  options: JobAbortOptions,
): Promise<CommandResult<JobAborted>> {
  const id = jobId(raw);
  const t = await ctx.transport();
  const before = await findJob(t, id);
  let aborted = false;
  if (ended(before.state)) {
    ctx.note(`Job ${id} (${before.method}) already ended ${before.state}; nothing to abort.`);
  } else {
    await confirmChange(
      ctx,
      `Abort job ${id} (${before.method}, ${before.state}${before.progress.percent === null ? '' : ` at ${before.progress.percent}%`})? What it wrote so far stays.`,
      options.yes,
    );
    await call(t, 'core.job_abort', [id]);
    aborted = true;
  }
  const after = summaryOf(aborted ? await findJob(t, id) : before);
  const data: JobAborted = { ...after, aborted };
  if (aborted) ctx.note(`Asked the appliance to abort job ${id}; it is now ${after.state}.`);
  return recordResult(data, { fields: [...jobFields(after, ctx.io.env.TZ), ['aborted', aborted]] });
}

export const jobAbortCommand = defineCommand({
  summary: 'abort a waiting or running appliance job (asks first; --yes when not on a terminal)',
  effect: 'change',
  calls: ['core.job_abort', 'core.get_jobs'],
  asks: true,
  args: { id: arg.required('the job id (`stor job list` shows them)') },
  options,
  examples: ['stor job abort 12', 'stor job abort 12 --yes --json'],
  fanOut: 'change',
  run: (ctx, { id }, opts) => jobAbort(ctx, id, opts),
});
