import type { CommandContext } from '../framework/context.js';
import { defineCommand } from '../framework/declare.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { datasetList, type DatasetSummary } from '../dataset/list.js';
import { poolList, type PoolSummary } from '../pool/list.js';
import { whoami, type WhoamiResult } from '../whoami/whoami.js';
import { systemInfo, type SystemInfoResult } from './info.js';

/**
 * `stor system facts --json`: what a configuration engine gathers about an appliance, in one process
 * and one login (docs/ANSIBLE.md: `stor.truenas.info` returns it as facts). Each part is the
 * `--json` of its own verb, unchanged.
 */
export interface SystemFacts {
  whoami: WhoamiResult;
  system: SystemInfoResult;
  pools: PoolSummary[];
  datasets: DatasetSummary[];
}

export async function systemFacts(ctx: CommandContext): Promise<CommandResult<SystemFacts>> {
  // One after another on the one connection: the parts share it, and each is a read.
  const me = await whoami(ctx, { roles: true });
  const system = await systemInfo(ctx);
  const pools = await poolList(ctx);
  const datasets = await datasetList(ctx, undefined);
  const data: SystemFacts = { whoami: me.data, system: system.data, pools: pools.data, datasets: datasets.data };
  return recordResult(data, {
    fields: [
      ['user', data.whoami.username],
      ['release', data.system.version],
      ['hostname', data.system.hostname],
      ['pools', data.pools.map((p) => `${p.name} (${p.status})`)],
      ['datasets', data.datasets.length],
    ],
  });
}

export const systemFactsCommand = defineCommand({
  summary: 'whoami, system info, pools and datasets in one answer: the facts a configuration engine gathers',
  effect: 'read',
  calls: ['system.info', 'pool.query', 'pool.dataset.query'],
  fanOut: 'read',
  examples: [
    'stor system facts',
    'stor system facts --json | jq .system.version',
    'stor --targets @prod system facts --json',
  ],
  run: (ctx) => systemFacts(ctx),
});
