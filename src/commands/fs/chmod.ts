import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import type { CommandContext } from '../framework/context.js';
import { arg, defineCommand, type OptionValues } from '../framework/declare.js';
import { parseMode } from '../shared/mode.js';
import type { CommandResult } from '../output/render.js';
import { changePermissions, recursionOptions, type PermResult } from './perm-model.js';

const options = recursionOptions;

type ChmodOptions = OptionValues<typeof options>;

/**
 * MODE as chmod(1) reads a number, as the octal string `filesystem.setperm` wants: three or four
 * octal digits are octal with or without a leading 0 (`750`, `0750`, `0o750`, `4755`), as
 * operators type them daily; no one means decimal 750, which is not a mode (docs/COMMANDS.md "Commands",
 * chmod). What stays ambiguous is refused before any call: a bare number of two digits (`77`:
 * octal 0077 as chmod(1) reads it, or decimal 77 = 0115?), and one with an 8 or a 9 (`488` is no
 * octal number; decimal 488 is 0750, or was `0448`/`0744` meant?).
 */
export function chmodMode(text: string): string {
  if (/^[0-7]{3,4}$/.test(text) || /^[1-7]$/.test(text)) return parseInt(text, 8).toString(8);
  if (/^[1-9][0-9]{0,3}$/.test(text)) {
    const decimal = parseInt(text, 10);
    const asDecimal = decimal <= 0o7777 ? `0${decimal.toString(8)} for decimal ${text}` : undefined;
    const what = /[89]/.test(text)
      ? `MODE ${text} is ambiguous: it is not octal (chmod(1) refuses it), and MODE is read as octal`
      : `MODE ${text} is ambiguous: chmod(1) reads it as octal 00${text}; as decimal it is 0${decimal.toString(8)}`;
    throw new StorError(E.BAD_MODE, what, {
      hint: /[89]/.test(text)
        ? `write the mode in octal, e.g. 0750${asDecimal ? ` (${asDecimal})` : ''}`
        : `write 00${text} for octal (as chmod(1) means it)${asDecimal ? `, or ${asDecimal}` : ''}`,
    });
  }
  return parseMode(text, 'MODE').mode.toString(8);
}

/** `stor chmod MODE PATH [-R]`: `filesystem.setperm` with the mode only, its job waited for. */
export async function chmod(
  ctx: CommandContext,
  modeText: string,
  path: string,
  opts: ChmodOptions,
): Promise<CommandResult<PermResult>> {
  const mode = chmodMode(modeText);
  const recursive = opts.recursive === true;
  return changePermissions(
    ctx,
    'filesystem.setperm',
    [{ path, mode, options: { recursive, traverse: opts.traverse === true, stripacl: false } }],
    { path, recursive, label: `chmod ${path}` },
  );
}

export const chmodCommand = defineCommand({
  summary: 'set the permission bits of a path on the appliance (filesystem.setperm)',
  effect: 'change',
  calls: ['filesystem.setperm', 'filesystem.stat'],
  args: {
    mode: arg.required('permission bits in octal, as chmod(1): 750, 0750, 0o750, 4755 (setuid)'),
    path: arg.required('an absolute path below /mnt, e.g. /mnt/tank/docs', 'remote-path'),
  },
  options,
  examples: [
    'stor chmod 750 /mnt/tank/docs',
    'stor chmod 0o640 /mnt/tank/docs/report.pdf',
    'stor chmod 0755 /mnt/tank/share -R',
  ],
  notes:
    'MODE is octal, as chmod(1) reads it: three or four digits (750, 4755) with or without a leading 0 or 0o. Refused as ambiguous: two digits (77: octal 0077 or decimal 77?) and numbers with an 8 or 9 (488).\n' +
    'The appliance refuses modes above 0777 and 0, and pool mountpoints (change a dataset below it).',
  fanOut: 'change',
  run: (ctx, { mode, path }, opts) => chmod(ctx, mode, path, opts),
});
