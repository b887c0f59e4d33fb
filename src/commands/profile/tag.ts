import type { CommandContext } from '../framework/context.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { profileStore } from './store.js';
import { arg, defineCommand, flag } from '../framework/declare.js';
import { StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';

/** `stor profile tag --json` */
export interface ProfileTags {
  profile: string;
  /** The profile's tags after the change, sorted. */
  tags: string[];
}

// `@` starts a tag in --targets and `,` `[` `]` split or expand the list: a tag holding them could never be selected.
export const TAG = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export async function profileTag(
  ctx: CommandContext,
  name: string,
  tags: string[],
  remove: boolean,
): Promise<CommandResult<ProfileTags>> {
  for (const tag of tags) {
    if (!TAG.test(tag)) {
      throw new StorError(E.USAGE, `cannot use ${JSON.stringify(tag)} as a tag`, {
        hint: 'a tag is letters, digits, "_", "." and "-", starting with a letter or digit (`stor profile tag nas1 prod`)',
      });
    }
  }
  const after = await profileStore(ctx).tag(name, remove ? [] : tags, remove ? tags : []);
  return recordResult(
    { profile: name, tags: after },
    {
      fields: [
        ['profile', name],
        ['tags', after],
      ],
    },
  );
}

export const profileTagCommand = defineCommand({
  summary: 'add tags to a profile (or remove them), to select profiles with --targets @tag',
  effect: 'change',
  args: { name: arg.required('profile name', 'profile'), tags: arg.variadic('tags to add (or remove)', true) },
  options: { remove: flag('remove these tags instead of adding them') },
  examples: [
    'stor profile tag nas1 prod eu',
    'stor --targets @prod privilege check',
    'stor profile tag nas1 eu --remove',
  ],
  run: (ctx, { name, tags }, { remove }) => profileTag(ctx, name, tags, remove),
});
