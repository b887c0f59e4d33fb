import type { CommandContext } from '../shared/context.js';
import type { CommandResult } from '../shared/render.js';

/** Each argument is one positional parameter: JSON when it parses as JSON, else a string (as midclt does). */
export function parseCallArgument(arg: string): unknown {
  try {
    return JSON.parse(arg);
  } catch {
    return arg;
  }
}

/** `stor call METHOD [ARG…]`: any method; the result is printed as JSON. */
export async function call(ctx: CommandContext, method: string, args: string[]): Promise<CommandResult<unknown>> {
  const transport = await ctx.transport();
  const result = await transport.call(method, args.map(parseCallArgument));
  return { data: result, view: { kind: 'json' } };
}
