import type { CommandContext } from '../framework/context.js';
import { defineCommand, flag, kebab, toggle, value, type OptionValues } from '../framework/declare.js';
import type { CommandResult } from '../output/render.js';
import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import { changeLine, changesOf, findShare, listShares, nameOf, refOf, shareRefArg } from './model.js';
import { fieldsOf, KIND_ONLY, nfsOptions, smbOptions, type ShareSettings } from './options.js';
import { applyChanges, predictedShareRefusal, writtenResult, type ShareWritten } from './write.js';

const options = {
  path: value('<path>', 'share this directory instead (under /mnt/POOL)', { complete: 'remote-path' }),
  name: value('<name>', 'SMB: rename the share'),
  ...nfsOptions,
  ...smbOptions,
  ro: toggle('read-only: clients may not write', 'clients may write'),
  browsable: toggle('SMB: listed when clients browse the server', 'SMB: not listed when clients browse'),
  comment: value('<text>', 'the comment stored with the share'),
  disabled: toggle('not shared (as `stor share disable`)', 'shared (as `stor share enable`)'),
  dryRun: flag('show the changes and whether the appliance would take them; change nothing'),
};

export type ShareUpdateOptions = OptionValues<typeof options>;

/**
 * `stor share update REF`: reads the share, shows what changes as `field: old → new`, predicts the
 * refusal for a dry run, sends one update with the changed fields and verifies them by a read.
 * What the share already has is no change; with nothing to change nothing is sent (exit 0).
 */
export async function shareUpdate(
  ctx: CommandContext,
  ref: string,
  { dryRun, ...settings }: ShareUpdateOptions,
): Promise<CommandResult<ShareWritten>> {
  const t = await ctx.transport();
  const share = await findShare(t, ref);
  const other = share.kind === 'nfs' ? 'smb' : 'nfs';
  const foreign = KIND_ONLY[other].filter((k) => settings[k] !== undefined);
  if (foreign.length > 0)
    throw new StorError(
      E.USAGE,
      `${foreign.map((k) => `--${kebab(k)}`).join(', ')} ${foreign.length === 1 ? 'is' : 'are'} for ${other.toUpperCase()} shares; ${refOf(share)} is an ${share.kind.toUpperCase()} share`,
      { hint: '`stor share update --help` says which options each kind takes' },
    );
  const changes = changesOf(share, fieldsOf(share.kind, settings as ShareSettings));
  const data: ShareWritten = {
    ref: refOf(share),
    kind: share.kind,
    name: nameOf(share),
    action: 'update',
    dry_run: dryRun,
    changed: changes.length > 0,
    changes,
    share,
  };
  if (changes.length === 0) {
    ctx.note(`stor: ${refOf(share)} already has these values; nothing changed`);
    return writtenResult(data);
  }
  ctx.note(`stor: ${refOf(share)} (${nameOf(share)}): ${changes.map(changeLine).join('; ')}`);
  if (dryRun) {
    const others = (await listShares(t, [share.kind])).filter((s) => s.id !== share.id);
    const params = Object.fromEntries(changes.map((c) => [c.field, c.new]));
    const refusal = await predictedShareRefusal(t, share.kind, 'update', params, others, share);
    if (refusal) throw refusal;
    ctx.note('stor: dry run: nothing was changed');
    return writtenResult(data);
  }
  return writtenResult({ ...data, share: await applyChanges(t, share, changes) });
}

export const shareUpdateCommand = defineCommand({
  summary: "change a share's settings (the options of its kind's create), shown as field: old → new, then verified",
  effect: 'change',
  calls: [
    'sharing.nfs.update',
    'sharing.nfs.query',
    'sharing.smb.update',
    'sharing.smb.query',
    // --dry-run's reads: where the path lies, and whether Apple's SMB extensions are on.
    'pool.dataset.query',
    'filesystem.stat',
    'smb.config',
  ],
  args: shareRefArg,
  options,
  examples: [
    'stor share update /mnt/tank/exports --networks 10.0.0.0/24,10.0.1.0/24',
    'stor share update docs --ro --comment "read-only now" --dry-run',
    'stor share update smb:4 --name Docs',
  ],
  fanOut: 'change',
  run: (ctx, { ref }, opts) => shareUpdate(ctx, ref, opts),
});
