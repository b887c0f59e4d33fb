import { RpcError, StorError } from '../../core/errors.js';
import type { CommandContext } from '../framework/context.js';
import { defineCommand, flag, type OptionValues } from '../framework/declare.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { waitForJob } from '../shared/job.js';
import { findReplication, replicationArg } from './model.js';

const options = { wait: flag('wait for the run to end; exit non-zero with its error when it fails') };

/** `stor replication run --json` */
export interface ReplicationRan {
  id: number;
  name: string;
  /** The replication.run job; null when the connection waited for the outcome itself (no id answered). */
  job_id: number | null;
  /** How the job stands when the command ends: SUCCESS, FAILED, or RUNNING when not waited for. */
  state: 'SUCCESS' | 'FAILED' | 'RUNNING';
  /** The job's error, when it failed. */
  error: string | null;
}

/**
 * `stor replication run ID|NAME`: starts replication.run (a job: MW/plugins/replication.py:296-318).
 * On a terminal, or with --wait, it waits with the job's progress on stderr; a failed run is the
 * command's failure. Otherwise it answers the job id at once (`stor job wait ID` waits later) — but
 * the embedded appliance lives only as long as the command, so there it sees the job to its end,
 * saying how it ended, and only --wait makes a failure the exit status.
 */
export async function replicationRun(
  ctx: CommandContext,
  ref: string,
  { wait }: OptionValues<typeof options>,
): Promise<CommandResult<ReplicationRan>> {
  const t = await ctx.transport();
  const task = await findReplication(t, ref);
  const answer = await t.call('replication.run', [task.id]);
  const jobId = typeof answer === 'number' ? answer : null;
  const data: ReplicationRan = { id: task.id, name: task.name, job_id: jobId, state: 'SUCCESS', error: null };
  const embedded = (await ctx.target()).kind === 'embedded';
  if (jobId !== null && (wait || ctx.progress || embedded)) {
    try {
      await waitForJob(ctx, t, jobId, `replication ${task.name} (job ${jobId})`);
    } catch (err) {
      if (wait || ctx.progress || !(err instanceof RpcError || err instanceof StorError)) throw err;
      data.state = 'FAILED';
      data.error = err instanceof RpcError ? err.reason : err.message;
    }
  } else if (jobId !== null) data.state = 'RUNNING';
  if (data.state === 'RUNNING')
    ctx.note(`stor: replication task ${task.id} runs as job ${jobId}; \`stor job wait ${jobId}\` waits for it`);
  else if (data.state === 'FAILED')
    ctx.note(`stor: job ${jobId} failed: ${data.error}; --wait makes that the exit status`);
  return recordResult(data, {
    fields: [
      ['task', task.id],
      ['name', task.name],
      ['job', jobId ?? '-'],
      ['state', data.state],
      ...(data.error !== null ? [['error', data.error] as [string, string]] : []),
    ],
  });
}

export const replicationRunCommand = defineCommand({
  summary: 'run a replication task now (a job: its progress on a terminal, its id otherwise; --wait for the end)',
  effect: 'change',
  calls: ['replication.run', 'replication.query', 'core.get_jobs'],
  args: replicationArg,
  options,
  examples: ['stor replication run backup', 'stor replication run 1 --wait', 'stor replication run backup --json'],
  fanOut: 'change',
  run: (ctx, { task }, opts) => replicationRun(ctx, task, opts),
});
