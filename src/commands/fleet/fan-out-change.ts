import type { CommandContext } from '../framework/context.js';
import { EXIT } from '../output/exit-codes.js';
import {
  fanOutExitCode,
  fleetView,
  noteOutcomes,
  notAttempted,
  resolveFleet,
  runOnTarget,
  summaryLine,
  targetLine,
  type TargetOutcome,
  type TargetRun,
} from './fan-out.js';
import { forEachLimited } from '../shared/pool.js';
import { confirmChange } from '../shared/prompts.js';
import { type CommandResult, recordResult } from '../output/render.js';

/** The plan of a change on one target that has no dry run: the command it will run there. */
export interface PlannedAction {
  action: string;
}

export interface ChangeRequest {
  /** The command line the change runs on each target (`stor dataset create tank/a`). */
  action: string;
  /** The verb's dry run, when it has one: on each target it predicts the outcome (or the error). */
  rehearse?: (ctx: CommandContext) => Promise<CommandResult> | CommandResult;
  /** With `rehearse`: the command line that shows the plan again, named before the question. */
  preview?: string;
  /** The verb's run, told not to ask again (the fan-out asked once for every target). */
  apply: (ctx: CommandContext) => Promise<CommandResult> | CommandResult;
  findings: string;
  parallel: number;
  keepGoing: boolean;
  yes: boolean;
}

/** Where the verb has no dry run: reach the target and log in, so an unreachable one is in the plan. */
async function reach(ctx: CommandContext, action: string): Promise<CommandResult<PlannedAction>> {
  await ctx.transport();
  return recordResult({ action }, { fields: [['plan', action]] });
}

/**
 * Whether a target's change changed it: it ran to the end, and its document does not say it found
 * nothing to do (`"changed": false`, `"created": false` under --exist-ok or --parents).
 */
function madeAChange(run: TargetRun): boolean {
  if (run.outcome.exit_code !== EXIT.OK) return false;
  const data = run.outcome.data as { changed?: unknown; created?: unknown } | null | undefined;
  return !(typeof data === 'object' && data !== null && (data.changed === false || data.created === false));
}

const applicable = (o: TargetOutcome) => o.exit_code === EXIT.OK || o.exit_code === EXIT.CHECK;

/** The plan on stderr, where the question will be: the rehearsals' merged view, or the command per target. */
async function showPlan(base: CommandContext, request: ChangeRequest, plans: readonly TargetRun[]): Promise<void> {
  const ready = plans.filter((p) => applicable(p.outcome));
  if (request.rehearse && ready.length > 0) {
    const view = fleetView(ready.map((p) => ({ target: p.outcome.target, result: p.result!, release: p.release })));
    await base.noteView({ data: ready.map((p) => p.outcome.data), view });
  }
  const failed = plans
    .filter((p) => !applicable(p.outcome))
    .map((p) => `${p.outcome.target} (${p.outcome.error?.kind ?? `exit ${p.outcome.exit_code}`})`);
  const on = ready.length > 0 ? `on ${ready.map((p) => p.outcome.target).join(', ')}` : 'on no target';
  base.note(`plan: \`${request.action}\` ${on}${failed.length > 0 ? `; not on ${failed.join(', ')}` : ''}`);
}

/**
 * A change on every target of `--targets`: first the plan on every target (read-only, at once),
 * shown; then one question (or `--yes`); then the change, at most `parallel` targets at once.
 * Targets whose plan failed are not changed. After the first failure no new target starts
 * unless `keepGoing`; those never started are outcomes too (NOT_ATTEMPTED), so the `--json`
 * array always has every target, in list order. Under `--json-lines` a target's line goes out once
 * its outcome is final: after the question for one whose plan failed, else as its change ends.
 */
export async function fanOutChange(
  base: CommandContext,
  request: ChangeRequest,
): Promise<CommandResult<TargetOutcome[]>> {
  const targets = await resolveFleet(base);
  const plans: TargetRun[] = new Array(targets.length);
  await forEachLimited(targets, request.parallel, async (target, i) => {
    plans[i] = await runOnTarget(base, target, request.rehearse ?? ((ctx) => reach(ctx, request.action)), true);
  });
  await showPlan(base, request, plans);
  const planOf = (i: number) => plans[i]!.outcome.data;
  // A target whose plan failed keeps that failure as its outcome: the plan was its error.
  const outcomes: TargetOutcome[] = plans.map((p) =>
    applicable(p.outcome)
      ? { target: p.outcome.target, ok: true, exit_code: EXIT.OK, plan: p.outcome.data }
      : p.outcome,
  );
  const ready = plans.flatMap((p, i) => (applicable(p.outcome) ? [i] : []));
  const applied: TargetRun[] = [];
  const names = ready.map((i) => targets[i]!);
  if (ready.length > 0) {
    const preview = request.preview !== undefined ? `preview with \`${request.preview}\`` : undefined;
    await confirmChange(
      base,
      `Run \`${request.action}\` on ${names.length} target${names.length === 1 ? '' : 's'} (${names.join(', ')})?`,
      request.yes,
      preview,
    );
  }
  // Past the question (a refusal ends the run with nothing on stdout, as under --json).
  for (const [i, o] of outcomes.entries()) if (!ready.includes(i)) base.record(() => targetLine(base, o));
  let stopped = false;
  await forEachLimited(ready, request.parallel, async (i) => {
    const target = targets[i]!;
    if (stopped) {
      outcomes[i] = notAttempted(target, planOf(i));
    } else {
      // Only a rehearsal's data is a plan the verb can hold to; without one the plan is the command line.
      const run = await runOnTarget(base, target, request.apply, false, request.rehearse ? planOf(i) : undefined);
      outcomes[i] = { ...run.outcome, plan: planOf(i) };
      if (run.result) applied[i] = run;
      if (!applicable(run.outcome) && !request.keepGoing) stopped = true;
    }
    const outcome = outcomes[i];
    base.record(() => targetLine(base, outcome));
  });
  noteOutcomes(base, outcomes, request.findings);
  const results = applied.flatMap((r) =>
    r?.result ? [{ target: r.outcome.target, result: r.result, release: r.release }] : [],
  );
  return {
    data: outcomes,
    view: fleetView(results),
    exitCode: fanOutExitCode(outcomes),
    lastLine: summaryLine(outcomes, applied.filter((r) => r !== undefined && madeAChange(r)).length),
  };
}
