import { RPC_CODE, RpcError, StorError } from '../../core/errors.js';
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
  let result: unknown;
  try {
    result = await transport.call(method, args.map(parseCallArgument));
  } catch (err) {
    // The appliance's -32601 says only "Method does not exist", not which.
    if (err instanceof RpcError && err.code === RPC_CODE.METHOD_NOT_FOUND) {
      throw new StorError('failed', 'METHOD_NOT_FOUND', `${JSON.stringify(method)}: no such method on this target (the appliance says: ${err.reason})`, {
        hint: '`stor call --help` lists the methods this target has',
        cause: err,
      });
    }
    throw err;
  }
  return { data: result, view: { kind: 'json' } };
}
