import { E } from '../../core/error-catalogue.js';
import { isRoleDenial, RPC_CODE, RpcError, StorError } from '../../core/errors.js';
import { withNeededRoles } from '../../core/contract/client.js';
import type { CommandContext } from '../framework/context.js';
import type { CommandResult } from '../output/render.js';
import { arg, defineCommand, toggle, type OptionValues } from '../framework/declare.js';
import { CONTRACT_METHODS } from '../../core/contract/index.js';
import type { MethodContract } from '../../core/contract/method.js';
import { DEFAULT_RELEASE, contractFor } from '../../core/releases/index.js';
import type { Transport } from '../../core/transport/transport.js';
import { waitForJob } from '../shared/job.js';
import { readStdin } from '../shared/stdin.js';
import { refuseStdinForTargets } from '../shared/stdin-once.js';
import { targetRelease } from '../shared/target-release.js';
import { findJob } from '../job/model.js';

const options = {
  wait: toggle(
    'for a job method: wait for its job and print the job result (the default)',
    'for a job method: print the job id at once, not waiting for the job (then `stor job wait ID`)',
  ),
};

type CallOptions = OptionValues<typeof options>;

/**
 * The contract of the target's release (docs/RELEASES.md "Supported releases"): which methods it has, their
 * roles and whether they start a job. Asked only when an answer needs it (a role denial, a number
 * that may be a job id), so a plain call costs no extra round trip; a release stor does not know,
 * or a target that would not say, is judged by 25.10.1's.
 */
async function targetContract(transport: Transport): Promise<ReadonlyMap<string, MethodContract>> {
  const release = await targetRelease(transport).then(
    (r) => r.release,
    () => null,
  );
  return contractFor(release ?? DEFAULT_RELEASE);
}

/** Each argument is one positional parameter: JSON when it parses as JSON, else a string (as midclt does). */
export function parseCallArgument(arg: string): unknown {
  try {
    return JSON.parse(arg);
  } catch {
    return arg;
  }
}

/** The argument that stands for one parameter read from standard input. */
const FROM_STDIN = '-';

/**
 * The positional parameters: each ARG as parseCallArgument reads it, and the one `-` as the JSON
 * standard input holds, so a secret (a private key, a password) can be passed without being put
 * in argv, where any user’s `ps` would read it (SECURITY.md "Secrets").
 */
async function callParameters(ctx: CommandContext, args: string[]): Promise<unknown[]> {
  const fromStdin = args.filter((a) => a === FROM_STDIN).length;
  if (fromStdin === 0) return args.map(parseCallArgument);
  if (fromStdin > 1)
    throw new StorError(E.USAGE, 'only one parameter can be read from standard input (`-`), not ' + fromStdin, {
      hint: "pass the others as arguments; a string '-' itself is written '\"-\"'",
    });
  const text = await readStdin(ctx, { what: 'the one parameter `stor call -` reads' });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text, which may be a secret: only its size is named.
    throw new StorError(
      E.USAGE,
      `the parameter \`-\` reads JSON from standard input, and it holds none (${Buffer.byteLength(text)} bytes that do not parse as JSON)`,
      {
        hint: "e.g. `stor call keychaincredential.create - < credential.json`; a string '-' itself is written '\"-\"'",
      },
    );
  }
  return args.map((a) => (a === FROM_STDIN ? value : parseCallArgument(a)));
}

/**
 * `stor call METHOD [ARG…]`: any method; the result is printed as JSON. A job method's job is
 * waited for, as `midclt call -j` does, and its result printed; a failed job fails the command
 * with the job's error (docs/COMMANDS.md "Commands", call). `--no-wait` prints the job id as answered.
 */
export async function call(
  ctx: CommandContext,
  method: string,
  args: string[],
  opts: Partial<CallOptions> = {},
): Promise<CommandResult<unknown>> {
  const params = await callParameters(ctx, args);
  const transport = await ctx.transport();
  let result: unknown;
  try {
    result = await transport.call(method, params).catch(async (err: unknown) => {
      throw err instanceof RpcError && isRoleDenial(err)
        ? withNeededRoles(err, method, await targetContract(transport))
        : err;
    });
  } catch (err) {
    // The appliance's -32601 says only "Method does not exist", not which.
    if (err instanceof RpcError && err.code === RPC_CODE.METHOD_NOT_FOUND) {
      throw new StorError(
        E.METHOD_NOT_FOUND,
        `${JSON.stringify(method)}: no such method on this target (the appliance says: ${err.reason})`,
        {
          hint: '`stor call --help` lists the methods this target has',
          cause: err,
        },
      );
    }
    throw err;
  }
  // With the connection's legacy_jobs (the default) a job method answers its job id at once.
  // A method 25.10.1's contract has as no job is none in any release stor knows (the v26_0_0 entries
  // keep their `job`), so a count answered by a query costs no ask of the release.
  const known = CONTRACT_METHODS.get(method);
  const mayBeJob = known === undefined || known.job === true;
  if (
    typeof result === 'number' &&
    opts.wait !== false &&
    mayBeJob &&
    (await targetContract(transport)).get(method)?.job === true
  ) {
    await waitForJob(ctx, transport, result, `${method} (job ${result})`);
    result = (await findJob(transport, result)).result;
  }
  return { data: result, view: { kind: 'json' } };
}

export const callCommand = defineCommand({
  summary: 'call any appliance method; each ARG is one positional parameter (JSON if it parses, else a string)',
  effect: 'change',
  readsWith: async (method) => (await import('./read-method.js')).readsOnly(method) === true,
  args: {
    method: arg.required('method name, e.g. privilege.query', 'method'),
    args: arg.variadic('positional parameters', false),
  },
  options,
  examples: [
    'stor call core.ping',
    'stor call privilege.query \'[["name","=","ops"]]\' \'{"get":true}\'',
    "stor call user.query '[]' '{\"count\":true}'",
    'stor call keychaincredential.create - < credential.json',
  ],
  targetHelp: async (ctx) => (await import('./method-help.js')).methodHelp(ctx),
  notes:
    "A job method (filesystem.setperm, filesystem.chown, …) is waited for, as `midclt call -j` does: the job's result is printed, and a failed job exits as the command that started it would (its error on stderr); --no-wait prints the job id instead.\n" +
    'An ARG of `-` is that parameter read as JSON from standard input: a secret in it stays out of argv and the process list (a string - itself is written \'"-"\').\n' +
    'With --targets, only a method that reads (its roles are *_READ ones, or it is auth.me, core.get_jobs and the like) runs on each target.',
  fanOut: 'read',
  checkTargets: async ({ method, args }) => {
    if (args.includes(FROM_STDIN)) refuseStdinForTargets('`stor call … -`');
    (await import('./read-method.js')).assertReadMethod(method);
  },
  run: (ctx, { method, args }, opts) => call(ctx, method, args, opts),
});
