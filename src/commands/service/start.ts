import { defineCommand } from '../framework/declare.js';
import { changeService, dryRunFlag, serviceArgs } from './model.js';

export const serviceStartCommand = defineCommand({
  summary: 'start a service (service.control START); a running one is left as it is',
  effect: 'change',
  calls: ['service.control', 'service.query'],
  args: serviceArgs,
  options: { dryRun: dryRunFlag('start') },
  examples: ['stor service start nfs', 'stor service start cifs --dry-run', 'stor --targets @prod service start nfs'],
  fanOut: 'change',
  run: (ctx, { name }, opts) => changeService(ctx, name, 'start', opts),
});
