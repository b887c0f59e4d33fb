import type { CommandContext } from '../framework/context.js';
import { defineCommand, flag, ignoreNotFoundFlag, yesFlag, type OptionValues } from '../framework/declare.js';
import { recordResult, toned, type CommandResult } from '../output/render.js';
import { call } from '../../core/contract/client.js';
import { lookupOrNothing, nothingDeleted, type NothingDeleted } from '../shared/ignore-not-found.js';
import { predictedDenial } from '../shared/predict-access.js';
import { confirmChange } from '../shared/prompts.js';
import { sharingNfsContract } from '../../core/contract/sharing-nfs.js';
import { sharingSmbContract } from '../../core/contract/sharing-smb.js';
import { findShare, nameOf, refOf, shareRefArg, type Share } from './model.js';

const deleteOptions = {
  yes: yesFlag(),
  dryRun: flag('show which share would go; delete nothing'),
  ignoreNotFound: ignoreNotFoundFlag(),
};

/** `stor share delete --json` */
export interface ShareDeleted {
  ref: string;
  kind: Share['kind'];
  /** The SMB share's name, the NFS share's path. */
  name: string;
  path: string;
  dry_run: boolean;
  deleted: boolean;
}

/**
 * `stor share delete REF`: shows the share, asks (or --yes), then deletes it; the directory and its
 * files stay. Nothing is deleted before consent; the refusal of a missing role is predicted first.
 */
export async function shareDelete(
  ctx: CommandContext,
  ref: string,
  options: OptionValues<typeof deleteOptions>,
): Promise<CommandResult<ShareDeleted | NothingDeleted>> {
  const t = await ctx.transport();
  const lookup = await lookupOrNothing(options.ignoreNotFound, () => findShare(t, ref));
  if ('missing' in lookup) return nothingDeleted(ctx, ref, lookup.missing);
  const share = lookup.found;
  const data: ShareDeleted = {
    ref: refOf(share),
    kind: share.kind,
    name: nameOf(share),
    path: share.path,
    dry_run: options.dryRun,
    deleted: !options.dryRun,
  };
  const access = (
    share.kind === 'nfs' ? sharingNfsContract['sharing.nfs.delete'] : sharingSmbContract['sharing.smb.delete']
  ).access;
  const denied = await predictedDenial(t, access);
  if (denied) throw denied;
  const what = `${share.kind.toUpperCase()} share ${nameOf(share)} (${refOf(share)}${share.kind === 'smb' ? `, ${share.path}` : ''})`;
  if (options.dryRun) {
    ctx.note('stor: dry run: nothing was deleted');
    return deletedResult(data);
  }
  await confirmChange(
    ctx,
    `Delete ${what}? Its clients lose it; the files stay.`,
    options.yes,
    `preview with \`stor share delete ${refOf(share)} --dry-run\``,
  );
  if (share.kind === 'nfs') await call(t, 'sharing.nfs.delete', [share.id]);
  else await call(t, 'sharing.smb.delete', [share.id]);
  return deletedResult(data);
}

function deletedResult(data: ShareDeleted): CommandResult<ShareDeleted> {
  return recordResult(data, {
    fields: [
      ['share', data.ref],
      [data.kind === 'smb' ? 'name' : 'path', data.name],
      ['dry run', toned(data.dry_run, data.dry_run ? 'warning' : undefined)],
      [data.dry_run ? 'would delete' : 'deleted', true],
    ],
  });
}

export const shareDeleteCommand = defineCommand({
  summary: 'delete a share (asks first; --yes when not on a terminal); its files stay',
  effect: 'change',
  calls: ['sharing.nfs.delete', 'sharing.nfs.query', 'sharing.smb.delete', 'sharing.smb.query'],
  asks: true,
  args: shareRefArg,
  options: deleteOptions,
  examples: [
    'stor share delete docs --dry-run',
    'stor share delete nfs:3 --yes',
    'stor share delete docs --yes --ignore-not-found',
  ],
  fanOut: 'change',
  run: (ctx, { ref }, opts) => shareDelete(ctx, ref, opts),
});
