import type { CommandContext } from '../framework/context.js';
import { defineCommand } from '../framework/declare.js';
import { recordResult, type CommandResult, type FieldValue } from '../output/render.js';
import { findShare, refOf, shareRefArg, type Share } from './model.js';

/** Each field of the entry as a labelled line, lists as lists, objects as JSON. */
function fieldsOf(s: Share): [string, FieldValue][] {
  return Object.entries(s).map(([k, v]): [string, FieldValue] => {
    if (Array.isArray(v)) return [k, v.map(String)];
    if (v !== null && typeof v === 'object') return [k, JSON.stringify(v)];
    return [k, v as FieldValue];
  });
}

/** `stor share show REF`: one share, every field as the appliance answers it, with its kind. */
export async function shareShow(ctx: CommandContext, ref: string): Promise<CommandResult<Share>> {
  const share = await findShare(await ctx.transport(), ref);
  return recordResult(share, { fields: [['ref', refOf(share)], ...fieldsOf(share)] });
}

export const shareShowCommand = defineCommand({
  summary: 'one share, every field as the appliance answers it',
  effect: 'read',
  calls: ['sharing.nfs.query', 'sharing.smb.query'],
  fanOut: 'read',
  args: shareRefArg,
  examples: ['stor share show docs', 'stor share show /mnt/tank/exports --json', 'stor share show nfs:3'],
  run: (ctx, { ref }) => shareShow(ctx, ref),
});
