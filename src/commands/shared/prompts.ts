import { StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';
import type { CommandContext } from '../framework/context.js';
import { escapeControls } from '../output/escape.js';

/**
 * The streams an @inquirer/prompts question uses: the command's stdin, and its stderr so that
 * stdout keeps only results. The one place IO's text-only OutputStream is handed to a library that
 * types its output as a Node stream; the prompts only write text to it.
 */
export const promptStreams = (ctx: CommandContext) => ({
  input: ctx.io.stdin,
  output: ctx.io.stderr as unknown as NodeJS.WritableStream,
});

/** Whether confirmChange will put its question (no --yes, on a terminal): only then is a preview above it worth showing. */
export const willAsk = (ctx: CommandContext, yes: boolean | undefined): boolean =>
  !yes && ctx.io.stdin.isTTY === true && ctx.io.stderr.isTTY === true;

/**
 * Asks before a change. With `--yes` it does not ask; off a terminal it refuses (exit 2) rather
 * than guess, so a script never changes anything it did not say it wanted changed. `safeFirst` is
 * the step to take before saying yes (a dry run, a snapshot), noted above the question: the moment
 * someone is asked is the moment they can still take it. True when a question was asked (and
 * answered yes): time passed, and the plan it showed may no longer hold (plan-check.ts).
 */
export async function confirmChange(
  ctx: CommandContext,
  question: string,
  yes: boolean | undefined,
  safeFirst?: string,
): Promise<boolean> {
  if (yes) return false;
  if (!willAsk(ctx, yes)) {
    throw new StorError(E.CONFIRMATION_REQUIRED, 'refusing to make changes without confirmation: not on a terminal', {
      hint: safeFirst ? `add --yes to confirm; first, ${safeFirst}` : 'add --yes to confirm',
    });
  }
  if (safeFirst) ctx.warn(`Safe first step: ${safeFirst}`);
  const { confirm } = await import('@inquirer/prompts');
  const ok = await confirm({ message: escapeControls(question), default: false }, promptStreams(ctx));
  if (!ok) throw new StorError(E.DECLINED, 'nothing was changed');
  return true;
}
