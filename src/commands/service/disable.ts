import { defineCommand } from '../framework/declare.js';
import { changeService, dryRunFlag, serviceArgs } from './model.js';

export const serviceDisableCommand = defineCommand({
  summary: 'do not start a service at boot (service.update enable false); a running one keeps running',
  effect: 'change',
  calls: ['service.update', 'service.query'],
  args: serviceArgs,
  options: { dryRun: dryRunFlag('no longer be started at boot') },
  examples: ['stor service disable ftp', 'stor service disable ftp --dry-run'],
  fanOut: 'change',
  run: (ctx, { name }, opts) => changeService(ctx, name, 'disable', opts),
});
