import type { CommandContext } from '../framework/context.js';
import { defineCommand } from '../framework/declare.js';
import { EXIT } from '../output/exit-codes.js';
import type { CommandResult } from '../output/render.js';
import type { StatePlan } from './plan-model.js';
import { notePlan, planOptions, planView, preparePlan, readStateFile, type PlanOptionValues } from './prepare.js';

/** `stor plan -f FILE`: reads only; exit 0 when the target matches, 7 (DRIFT) when changes are pending. */
export async function statePlan(ctx: CommandContext, opts: PlanOptionValues): Promise<CommandResult<StatePlan>> {
  const desired = await readStateFile(ctx, opts.file);
  const t = await ctx.transport();
  const { plan } = await preparePlan(ctx, t, desired, opts);
  notePlan(ctx, plan);
  ctx.noteAfter(
    plan.pending
      ? `${plan.changes.length} object(s) would change; \`stor apply -f ${opts.file}\` applies them`
      : 'no changes: the target matches the file',
  );
  return { data: plan, view: planView(plan), exitCode: plan.pending ? EXIT.DRIFT : EXIT.OK };
}

export const statePlanCommand = defineCommand({
  summary: 'show what applying a desired-state file would change; exit 7 when anything would',
  effect: 'read',
  fanOut: 'read',
  findings: 'drift',
  drifts: true,
  options: planOptions,
  examples: [
    'stor plan -f state.yaml',
    'stor plan -f state.yaml --json',
    'stor --targets @site_a plan -f state.yaml',
    'stor plan -f state.yaml || [ $? -eq 7 ] && echo drift',
  ],
  notes:
    'Changes nothing. Objects are matched by name; what the file does not name is left alone (with --prune, deleted only if stor made it). ' +
    'Refused before anything is applied: roles the target does not know, role lists that lock their users out on its release, and (without --force) ' +
    'plans that leave no password-enabled administrator or take roles from the identity stor is using; ' +
    'dataset changes the target would refuse, in its words (predicted as `stor dataset update --dry-run` predicts them).',
  run: (ctx, _args, opts) => statePlan(ctx, opts),
});
