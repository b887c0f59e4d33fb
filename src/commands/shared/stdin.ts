import type { CommandContext } from './context.js';

/** All of standard input, as text: where a secret comes from when a script pipes it in. */
export async function readStdin(ctx: CommandContext): Promise<string> {
  let text = '';
  for await (const chunk of ctx.io.stdin) text += chunk.toString();
  return text;
}
