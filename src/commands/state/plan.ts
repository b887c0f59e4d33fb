import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import type { CommandContext } from '../framework/context.js';
import { defineCommand, value } from '../framework/declare.js';
import { EXIT } from '../output/exit-codes.js';
import type { CommandResult } from '../output/render.js';
import type { StatePlan } from './plan-model.js';
import {
  notePlan,
  planComment,
  planOptions,
  planView,
  preparePlan,
  readState,
  type PlanOptionValues,
} from './prepare.js';
import { fingerprint, planTarget, savedPlan, targetName, writePlanFile } from './saved-plan.js';

/**
 * `stor plan --json`: the plan, with `changed` (drift: the same as `pending`) and `comment` (one
 * line) on top, so that Ansible's `changed_when` and Salt's stateful `cmd.run` read it as it is.
 */
export interface PlanReport extends StatePlan {
  changed: boolean;
  comment: string;
}

interface StatePlanOptions extends PlanOptionValues {
  out?: string | undefined;
}

/** `stor plan -f FILE [--out PLAN]`: reads only; exit 0 when the target matches, 7 (DRIFT) when changes are pending. */
export async function statePlan(ctx: CommandContext, opts: StatePlanOptions): Promise<CommandResult<PlanReport>> {
  const { desired, text } = await readState(ctx, opts.file);
  const t = await ctx.transport();
  const { plan, world, steps } = await preparePlan(ctx, t, desired, opts);
  const spec = await ctx.target();
  if (opts.out !== undefined) {
    const options = { prune: opts.prune === true, normalize: opts.normalize === true, force: opts.force === true };
    const read = fingerprint(world, desired, steps, options.prune);
    await writePlanFile(
      ctx,
      opts.out,
      savedPlan(planTarget(spec), opts.file!, text, options, plan, steps, read, new Date()),
    );
  }
  notePlan(ctx, plan);
  const apply = opts.out !== undefined ? `stor apply ${opts.out}` : `stor apply -f ${opts.file}`;
  ctx.noteAfter(
    plan.pending
      ? `${plan.changes.length} object(s) would change; \`${apply}\` applies them`
      : 'no changes: the target matches the file',
  );
  const data: PlanReport = { changed: plan.pending, comment: planComment(plan, targetName(spec)), ...plan };
  return { data, view: planView(plan), exitCode: plan.pending ? EXIT.DRIFT : EXIT.OK };
}

export const statePlanCommand = defineCommand({
  summary: 'show what applying a desired-state file would change; exit 7 when anything would',
  effect: 'read',
  fanOut: 'read',
  findings: 'drift',
  drifts: true,
  checkTargets: (_args, opts) => {
    if (opts.out !== undefined)
      throw new StorError(E.USAGE, '--out saves the plan of one target, and --targets plans many', {
        hint: 'save one plan per target: `stor --profile NAME plan -f FILE --out NAME.plan`',
      });
  },
  options: {
    ...planOptions,
    out: value('<plan>', 'also save the plan here (0600, no secret), for `stor apply PLAN` to apply exactly it'),
  },
  examples: [
    'stor plan -f state.yaml',
    'stor plan -f state.yaml --json',
    'stor plan -f state.yaml --out state.plan && stor apply state.plan',
    'stor --targets @site_a plan -f state.yaml',
    'stor plan -f state.yaml || [ $? -eq 7 ] && echo drift',
  ],
  notes:
    'Changes nothing. Objects are matched by name; what the file does not name is left alone (with --prune, deleted only if stor made it). ' +
    'Refused before anything is applied: roles the target does not know, role lists that lock their users out on its release, and (without --force) ' +
    'plans that leave no password-enabled administrator or take roles from the identity stor is using; ' +
    'dataset changes the target would refuse, in its words (predicted as `stor dataset update --dry-run` predicts them). ' +
    'With --out the plan is saved with a fingerprint of every object it read: `stor apply PLAN` applies exactly it, ' +
    'or refuses (PLAN_CHANGED) when the target changed since (docs/STATE.md "Saved plans").',
  run: (ctx, _args, opts) => statePlan(ctx, opts),
});
