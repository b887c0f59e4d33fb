import { call } from '../../core/contract/client.js';
import type { SystemInfo } from '../../core/contract/system.js';
import type { CommandContext } from '../framework/context.js';
import { defineCommand } from '../framework/declare.js';
import { formatBytes, formatDuration, formatTime } from '../output/format.js';
import { type CommandResult, recordResult, shown } from '../output/render.js';

/**
 * `stor system info --json`: `system.info`'s fields in 25.10.1's names and order
 * (MW/api/v25_10_1/system.py:40-82), its datetimes as ISO 8601 text as every stor `--json` gives
 * times, and `boot_id` (`system.boot_id`) after them (docs/COMMANDS.md "Commands").
 */
export type SystemInfoResult = Omit<SystemInfo, 'buildtime' | 'boottime' | 'datetime'> & {
  buildtime: string;
  boottime: string;
  datetime: string;
  boot_id: string;
};

const iso = (d: { $date: number }) => new Date(d.$date).toISOString();

export async function systemInfo(ctx: CommandContext): Promise<CommandResult<SystemInfoResult>> {
  const t = await ctx.transport();
  const [info, bootId] = await Promise.all([call(t, 'system.info'), call(t, 'system.boot_id')]);
  const data: SystemInfoResult = {
    ...info,
    buildtime: iso(info.buildtime),
    boottime: iso(info.boottime),
    datetime: iso(info.datetime),
    boot_id: bootId,
  };
  const tz = ctx.io.env.TZ;
  return recordResult(data, {
    fields: [
      ['release', data.version],
      ['hostname', data.hostname],
      // The appliance's `0:12:09.313000` stays what a script gets piped; a person reads `12 min 9 s`.
      ['uptime', shown(data.uptime, formatDuration(data.uptime_seconds))],
      ['booted', formatTime(new Date(data.boottime), tz)],
      ['boot id', data.boot_id],
      ['clock', `${formatTime(new Date(data.datetime), tz)} (appliance timezone ${data.timezone})`],
      ['cpu', `${data.model}, ${data.cores} cores (${data.physical_cores} physical)`],
      ['memory', `${formatBytes(data.physmem)}${data.ecc_memory ? ' ECC' : ''}`],
      ['load', data.loadavg.map((l) => l.toFixed(2)).join(' ')],
      [
        'product',
        [data.system_manufacturer, data.system_product, data.system_product_version].filter((s) => s).join(' ') || null,
      ],
      ['serial', data.system_serial],
      ['built', formatTime(new Date(data.buildtime), tz)],
    ],
  });
}

export const systemInfoCommand = defineCommand({
  summary: 'show the appliance: release, hostname, uptime, boot id, CPU, memory',
  effect: 'read',
  fanOut: 'read',
  examples: ['stor system info', 'stor system info --json | jq -r .version', 'stor --targets nas1,nas2 system info'],
  run: (ctx) => systemInfo(ctx),
});
