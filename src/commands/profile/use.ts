import type { CommandContext } from '../framework/context.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { profileStore, type ProfileChange } from './store.js';
import { arg, defineCommand } from '../framework/declare.js';

export async function profileUse(ctx: CommandContext, name: string): Promise<CommandResult<ProfileChange>> {
  await profileStore(ctx).use(name);
  return recordResult(
    { profile: name, current: true },
    {
      fields: [
        ['profile', name],
        ['current', true],
      ],
    },
  );
}

export const profileUseCommand = defineCommand({
  summary: 'make a profile current',
  effect: 'change',
  args: { name: arg.required('profile name', 'profile') },
  examples: ['stor profile use nas1'],
  run: (ctx, { name }) => profileUse(ctx, name),
});
