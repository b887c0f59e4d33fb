import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import type { CommandContext } from '../framework/context.js';

export interface PlanCheck<T> {
  /** What this run's own reads found before the question: the plan it showed. */
  shown: readonly string[];
  /** The same items out of the verb's dry-run data, for a plan a `--targets` fan-out showed instead. */
  pick: (plan: T) => readonly string[];
  /** Whether the operator was asked (`confirmChange` said so): only then can the world have moved under the plan. */
  asked: boolean;
  /** Reads the items again, now. */
  reread: () => Promise<readonly string[]>;
  /** What the items are, for the message: `tank/v0 -r would now also delete`. */
  what: string;
  /** The dry run that shows the new plan. */
  preview: string;
}

/**
 * After consent, right before the changing call: the plan the operator confirmed must still be
 * the whole of it. What was shown (by this run before its question, or by the `--targets`
 * rehearsal whose one question covered every target) is compared with a fresh read; anything
 * new stops the run with PLAN_CHANGED naming it, and nothing is changed. Items that went
 * meanwhile only make the change smaller, which the plan allowed. Returns the fresh items (what
 * the change will now touch).
 *
 * A window remains between this read and the call: the appliance's recursive delete and rollback
 * take "everything below", with no "only these" option (MW/api/v25_10_1/pool_dataset.py:292,
 * MW/api/v25_10_1/pool_snapshot.py:137,155), so no client can close it. Reading last, with
 * nothing but the call after it, keeps it as small as a client can make it: one round trip
 * instead of however long the question waited.
 */
export async function holdToPlan<T>(ctx: CommandContext, check: PlanCheck<T>): Promise<readonly string[]> {
  const confirmed =
    ctx.confirmedPlan === undefined ? (check.asked ? check.shown : undefined) : check.pick(ctx.confirmedPlan as T);
  if (confirmed === undefined) return check.shown;
  const now = await check.reread();
  const known = new Set(confirmed);
  const added = now.filter((item) => !known.has(item));
  if (added.length > 0) {
    throw new StorError(
      E.PLAN_CHANGED,
      `the target changed since the plan you confirmed: ${check.what} ${added.join(', ')}; nothing was changed`,
      {
        details: added,
        hint: `review the new plan with \`${check.preview}\`, then run again`,
      },
    );
  }
  return now;
}
