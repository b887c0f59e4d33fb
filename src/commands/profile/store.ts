import { ProfileStore } from '../../core/config/profiles.js';
import type { CommandContext } from '../framework/context.js';

/** The saved profiles of this user (STOR_CONFIG_DIR, else the platform's config directory). */
export function profileStore(ctx: CommandContext): ProfileStore {
  return ProfileStore.of(ctx.io.env);
}

/** `stor profile use|remove --json`. */
export interface ProfileChange {
  profile: string;
  current: boolean;
}
