import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import type { CommandContext } from '../framework/context.js';
import { arg, defineCommand, type OptionValues } from '../framework/declare.js';
import type { CommandResult } from '../output/render.js';
import { changePermissions, recursionOptions, type PermResult } from './perm-model.js';

const options = recursionOptions;

type ChownOptions = OptionValues<typeof options>;

/** The owner fields of `filesystem.chown`: names go as `user`/`group` (the appliance resolves them), numbers as ids. */
export interface OwnerSpec {
  user?: string;
  uid?: number;
  group?: string;
  gid?: number;
}

/** `USER`, `USER:GROUP` or `:GROUP`, as chown(1) writes them. */
export function parseOwner(text: string): OwnerSpec {
  const m = /^([^:]*)(?::([^:]*))?$/.exec(text);
  const [user, group] = [m?.[1] ?? '', m?.[2]];
  if (!m || (user === '' && !group) || group === '') {
    throw new StorError(E.USAGE, `the owner is USER, USER:GROUP or :GROUP, not ${JSON.stringify(text)}`, {
      hint: 'e.g. stor chown alice:staff /mnt/tank/docs',
    });
  }
  const part = (name: string, key: 'user' | 'group', id: 'uid' | 'gid') =>
    name === '' ? {} : /^\d+$/.test(name) ? { [id]: Number(name) } : { [key]: name };
  return { ...part(user, 'user', 'uid'), ...(group === undefined ? {} : part(group, 'group', 'gid')) };
}

/** `stor chown USER[:GROUP] PATH [-R]`: `filesystem.chown`, its job waited for. */
export async function chown(
  ctx: CommandContext,
  ownerText: string,
  path: string,
  opts: ChownOptions,
): Promise<CommandResult<PermResult>> {
  const owner = parseOwner(ownerText);
  const recursive = opts.recursive === true;
  return changePermissions(
    ctx,
    'filesystem.chown',
    [{ path, ...owner, options: { recursive, traverse: opts.traverse === true } }],
    { path, recursive, label: `chown ${path}` },
  );
}

export const chownCommand = defineCommand({
  summary: 'change the owner and/or group of a path on the appliance (filesystem.chown)',
  effect: 'change',
  calls: ['filesystem.chown', 'filesystem.stat'],
  args: {
    owner: arg.required('USER, USER:GROUP or :GROUP; names are resolved by the appliance, numbers are ids'),
    path: arg.required('an absolute path below /mnt, e.g. /mnt/tank/docs', 'remote-path'),
  },
  options,
  examples: [
    'stor chown alice /mnt/tank/docs/report.pdf',
    'stor chown alice:staff /mnt/tank/docs -R',
    'stor chown :staff /mnt/tank/share',
  ],
  fanOut: 'change',
  run: (ctx, { owner, path }, opts) => chown(ctx, owner, path, opts),
});
