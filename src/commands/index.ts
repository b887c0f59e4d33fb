import { Command, InvalidArgumentError, Option } from 'commander';
import { CommandContext, type GlobalOptions } from './shared/context.js';
import type { IO } from './shared/io.js';
import type { CommandResult } from './shared/render.js';

export interface ProgramHooks {
  version: string;
  /** Called with the context of the command that runs, before it runs. */
  onContext(ctx: CommandContext): void;
  /** Called with the command's result, which `run()` renders. */
  onResult(result: CommandResult): void;
  /** Lines for `stor call --help`, from the method table (loaded only when that help is asked for). */
  methodHelp?: string;
}

const examples = (...lines: string[]) => `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;

/** Parses a positive number of seconds for `--timeout`. */
function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`--timeout takes a positive number of seconds, not ${JSON.stringify(value)}`);
  return n;
}

/** The whole command tree. Actions load their command module on first use, keeping start-up light. */
export function buildProgram(io: IO, hooks: ProgramHooks): Command {
  const program = new Command('stor');
  program
    .description('Administer TrueNAS-style storage appliances, or the embedded emulated one.')
    .version(hooks.version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addOption(new Option('--json', 'print machine-readable JSON on stdout').default(false))
    .addOption(new Option('-q, --quiet', 'print nothing but results and errors').default(false))
    .addOption(new Option('-v, --verbose', 'print more about what stor is doing').default(false))
    .addOption(new Option('--timeout <seconds>', 'give up on the target after this long').argParser(seconds))
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: (s, write) => write(s.startsWith('error:') ? `stor: ${s}` : s),
    })
    .addHelpText(
      'after',
      examples('stor whoami', 'stor whoami --json', 'stor call privilege.query \'[["builtin_name","=",null]]\'') +
        '\nWith no profile selected, commands use the embedded appliance in $STOR_HOME (default ~/.local/share/stor).\n',
    );

  const context = (cmd: Command): CommandContext => {
    const opts = cmd.optsWithGlobals() as GlobalOptions;
    const ctx = new CommandContext(io, {
      json: opts.json === true,
      quiet: opts.quiet === true,
      verbose: opts.verbose === true,
      ...(opts.timeout !== undefined ? { timeout: opts.timeout } : {}),
    });
    hooks.onContext(ctx);
    return ctx;
  };

  program
    .command('whoami')
    .description('show the identity the target logs in as: user, account attributes, effective roles')
    .addHelpText('after', examples('stor whoami', 'stor whoami --json | jq .role_count'))
    .action(async (_opts: unknown, cmd: Command) => {
      const { whoami } = await import('./whoami/whoami.js');
      hooks.onResult(await whoami(context(cmd)));
    });

  program
    .command('call')
    .description('call any appliance method; each ARG is one positional parameter (JSON if it parses, else a string)')
    .argument('<method>', 'method name, e.g. privilege.query')
    .argument('[args...]', 'positional parameters')
    .addHelpText(
      'after',
      examples('stor call core.ping', 'stor call privilege.query \'[["name","=","ops"]]\' \'{"get":true}\'', 'stor call user.query \'[]\' \'{"count":true}\'') +
        (hooks.methodHelp ? `\nMethods of the emulated appliance:\n${hooks.methodHelp}\n` : ''),
    )
    .action(async (method: string, args: string[], _opts: unknown, cmd: Command) => {
      const { call } = await import('./call/call.js');
      hooks.onResult(await call(context(cmd), method, args));
    });

  return program;
}
