import { defineCommand, yesFlag } from '../framework/declare.js';
import { confirmChange } from '../shared/prompts.js';
import { changeService, dryRunFlag, serviceArgs } from './model.js';

/** Who a stop cuts off, for the question. */
function stopWarning(name: string): string {
  if (name === 'nfs') return 'NFS clients lose their mounts until it is started again.';
  if (name === 'cifs') return 'SMB clients are disconnected until it is started again.';
  return 'Whatever uses it stops working until it is started again.';
}

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
  run: (ctx, { name }, { yes, dryRun }) =>
    changeService(ctx, name, 'stop', {
      dryRun,
      ask: () =>
        confirmChange(
          ctx,
          `Stop ${name}? ${stopWarning(name)}`,
          yes,
          `preview with \`stor service stop ${name} --dry-run\``,
        ),
    }),
});
