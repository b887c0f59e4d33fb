import { resolve } from 'node:path';
import { StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';
import { KEY_FILE, readSmallFile } from '../../core/config/small-file.js';
import { API_KEY_PATTERN } from '../../core/store/secrets.js';
import type { CommandContext } from '../framework/context.js';
import { promptStreams } from '../shared/prompts.js';
import { readStdin } from '../shared/stdin.js';
import { envSetting } from '../framework/target.js';

export interface KeySourceOptions {
  apiKeyFile?: string;
  apiKeyStdin?: boolean;
}

/**
 * The key, from (in order) `--api-key-file`, `--api-key-stdin`, `STOR_API_KEY`, or a hidden
 * prompt when a person is at a terminal. Never from argv, so it stays out of shell history and `ps`.
 */
export async function readApiKey(ctx: CommandContext, options: KeySourceOptions): Promise<string> {
  let key: string;
  const envKey = options.apiKeyFile || options.apiKeyStdin ? undefined : envSetting(ctx.io.env, 'STOR_API_KEY');
  if (options.apiKeyFile) {
    key = readKeyFile(ctx, resolve(ctx.io.cwd, options.apiKeyFile));
  } else if (options.apiKeyStdin) {
    key = await readStdin(ctx);
  } else if (envKey !== undefined) {
    key = envKey;
  } else if (ctx.io.stdin.isTTY && ctx.io.stderr.isTTY) {
    const { password } = await import('@inquirer/prompts');
    key = await password({ message: 'API key', mask: true }, promptStreams(ctx));
  } else {
    throw new StorError(E.NO_API_KEY, 'no API key given', {
      hint: 'pass --api-key-file <file> or --api-key-stdin, or set STOR_API_KEY (a prompt appears only on a terminal)',
    });
  }
  key = key.trim();
  if (!API_KEY_PATTERN.test(key)) {
    throw new StorError(E.MALFORMED_KEY, 'that is not an API key: expected <id>-<64 letters and digits>', {
      hint: 'copy the whole key shown when it was created (by `stor api-key create`)',
    });
  }
  return key;
}

/**
 * The text of a key file (`--api-key-file`, `key_file:` of `stor profile import`): a regular file
 * of at most 1 kB, so `/dev/zero` or a FIFO is refused at once instead of exhausting memory or
 * hanging. `owner` names the profile it is for in the message.
 */
export function readKeyFile(ctx: CommandContext, path: string, owner?: string): string {
  let file;
  try {
    file = readSmallFile(path, KEY_FILE);
  } catch (err) {
    if (err instanceof StorError) throw err;
    throw new StorError(
      E.KEY_FILE_UNREADABLE,
      `cannot read the key file ${owner ? `of ${owner}, ` : ''}${path}: ${(err as Error).message}`,
    );
  }
  if ((file.mode & 0o077) !== 0) ctx.warn(`stor: warning: ${path} is readable by other users; consider chmod 600`);
  return file.data.toString('utf8');
}
