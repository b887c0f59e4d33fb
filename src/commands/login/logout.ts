import { configDirFrom } from '../../core/config/paths.js';
import { ProfileStore } from '../../core/config/profiles.js';
import { StorError } from '../../core/errors.js';
import type { CommandContext } from '../shared/context.js';
import type { CommandResult } from '../shared/render.js';

/** `stor logout --json` */
export interface LogoutResult {
  profile: string;
  was_current: boolean;
}

/** `stor logout`: forget a profile and its key (the current one unless --profile names another). */
export async function logout(ctx: CommandContext): Promise<CommandResult<LogoutResult>> {
  const store = new ProfileStore(configDirFrom(ctx.io.env));
  const doc = await store.read();
  const name = ctx.globals.profile ?? ctx.io.env.STOR_PROFILE ?? doc.current;
  if (!name) throw new StorError('usage', 'NOT_LOGGED_IN', 'no profile is current; nothing to log out of', { hint: 'name one with --profile' });
  const wasCurrent = await store.remove(name);
  const data: LogoutResult = { profile: name, was_current: wasCurrent };
  if (wasCurrent && !ctx.globals.json) ctx.note('stor: commands now use the embedded appliance until you log in or pick a profile');
  return { data, view: { kind: 'record', fields: [['removed profile', name], ['was current', wasCurrent]] } };
}
