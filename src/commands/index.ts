import type { Command } from 'commander';
import { E } from '../core/error-catalogue.js';
import { StorError } from '../core/errors.js';
import { CommandContext, type CommandSetting } from './framework/context.js';
import { lazyVerb, type CommandSpec } from './framework/declare.js';
import { globalOptions, type GlobalOptions } from './framework/global-options.js';
import type { IO } from './output/io.js';
import type { CommandLine } from './framework/command-line.js';
import { registerCommandTree } from './framework/command-tree.js';
import { withFleet } from './fleet/policy.js';
import {
  addNoun,
  addOptions,
  addVerb,
  loadFor,
  namedTop,
  StorCommand,
  targetHelpFor,
  type Entry,
} from './framework/program.js';
import type { CommandResult } from './output/render.js';
import { apiKeyNoun } from './api-key/index.js';
import { datasetNoun } from './dataset/index.js';
import { privilegeNoun } from './privilege/index.js';
import { jobNoun } from './job/index.js';
import { profileNoun } from './profile/index.js';
import { groupNoun } from './group/index.js';
import { userNoun } from './user/index.js';
import { snapshotNoun } from './snapshot/index.js';
import { replicationNoun } from './replication/index.js';
import { sessionNoun } from './session/index.js';
import { systemNoun } from './system/index.js';
import { poolNoun } from './pool/index.js';
import { serviceNoun } from './service/index.js';
import { shareNoun } from './share/index.js';

/**
 * Every command: the top-level verbs and the nouns, in the order help lists them. Each verb's
 * module loads only when it runs, its help is asked for, or completion needs the whole tree.
 */
export const COMMANDS: Record<string, Entry> = {
  whoami: { kind: 'verb', load: lazyVerb(() => import('./whoami/whoami.js')) },
  upload: { kind: 'verb', load: lazyVerb(() => import('./upload/upload.js')) },
  ls: { kind: 'verb', load: lazyVerb(() => import('./fs/ls.js')) },
  stat: { kind: 'verb', load: lazyVerb(() => import('./fs/stat.js')) },
  download: { kind: 'verb', load: lazyVerb(() => import('./fs/download.js')) },
  mkdir: { kind: 'verb', load: lazyVerb(() => import('./fs/mkdir.js')) },
  chmod: { kind: 'verb', load: lazyVerb(() => import('./fs/chmod.js')) },
  chown: { kind: 'verb', load: lazyVerb(() => import('./fs/chown.js')) },
  rm: { kind: 'verb', load: lazyVerb(() => import('./fs/rm.js')) },
  user: { kind: 'noun', noun: userNoun },
  group: { kind: 'noun', noun: groupNoun },
  privilege: { kind: 'noun', noun: privilegeNoun },
  'api-key': { kind: 'noun', noun: apiKeyNoun },
  system: { kind: 'noun', noun: systemNoun },
  pool: { kind: 'noun', noun: poolNoun },
  dataset: { kind: 'noun', noun: datasetNoun },
  snapshot: { kind: 'noun', noun: snapshotNoun },
  replication: { kind: 'noun', noun: replicationNoun },
  share: { kind: 'noun', noun: shareNoun },
  service: { kind: 'noun', noun: serviceNoun },
  job: { kind: 'noun', noun: jobNoun },
  export: { kind: 'verb', load: lazyVerb(() => import('./state/export.js')) },
  plan: { kind: 'verb', load: lazyVerb(() => import('./state/plan.js')) },
  apply: { kind: 'verb', load: lazyVerb(() => import('./state/apply.js')) },
  call: { kind: 'verb', load: lazyVerb(() => import('./call/call.js')) },
  login: { kind: 'verb', load: lazyVerb(() => import('./login/login.js')) },
  logout: { kind: 'verb', load: lazyVerb(() => import('./login/logout.js')) },
  profile: { kind: 'noun', noun: profileNoun },
  session: { kind: 'noun', noun: sessionNoun },
  serve: { kind: 'verb', load: lazyVerb(() => import('./serve/serve.js')) },
  completion: { kind: 'verb', load: lazyVerb(() => import('./completion/completion.js')) },
};

export interface ProgramHooks {
  version: string;
  /** Called with the context of the command that runs, before it runs. */
  onContext(ctx: CommandContext): void;
  /** Called with the command's result, which `run()` renders. */
  onResult(result: CommandResult): void;
  /** A usage error commander found: `run()` prints it (as JSON under `--json`). */
  onUsageError(message: string): void;
  /** Where the command runs and what began before the CLI loaded, for the command's context. */
  setting?: CommandSetting;
}

const ROOT_EXAMPLES = [
  'stor whoami',
  'stor whoami --json',
  'stor privilege check',
  'stor upload ./report.pdf /mnt/tank/docs/ --mode 0644',
];

/**
 * The command tree for `argv`: the root with its global options, every noun, and the verbs this
 * command line needs (all of them for help, errors and completion).
 */
export async function buildProgram(path: CommandLine, io: IO, hooks: ProgramHooks): Promise<StorCommand> {
  const specs = await loadFor(path, COMMANDS);
  const program = new StorCommand('stor');
  program
    .description('Administer TrueNAS-style storage appliances, or the embedded emulated one.')
    .version(hooks.version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand(false)
    .configureHelp({ showGlobalOptions: true })
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Commander puts its suggestion on a line of its own; stor's message is one line.
      outputError: (s) =>
        hooks.onUsageError(
          s
            .replace(/^error: /, '')
            .trim()
            .replace(/\s*\n\s*/g, ' '),
        ),
    })
    .addHelpText(
      'after',
      `\nExamples:\n${ROOT_EXAMPLES.map((l) => `  $ ${l}`).join('\n')}\n` +
        '\nWith no profile selected, commands use the embedded appliance in $STOR_HOME (default ~/.local/share/stor).\n' +
        "`stor help <command>` shows a command's help, e.g. `stor help privilege fix`.\n",
    );
  addOptions(program, globalOptions);

  const runner = {
    // `stor help call` as `stor call --help`: the target's methods are part of that help.
    wantsHelp: path.asksHelp,
    context: (cmd: Command): CommandContext => {
      const opts = cmd.optsWithGlobals() as GlobalOptions;
      const ctx = new CommandContext(
        io,
        {
          // `--json-lines` is `--json` written a line at a time: notes silenced, errors as JSON,
          // the same documents (render.ts writes them; a --targets run streams them, fan-out.ts).
          json: opts.json === true || opts.jsonLines === true,
          jsonLines: opts.jsonLines === true,
          quiet: opts.quiet === true,
          verbose: opts.verbose === true,
          insecure: opts.insecure === true,
          wide: opts.wide === true,
          columns: opts.columns,
          timeout: opts.timeout,
          url: opts.url,
          profile: opts.profile,
          targets: opts.targets,
          ca: opts.ca,
          rpc: opts.rpc,
          session: opts.session,
        },
        hooks.setting,
      );
      hooks.onContext(ctx);
      return ctx;
    },
    onResult: hooks.onResult,
  };

  // Each verb declared as the fleet's policy makes it: what `--targets` does to it is decided there.
  // A line that names a known command gets that one only: none of the other nouns' commands would
  // take part in its parse, its help or its errors (commander's suggestions are among a command's
  // own options and subcommands), and each costs commander's construction at every start.
  const named = namedTop(path, COMMANDS);
  for (const [top, entry] of Object.entries(COMMANDS)) {
    if (named !== undefined && top !== named) continue;
    if (entry.kind === 'verb') {
      const spec = specs.get(top);
      if (spec) addVerb(program, top, withFleet(top, spec), runner);
      continue;
    }
    // A verb under a sub-noun (`nfs create`) goes under the sub-noun's command, made when its first verb is.
    const nouns = new Map([['', addNoun(program, top, entry.noun.summary)]]);
    const nounOf = (words: string[]): Command => {
      const key = words.join(' ');
      const made = nouns.get(key) ?? addNoun(nounOf(words.slice(0, -1)), words.at(-1)!, entry.noun.nouns[key]!);
      nouns.set(key, made);
      return made;
    };
    for (const verb of Object.keys(entry.noun.verbs)) {
      const spec = specs.get(`${top} ${verb}`);
      const words = verb.split(' ');
      if (spec) addVerb(nounOf(words.slice(0, -1)), words.at(-1)!, withFleet(`${top} ${verb}`, spec), runner);
    }
  }

  program
    .command('help')
    .description('show help for a command, e.g. `stor help privilege fix`')
    .argument('[command...]', 'the command')
    .action(async (words: string[]) => {
      let cmd: Command = program;
      for (const word of words) {
        const sub = cmd.commands.find((c) => c.name() === word);
        if (!sub) {
          throw new StorError(E.UNKNOWN_HELP_TOPIC, `no help topic ${JSON.stringify(words.join(' '))}`, {
            hint: '`stor --help` lists the commands',
          });
        }
        cmd = sub;
      }
      await targetHelpFor.get(cmd)?.();
      cmd.outputHelp();
    });
  return program;
}

export { globalOptions };

/** All verb declarations with their command words, for completion. */
export async function allCommands(): Promise<Map<string, CommandSpec<any, any, any>>> {
  return loadFor({}, COMMANDS);
}
registerCommandTree(allCommands);
