import { validateParams } from '../../core/appliance/params.js';
import { call } from '../../core/contract/client.js';
import { replicationContract } from '../../core/contract/replication.js';
import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import type { CommandContext } from '../framework/context.js';
import { defineCommand, value, type OptionValues } from '../framework/declare.js';
import { type CommandResult, recordResult, toned } from '../output/render.js';
import { predictedDenial } from '../shared/predict-access.js';
import { findReplication, replicationArg, type Replication } from './model.js';
import { replicationFieldsOf, replicationOptions } from './options.js';
import { replicationRecord } from './record.js';

const options = { name: value('<name>', 'a new name for the task'), ...replicationOptions };

/** `stor replication update --json` */
export interface ReplicationUpdated {
  id: number;
  dry_run: boolean;
  /** The task as stored after the change; with --dry-run, as it would be. */
  task: Replication;
}

/** `stor replication update ID|NAME`: sends the fields given; the appliance checks the task as a whole. */
export async function replicationUpdate(
  ctx: CommandContext,
  ref: string,
  { dryRun, name, ...settings }: OptionValues<typeof options>,
): Promise<CommandResult<ReplicationUpdated>> {
  const fields = { ...(name !== undefined ? { name } : {}), ...replicationFieldsOf(settings) };
  if (Object.keys(fields).length === 0)
    throw new StorError(E.NOTHING_TO_UPDATE, `nothing to change on replication task ${ref}`, {
      hint: '`stor replication update --help` lists what can be changed',
    });
  const t = await ctx.transport();
  const old = await findReplication(t, ref);
  if (dryRun) {
    const method = replicationContract['replication.update'];
    const denied = await predictedDenial(t, method.access);
    if (denied) throw denied;
    validateParams(method.params, [old.id, fields]);
    ctx.note('stor: dry run: nothing was changed');
    const task = { ...old, ...fields } as Replication;
    return updatedResult({ id: old.id, dry_run: true, task });
  }
  const task = (await call(t, 'replication.update', [old.id, fields])) as Replication;
  ctx.note(`stor: updated replication task ${old.id}`);
  return updatedResult({ id: old.id, dry_run: false, task });
}

function updatedResult(data: ReplicationUpdated): CommandResult<ReplicationUpdated> {
  return recordResult(data, {
    fields: [...replicationRecord(data.task), ['dry run', toned(data.dry_run, data.dry_run ? 'warning' : undefined)]],
  });
}

export const replicationUpdateCommand = defineCommand({
  summary: 'change a replication task: its datasets, snapshot tasks, schedule, retention, or whether it runs',
  effect: 'change',
  calls: ['replication.update', 'replication.query'],
  args: replicationArg,
  options,
  examples: [
    'stor replication update backup --retention CUSTOM --lifetime 30d',
    'stor replication update 1 --disabled',
    "stor replication update backup --schedule '0 3 * * *' --dry-run",
  ],
  fanOut: 'change',
  run: (ctx, { task }, opts) => replicationUpdate(ctx, task, opts),
});
