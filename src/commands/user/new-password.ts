import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import type { CommandContext } from '../framework/context.js';
import { readStdin } from '../shared/stdin.js';

/**
 * A user's new password: the first line of standard input. Never an argument or an environment
 * variable, so it stays out of shell history, `ps` and child processes.
 */
export async function readNewPassword(ctx: CommandContext): Promise<string> {
  const [password = ''] = (await readStdin(ctx)).split(/\r?\n/);
  if (password === '') {
    throw new StorError(E.NO_PASSWORD, 'standard input held no password', {
      hint: 'give the password on the first line of standard input',
    });
  }
  return password;
}
