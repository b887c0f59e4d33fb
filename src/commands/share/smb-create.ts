import { arg, defineCommand, toggle } from '../framework/declare.js';
import { commonCreateOptions, smbOptions } from './options.js';
import { createShare } from './write.js';

export const shareSmbCreateCommand = defineCommand({
  summary: 'share a path under a pool over SMB (sharing.smb.create); --exist-ok for re-run scripts',
  effect: 'change',
  calls: ['sharing.smb.create', 'sharing.smb.query', 'pool.dataset.query', 'filesystem.stat', 'smb.config'],
  args: {
    name: arg.required('the share name clients see (unique in any case, at most 80 characters)'),
    path: arg.required('the directory to share, under /mnt/POOL', 'remote-path'),
  },
  options: {
    ...smbOptions,
    browsable: toggle('listed when clients browse the server (the default)', 'not listed when clients browse'),
    ...commonCreateOptions,
  },
  examples: [
    'stor share smb create docs /mnt/tank/docs --comment "team documents"',
    'stor share smb create backup /mnt/tank/tm --purpose TIMEMACHINE_SHARE --no-browsable --exist-ok',
  ],
  fanOut: 'change',
  run: (ctx, { name, path }, { existOk, dryRun, ...settings }) =>
    createShare(ctx, 'smb', { ...settings, name, path }, { existOk, dryRun }),
});
