import { defineCommand } from '../framework/declare.js';
import { changeService, dryRunFlag, serviceArgs } from './model.js';

export const serviceEnableCommand = defineCommand({
  summary: 'start a service at boot (service.update enable); does not start it now (`stor service start`)',
  effect: 'change',
  calls: ['service.update', 'service.query'],
  args: serviceArgs,
  options: { dryRun: dryRunFlag('be started at boot') },
  examples: ['stor service enable nfs', 'stor --targets @prod service enable cifs'],
  fanOut: 'change',
  run: (ctx, { name }, opts) => changeService(ctx, name, 'enable', opts),
});
