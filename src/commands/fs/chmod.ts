import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import type { CommandContext } from '../shared/context.js';
import { arg, defineCommand, type OptionValues } from '../shared/declare.js';
import { parseMode } from '../shared/mode.js';
import type { CommandResult } from '../shared/render.js';
import { changePermissions, recursionOptions, type PermResult } from './perm-model.js';

const options = recursionOptions;

type ChmodOptions = OptionValues<typeof options>;

/**
 * MODE as `--mode` takes it (shared/mode.ts), as the octal string `filesystem.setperm` wants.
 * Three octal digits without a leading 0 that are also a mode in decimal (400, 440, 511) are
 * refused: chmod(1) reads them as octal and the decimal reading is another mode, so either guess
 * would surprise someone. Above 511 (644, 755) parseMode refuses them with the octal to write.
 */
export function chmodMode(text: string): string {
  const decimal = parseInt(text, 10);
  if (/^[1-7][0-7]{2}$/.test(text) && decimal <= 0o777) {
    throw new StorError(E.BAD_MODE, `MODE ${text} is ambiguous: chmod(1) reads it as octal 0${text}; as decimal it is 0${decimal.toString(8)}`, {
      hint: `write 0${text} for octal (as chmod(1) means it), or 0${decimal.toString(8)} for decimal ${text}`,
    });
  }
  return parseMode(text, 'MODE').mode.toString(8);
}

/** `stor chmod MODE PATH [-R]`: `filesystem.setperm` with the mode only, its job waited for. */
export async function chmod(ctx: CommandContext, modeText: string, path: string, opts: ChmodOptions): Promise<CommandResult<PermResult>> {
  const mode = chmodMode(modeText);
  const recursive = opts.recursive === true;
  return changePermissions(ctx, 'filesystem.setperm', [{ path, mode, options: { recursive, traverse: opts.traverse === true, stripacl: false } }], { path, recursive, label: `chmod ${path}` });
}

export const chmodCommand = defineCommand({
  summary: 'set the permission bits of a path on the appliance (filesystem.setperm)',
  effect: 'change',
  args: {
    mode: arg.required('permission bits: octal (0750, 0o750) or decimal up to 511 (488)'),
    path: arg.required('an absolute path below /mnt, e.g. /mnt/tank/docs', 'remote-path'),
  },
  options,
  examples: ['stor chmod 0750 /mnt/tank/docs', 'stor chmod 0o640 /mnt/tank/docs/report.pdf', 'stor chmod 0755 /mnt/tank/share -R'],
  notes: 'The appliance refuses modes above 0777 and 0, and pool mountpoints (change a dataset below it).',
  fanOut: 'change',
  run: (ctx, { mode, path }, opts) => chmod(ctx, mode, path, opts),
});
