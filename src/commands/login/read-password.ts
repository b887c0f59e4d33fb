import { StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';
import type { OtpSource } from '../../core/transport/login-strategies.js';
import type { CommandContext } from '../framework/context.js';
import { promptStreams } from '../shared/prompts.js';
import { readStdin } from '../shared/stdin.js';

export interface PasswordSourceOptions {
  passwordStdin?: boolean;
}

export interface PasswordInput {
  password: string;
  /** Where the one-time code comes from, should the appliance ask for one. */
  otp: OtpSource;
}

function otpNeeded(username: string): StorError {
  return new StorError(E.OTP_NEEDED, `${username} has two-factor authentication, and no one-time code was given`, {
    hint: 'pipe the code as the second line of standard input, after the password (--password-stdin), or run on a terminal to be prompted',
  });
}

/**
 * The password, from standard input (`--password-stdin`: the first line is the password, an
 * optional second line the one-time code) or from a hidden prompt on a terminal. Never from argv
 * or the environment, so it stays out of shell history, `ps` and child processes.
 */
export async function readPassword(
  ctx: CommandContext,
  username: string,
  options: PasswordSourceOptions,
): Promise<PasswordInput> {
  if (options.passwordStdin) {
    const [password = '', code = ''] = (await readStdin(ctx)).split(/\r?\n/);
    if (password === '') {
      throw new StorError(E.NO_PASSWORD, 'standard input held no password', {
        hint: 'give the password on the first line (and the one-time code, if the appliance asks for one, on the second)',
      });
    }
    const given = code.trim();
    // One code from a pipe: a rejected code cannot be retried.
    return {
      password,
      otp: async (user, attempt) => {
        if (given === '') throw otpNeeded(user);
        return attempt === 0 ? given : null;
      },
    };
  }
  if (!(ctx.io.stdin.isTTY && ctx.io.stderr.isTTY)) {
    throw new StorError(E.NO_PASSWORD, `no password given for ${username}`, {
      hint: 'pass --password-stdin and pipe the password in (a prompt appears only on a terminal)',
    });
  }
  const { input, password } = await import('@inquirer/prompts');
  const typed = await password({ message: `Password for ${username}`, mask: true }, promptStreams(ctx));
  return {
    password: typed,
    otp: async (user, attempt) =>
      (
        await input(
          {
            message: attempt === 0 ? `One-time code for ${user}` : `That code was rejected. One-time code for ${user}`,
          },
          promptStreams(ctx),
        )
      ).trim(),
  };
}
