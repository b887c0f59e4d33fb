import { call } from '../../core/contract/client.js';
import { E } from '../../core/error-catalogue.js';
import { RpcError, StorError } from '../../core/errors.js';
import type { CommandContext } from '../framework/context.js';
import { arg, defineCommand, flag, list, value, type OptionValues } from '../framework/declare.js';
import type { CommandResult } from '../output/render.js';
import { groupRecord, groupSummary, listGroups, userIdsFor, type GroupSummary } from './model.js';

const options = {
  gid: value('<gid>', 'the Unix gid (default: the next free one the appliance picks)', { parse: gidOf }),
  members: list('<users>', 'users to put in the group, by name (comma-separated)'),
  existOk: flag('exit 0 when a group of that name exists, changing nothing (for re-run scripts)'),
};

type GroupCreateOptions = OptionValues<typeof options>;

/** `stor group create --json` */
export interface GroupCreated extends GroupSummary {
  /** False when the group existed and `--exist-ok` left it as it was. */
  created: boolean;
}

function gidOf(raw: string): number {
  if (!/^\d+$/.test(raw)) throw new StorError(E.USAGE, `--gid takes a number, not ${JSON.stringify(raw)}`);
  return Number(raw);
}

export async function groupCreate(
  ctx: CommandContext,
  name: string,
  opts: GroupCreateOptions,
): Promise<CommandResult<GroupCreated>> {
  const t = await ctx.transport();
  const [existing] = await listGroups(t, [['name', '=', name]]);
  if (existing && opts.existOk) {
    const data = { ...(await groupSummary(t, existing.id)), created: false };
    ctx.note(`group ${name} exists (gid ${data.gid}); nothing was changed`);
    return { data, view: groupRecord(data, `Group ${name} exists; nothing was changed`) };
  }
  const users = await userIdsFor(t, opts.members ?? []);
  const id = await call(t, 'group.create', [
    { name, users, ...(opts.gid !== undefined ? { gid: opts.gid } : {}) },
  ]).catch((err: unknown) => {
    // The appliance's "already exists" names no way out; a re-run script wants the flag.
    if (existing && err instanceof RpcError)
      err.hint = `group ${name} exists (gid ${existing.gid}); \`--exist-ok\` exits 0 when it does (for re-run scripts)`;
    throw err;
  });
  const data = { ...(await groupSummary(t, id)), created: true };
  return { data, view: groupRecord(data, `Created group ${name} (gid ${data.gid})`) };
}

export const groupCreateCommand = defineCommand({
  summary: 'create a local group, optionally with members; --exist-ok makes it safe to re-run',
  effect: 'change',
  calls: ['group.create', 'group.query', 'user.query', 'privilege.query'],
  args: { name: arg.required('group name') },
  options,
  examples: ['stor group create ops', 'stor group create ops --gid 3100 --members alice,bob --exist-ok --json'],
  fanOut: 'change',
  run: (ctx, { name }, opts) => groupCreate(ctx, name, opts),
});
