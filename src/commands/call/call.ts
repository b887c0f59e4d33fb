import { E } from '../../core/error-catalogue.js';
import { RPC_CODE, RpcError, StorError } from '../../core/errors.js';
import { withNeededRoles } from '../../core/contract/client.js';
import type { CommandContext } from '../shared/context.js';
import type { CommandResult } from '../shared/render.js';
import { arg, defineCommand } from '../shared/declare.js';

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
    result = await transport.call(method, args.map(parseCallArgument)).catch((err: unknown) => {
      throw withNeededRoles(err, method);
    });
  } catch (err) {
    // The appliance's -32601 says only "Method does not exist", not which.
    if (err instanceof RpcError && err.code === RPC_CODE.METHOD_NOT_FOUND) {
      throw new StorError(E.METHOD_NOT_FOUND, `${JSON.stringify(method)}: no such method on this target (the appliance says: ${err.reason})`, {
        hint: '`stor call --help` lists the methods this target has',
        cause: err,
      });
    }
    throw err;
  }
  return { data: result, view: { kind: 'json' } };
}

export const callCommand = defineCommand({
  summary: 'call any appliance method; each ARG is one positional parameter (JSON if it parses, else a string)',
  effect: 'change',
  readsWith: async (method) => (await import('./read-method.js')).readsOnly(method) === true,
  args: { method: arg.required('method name, e.g. privilege.query', 'method'), args: arg.variadic('positional parameters', false) },
  examples: ['stor call core.ping', 'stor call privilege.query \'[["name","=","ops"]]\' \'{"get":true}\'', 'stor call user.query \'[]\' \'{"count":true}\''],
  targetHelp: async (ctx) => (await import('./method-help.js')).methodHelp(ctx),
  notes: 'With --targets, only a method that reads (its roles are *_READ ones, or it is auth.me, core.get_jobs and the like) runs on each target.',
  fanOut: 'read',
  checkTargets: async ({ method }) => (await import('./read-method.js')).assertReadMethod(method),
  run: (ctx, { method, args }) => call(ctx, method, args),
});
