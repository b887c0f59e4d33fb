import { configDirFrom } from '../../core/config/paths.js';
import { ProfileStore, profileNamed } from '../../core/config/profiles.js';
import type { CommandContext } from '../shared/context.js';
import type { CommandResult } from '../shared/render.js';
import { defineCommand } from '../shared/declare.js';
import { closeSessionsOf } from '../shared/close-sessions.js';

/** `stor logout --json` */
export interface LogoutResult {
  /** The profile logged out of; null when none was named and none is current. */
  profile: string | null;
  /** False when nothing was saved under that name (a second logout). */
  removed: boolean;
  was_current: boolean;
}

/**
 * `stor logout`: forget a profile and its key (the current one unless --profile names another).
 * Logging out of what is not saved succeeds, saying so, so that a runbook may log out twice;
 * `stor profile remove NAME`, which names a profile to delete, still refuses an unknown one.
 */
export async function logout(ctx: CommandContext): Promise<CommandResult<LogoutResult>> {
  const store = new ProfileStore(configDirFrom(ctx.io.env));
  const doc = await store.read();
  const name = ctx.globals.profile ?? (ctx.io.env.STOR_PROFILE || undefined) ?? doc.current ?? null;
  if (name === null || !profileNamed(doc, name)) {
    const data: LogoutResult = { profile: name, removed: false, was_current: false };
    ctx.note(name === null ? 'stor: no profile is current: nothing to log out of' : `stor: no profile "${name}" is saved: nothing to log out of`);
    return { data, view: { kind: 'record', fields: [['removed profile', null], ['was current', false]] } };
  }
  const profile = profileNamed(doc, name)!;
  const wasCurrent = await store.remove(name);
  await closeSessionsOf(ctx, profile);
  const data: LogoutResult = { profile: name, removed: true, was_current: wasCurrent };
  if (wasCurrent) ctx.note('stor: commands now use the embedded appliance until you log in or pick a profile');
  return { data, view: { kind: 'record', fields: [['removed profile', name], ['was current', wasCurrent]] } };
}

export const logoutCommand = defineCommand({
  summary: 'forget a saved profile and its key (the current one, or --profile NAME); nothing saved is not an error',
  effect: 'change',
  examples: ['stor logout', 'stor --profile nas1 logout'],
  run: (ctx) => logout(ctx),
});
