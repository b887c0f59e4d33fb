import { arg, defineCommand } from '../framework/declare.js';
import { commonCreateOptions, nfsOptions } from './options.js';
import { createShare } from './write.js';

export const shareNfsCreateCommand = defineCommand({
  summary: 'export a path under a pool over NFS (sharing.nfs.create); --exist-ok for re-run scripts',
  effect: 'change',
  calls: ['sharing.nfs.create', 'sharing.nfs.query', 'pool.dataset.query', 'filesystem.stat'],
  args: { path: arg.required('the directory to export, under /mnt/POOL', 'remote-path') },
  options: { ...nfsOptions, ...commonCreateOptions },
  examples: [
    'stor share nfs create /mnt/tank/exports --networks 10.0.0.0/24 --maproot-user root --maproot-group wheel',
    'stor share nfs create /mnt/tank/media --ro --exist-ok',
    'stor share nfs create /mnt/tank/exports --hosts backup1,backup2 --dry-run',
  ],
  fanOut: 'change',
  run: (ctx, { path }, { existOk, dryRun, ...settings }) =>
    createShare(ctx, 'nfs', { ...settings, path }, { existOk, dryRun }),
});
