import { malformedAnswer } from '../../core/contract/client.js';
import { CONTRACT, type MethodName, type ParamsOf } from '../../core/contract/index.js';
import { awaitJob } from '../../core/transport/job-wait.js';
import type { Transport } from '../../core/transport/transport.js';
import type { CommandContext } from '../framework/context.js';
import { PercentBar } from '../output/progress.js';

/**
 * Calls a job method and waits for its job to end, showing its progress on a terminal (stderr).
 * Answers the job id, or null when the connection had new-style jobs on and the call itself
 * waited for the outcome (25.10.1 answers the result then, not the id).
 */
export async function runJob<M extends MethodName>(
  ctx: CommandContext,
  t: Transport,
  method: M,
  params: ParamsOf<M>,
  label: string,
): Promise<number | null> {
  const answer = await t.call(method, params as readonly unknown[]);
  if (typeof answer !== 'number') {
    const parsed = CONTRACT[method].result.safeParse(answer);
    if (!parsed.success) throw malformedAnswer(method, answer, parsed.error.issues[0]!);
    return null;
  }
  await waitForJob(ctx, t, answer, label);
  return answer;
}

/** Waits for job `id` to end, its progress on a terminal (stderr); a failed job is thrown as `jobFailure` maps it. */
export async function waitForJob(ctx: CommandContext, t: Transport, id: number, label: string): Promise<void> {
  const line = ctx.progress ? new PercentBar(ctx.io.stderr, label) : undefined;
  try {
    await awaitJob(
      { call: (m, p) => t.call(m, p) },
      id,
      ctx.timeoutSeconds,
      line && ((p) => line.update(p.percent, p.description)),
    );
  } finally {
    line?.clear();
  }
}
