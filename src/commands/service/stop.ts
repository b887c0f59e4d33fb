import { defineCommand, yesFlag } from '../framework/declare.js';
import { changeService, dryRunFlag, serviceArgs } from './model.js';

export const serviceStopCommand = defineCommand({
  summary:
    'stop a service (service.control STOP): asks first, since its clients are cut off; a stopped one is left as it is',
  effect: 'change',
  calls: ['service.control', 'service.query'],
  asks: true,
  args: serviceArgs,
  options: {
    yes: yesFlag(),
    dryRun: dryRunFlag('stop'),
  },
  examples: ['stor service stop nfs --dry-run', 'stor service stop nfs --yes'],
  notes:
    'Stopping nfs cuts NFS clients off (their mounts hang or fail); stopping cifs disconnects SMB clients. Whether it starts at boot is unchanged: `stor service disable` says that.',
  fanOut: 'change',
  run: (ctx, { name }, opts) => changeService(ctx, name, 'stop', opts),
});
