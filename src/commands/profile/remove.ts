import type { CommandContext } from '../framework/context.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { profileStore, type ProfileChange } from './store.js';
import { arg, defineCommand, ignoreNotFoundFlag } from '../framework/declare.js';
import { profileNamed } from '../../core/config/profiles.js';
import { closeSessionsOf } from '../shared/close-sessions.js';
import { lookupOrNothing, nothingDeleted, type NothingDeleted } from '../shared/ignore-not-found.js';

export async function profileRemove(
  ctx: CommandContext,
  name: string,
  ignoreNotFound = false,
): Promise<CommandResult<ProfileChange | NothingDeleted>> {
  const store = profileStore(ctx);
  const profile = profileNamed(await store.read(), name);
  // The store refuses an unknown name (NOT_FOUND) inside its locked write.
  const removed = await lookupOrNothing(ignoreNotFound, () => store.remove(name));
  if ('missing' in removed) return nothingDeleted(ctx, name, removed.missing);
  const wasCurrent = removed.found;
  if (profile) await closeSessionsOf(ctx, profile);
  if (wasCurrent)
    ctx.note(`stor: profile "${name}" was current; commands now use the embedded appliance until you pick another`);
  return recordResult(
    { profile: name, current: false },
    {
      fields: [
        ['removed profile', name],
        ['was current', wasCurrent],
      ],
    },
  );
}

export const profileRemoveCommand = defineCommand({
  summary: 'delete a profile and its key',
  effect: 'change',
  args: { name: arg.required('profile name', 'profile') },
  options: { ignoreNotFound: ignoreNotFoundFlag() },
  examples: ['stor profile remove nas1', 'stor profile remove nas1 --ignore-not-found'],
  run: (ctx, { name }, opts) => profileRemove(ctx, name, opts.ignoreNotFound),
});
