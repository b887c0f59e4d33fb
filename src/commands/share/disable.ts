import { defineCommand } from '../framework/declare.js';
import { shareRefArg } from './model.js';
import { enableDryRun, setShareEnabled } from './enable-disable.js';

export const shareDisableCommand = defineCommand({
  summary: 'stop sharing it, keeping its settings (update enabled false); a disabled share is left as it is',
  effect: 'change',
  calls: ['sharing.nfs.update', 'sharing.nfs.query', 'sharing.smb.update', 'sharing.smb.query'],
  args: shareRefArg,
  options: { dryRun: enableDryRun('disable') },
  examples: ['stor share disable docs', 'stor share disable nfs:3 --dry-run'],
  fanOut: 'change',
  run: (ctx, { ref }, { dryRun }) => setShareEnabled(ctx, ref, 'disable', dryRun),
});
