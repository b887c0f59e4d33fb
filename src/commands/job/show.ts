import type { CommandContext } from '../framework/context.js';
import { arg, defineCommand } from '../framework/declare.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { findJob, jobFields, jobId, summaryOf, type JobSummary } from './model.js';

/** `stor job show --json` */
export interface JobDetails extends JobSummary {
  /** The job method's arguments, as the appliance reports them. */
  arguments: unknown[];
  /** What a successful job answered; null otherwise. */
  result: unknown;
}

export async function jobShow(ctx: CommandContext, raw: string): Promise<CommandResult<JobDetails>> {
  const id = jobId(raw);
  const job = await findJob(await ctx.transport(), id);
  const data: JobDetails = { ...summaryOf(job), arguments: job.arguments, result: job.result ?? null };
  const fields = jobFields(data, ctx.io.env.TZ);
  fields.push(['arguments', JSON.stringify(data.arguments)], ['result', JSON.stringify(data.result)]);
  return recordResult(data, { fields });
}

export const jobShowCommand = defineCommand({
  summary: 'show one appliance job: its method, state, progress, times, error and result',
  effect: 'read',
  fanOut: 'read',
  args: { id: arg.required('the job id (`stor job list` shows them)') },
  examples: ['stor job show 12', 'stor job show 12 --json'],
  run: (ctx, { id }) => jobShow(ctx, id),
});
