import type { CommandContext } from '../framework/context.js';
import { flag } from '../framework/declare.js';
import type { CommandResult } from '../output/render.js';
import { findShare, listShares, nameOf, refOf } from './model.js';
import { applyChanges, predictedShareRefusal, writtenResult, type ShareWritten } from './write.js';

export const enableDryRun = (does: string) =>
  flag(`say whether it would ${does} the share and whether the appliance would refuse; change nothing`);

/** `stor share enable|disable REF`: update `enabled`; a share already so is said so and nothing is sent. */
export async function setShareEnabled(
  ctx: CommandContext,
  ref: string,
  action: 'enable' | 'disable',
  dryRun: boolean,
): Promise<CommandResult<ShareWritten>> {
  const t = await ctx.transport();
  const share = await findShare(t, ref);
  const enabled = action === 'enable';
  const changes = share.enabled === enabled ? [] : [{ field: 'enabled', old: share.enabled, new: enabled }];
  const data: ShareWritten = {
    ref: refOf(share),
    kind: share.kind,
    name: nameOf(share),
    action,
    dry_run: dryRun,
    changed: changes.length > 0,
    changes,
    share,
  };
  if (changes.length === 0) {
    ctx.note(`stor: ${refOf(share)} (${nameOf(share)}) is already ${action}d; nothing changed`);
    return writtenResult(data);
  }
  if (dryRun) {
    const others = (await listShares(t, [share.kind])).filter((s) => s.id !== share.id);
    const refusal = await predictedShareRefusal(t, share.kind, 'update', { enabled }, others, share);
    if (refusal) throw refusal;
    ctx.note('stor: dry run: nothing was changed');
    return writtenResult(data);
  }
  return writtenResult({ ...data, share: await applyChanges(t, share, changes) });
}
