import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import type { CommandContext } from '../framework/context.js';

/**
 * What standard input may hold when it carries secrets: keys (about 70 bytes a line, one per
 * profile of `stor profile import`) or a password. `< /dev/zero` must end in a clear error, not
 * in a process that grows until it is killed.
 */
export const STDIN_SECRETS_BYTES = 1024 * 1024;

/** What a command reads from standard input, for the error when there is too much of it. */
export interface StdinUse {
  /** What it is too much for: `too much for ${what}`. */
  what: string;
  hint?: string;
}

const SECRETS: StdinUse = {
  what: 'keys or a password',
  hint: 'pipe in only the key (or password), e.g. `stor login --api-key-stdin < key.txt`',
};

/** All of standard input, as text: where a secret comes from when a script pipes it in. */
export async function readStdin(ctx: CommandContext, use: StdinUse = SECRETS): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  // Leaving the loop early destroys the stream: nothing more is read.
  for await (const chunk of ctx.io.stdin) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    length += bytes.length;
    if (length > STDIN_SECRETS_BYTES) {
      throw new StorError(
        E.LOCAL_FILE_REFUSED,
        `standard input holds more than ${STDIN_SECRETS_BYTES} bytes: too much for ${use.what}; nothing was read`,
        use.hint ? { hint: use.hint } : {},
      );
    }
    chunks.push(bytes);
  }
  // Decoded once, whole: a character split across two chunks stays one character.
  return Buffer.concat(chunks).toString('utf8');
}
