import type { CommandContext } from '../shared/context.js';
import type { CommandResult } from '../shared/render.js';
import { profileStore, type ProfileChange } from './store.js';
import { arg, defineCommand } from '../shared/declare.js';

export async function profileRemove(ctx: CommandContext, name: string): Promise<CommandResult<ProfileChange>> {
  const wasCurrent = await profileStore(ctx).remove(name);
  return { data: { profile: name, current: false }, view: { kind: 'lines', lines: [`Removed profile "${name}"${wasCurrent ? ' (it was current)' : ''}.`] } };
}

export const profileRemoveCommand = defineCommand({
  summary: 'delete a profile and its key',
  args: { name: arg.required('profile name', 'profile') },
  examples: ['stor profile remove nas1'],
  run: (ctx, { name }) => profileRemove(ctx, name),
});
