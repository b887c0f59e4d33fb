import { defineCommand } from '../framework/declare.js';
import { shareRefArg } from './model.js';
import { enableDryRun, setShareEnabled } from './enable-disable.js';

export const shareEnableCommand = defineCommand({
  summary: 'share it again (update enabled true); an enabled share is left as it is',
  effect: 'change',
  calls: ['sharing.nfs.update', 'sharing.nfs.query', 'sharing.smb.update', 'sharing.smb.query'],
  args: shareRefArg,
  options: { dryRun: enableDryRun('enable') },
  examples: ['stor share enable docs', 'stor --targets @prod share enable /mnt/tank/exports'],
  fanOut: 'change',
  run: (ctx, { ref }, { dryRun }) => setShareEnabled(ctx, ref, 'enable', dryRun),
});
