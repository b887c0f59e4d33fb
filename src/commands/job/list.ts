import type { CommandContext } from '../framework/context.js';
import { choice, defineCommand, value, type OptionValues } from '../framework/declare.js';
import { type CommandResult, tableResult } from '../output/render.js';
import { timeCell } from '../output/format.js';
import { JOB_STATES, queryJobs, summaryOf, type JobSummary } from './model.js';

const options = {
  state: choice(JOB_STATES, '<state>', 'only jobs in this state'),
  method: value('<method>', 'only jobs of this method, e.g. filesystem.put', { complete: 'method' }),
};

type JobListOptions = OptionValues<typeof options>;

/** `stor job list`: the jobs this identity may see (all of them for a full administrator), oldest first. */
export async function jobList(ctx: CommandContext, options: JobListOptions): Promise<CommandResult<JobSummary[]>> {
  const t = await ctx.transport();
  const filters = [
    ...(options.state ? [['state', '=', options.state]] : []),
    ...(options.method ? [['method', '=', options.method]] : []),
  ];
  const data = (await queryJobs(t, filters)).map(summaryOf);
  if (data.length === 0 && (await ctx.target()).kind === 'embedded') {
    // Jobs live in the appliance's memory; the embedded one lives only as long as each command.
    ctx.note(
      'The embedded appliance keeps jobs only while the command that started them runs; `stor serve` keeps them as an appliance does.',
    );
  }
  return tableResult(data, {
    // The error is prose: it wraps. Narrow, the times go before anything is cut.
    columns: [
      { header: 'id', key: true },
      { header: 'method', key: true },
      'state',
      { header: 'progress', minor: true },
      { header: 'started', minor: true },
      { header: 'finished', minor: true },
      { header: 'error', overflow: 'wrap' },
    ],
    rows: data.map((j) => [
      j.id,
      j.method,
      j.state,
      j.percent === null ? null : `${j.percent}%`,
      timeCell(j.started, ctx.io.env.TZ),
      timeCell(j.finished, ctx.io.env.TZ),
      j.error,
    ]),
    empty: filters.length > 0 ? 'No jobs match.' : 'No jobs.',
  });
}

export const jobListCommand = defineCommand({
  summary: 'list the appliance jobs you may see (uploads, downloads, permission changes)',
  effect: 'read',
  fanOut: 'read',
  options,
  examples: ['stor job list', 'stor job list --state FAILED', 'stor job list --method filesystem.put --json'],
  notes:
    'A full administrator sees every job; anyone else only the jobs of their own user. The appliance keeps the last 1,000.',
  run: (ctx, _args, opts) => jobList(ctx, opts),
});
