import type { CommandContext } from '../shared/context.js';
import type { CommandResult } from '../shared/render.js';
import { profileStore, type ProfileChange } from './store.js';
import { arg, defineCommand } from '../shared/declare.js';
import { profileNamed } from '../../core/config/profiles.js';
import { closeSessionsOf } from '../shared/close-sessions.js';

export async function profileRemove(ctx: CommandContext, name: string): Promise<CommandResult<ProfileChange>> {
  const store = profileStore(ctx);
  const profile = profileNamed(await store.read(), name);
  const wasCurrent = await store.remove(name);
  if (profile) await closeSessionsOf(ctx, profile);
  if (wasCurrent) ctx.note(`stor: profile "${name}" was current; commands now use the embedded appliance until you pick another`);
  return { data: { profile: name, current: false }, view: { kind: 'record', fields: [['removed profile', name], ['was current', wasCurrent]] } };
}

export const profileRemoveCommand = defineCommand({
  summary: 'delete a profile and its key',
  effect: 'change',
  args: { name: arg.required('profile name', 'profile') },
  examples: ['stor profile remove nas1'],
  run: (ctx, { name }) => profileRemove(ctx, name),
});
