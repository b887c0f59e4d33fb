import type { CommandContext } from '../framework/context.js';
import { defineCommand } from '../framework/declare.js';
import { tableResult, type CommandResult } from '../output/render.js';
import { listServices, stateCell, type ServiceSummary } from './model.js';

/** `stor service list`: every service record, whether it runs and whether it starts at boot. */
export async function serviceList(ctx: CommandContext): Promise<CommandResult<ServiceSummary[]>> {
  const data = await listServices(await ctx.transport());
  return tableResult(data, {
    columns: ['service', 'state', 'enabled at boot'],
    rows: data.map((s) => [s.service, stateCell(s.state), s.enable]),
    empty: 'No services.',
  });
}

export const serviceListCommand = defineCommand({
  summary: 'list the services (cifs is SMB, nfs, ssh, …): running or stopped, started at boot or not',
  effect: 'read',
  calls: ['service.query'],
  fanOut: 'read',
  examples: [
    'stor service list',
    'stor service list --json | jq -r ".[] | select(.state == \\"RUNNING\\") | .service"',
    'stor --targets nas1,nas2 service list',
  ],
  run: (ctx) => serviceList(ctx),
});
