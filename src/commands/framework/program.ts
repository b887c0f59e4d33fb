import { Command, Help, InvalidArgumentError, Option, type HelpContext } from 'commander';
import { StorError } from '../../core/errors.js';
import type { CommandLine } from './command-line.js';
import type { CommandContext } from './context.js';
import {
  kebab,
  type ArgSpecs,
  type CommandSpec,
  type LoadCommand,
  type NounSpec,
  type OptionSpecs,
  verbAt,
} from './declare.js';
import type { CommandResult } from '../output/render.js';

/**
 * A noun (or the root) with no verb given asks for help: it goes to stdout and exits 0, instead
 * of commander's usage error on stderr.
 */
export class StorCommand extends Command {
  override createCommand(name?: string): StorCommand {
    return new StorCommand(name);
  }

  override help(context?: HelpContext): never;
  override help(cb: (str: string) => string): never;
  override help(context?: HelpContext | ((str: string) => string)): never {
    if (typeof context === 'object' && context.error && this.commands.length > 0 && this.args.length === 0)
      return super.help();
    return super.help(context as HelpContext);
  }
}

/** The root's table: a top-level verb's loader, or a noun with its verbs. */
export type Entry = { kind: 'verb'; load: LoadCommand } | { kind: 'noun'; noun: NounSpec };

/** What the command line names (command-line.ts), which decides which verbs load. */
export type CommandPath = Partial<Pick<CommandLine, 'words' | 'helpTopic' | 'commandWords'>>;

/** A list option is repeatable and comma-separated: `--roles A,B --roles C` is [A, B, C]; `--roles ""` is []. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [
    ...(previous ?? []),
    ...value
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== ''),
  ];
}

/** Adds declared options to a commander command. Flags get no default, so help shows no "(default: false)". */
export function addOptions(cmd: Command, specs: OptionSpecs): void {
  for (const [key, spec] of Object.entries(specs)) {
    const long = `--${kebab(key)}`;
    const names = spec.short ? `-${spec.short}, ${long}` : long;
    const option =
      spec.type === 'flag' || spec.type === 'toggle'
        ? new Option(names, spec.description)
        : new Option(`${names} ${spec.placeholder}`, spec.description);
    if (spec.conflicts) option.conflicts([...spec.conflicts]);
    if (spec.hidden) option.hideHelp();
    if (spec.type === 'list') option.argParser(collect);
    if (spec.type === 'value') {
      if (spec.choices) option.choices([...spec.choices]);
      if (spec.parse) option.argParser(wrapParse(spec.parse));
      if (spec.default !== undefined) option.default(spec.default);
    }
    cmd.addOption(option);
    if (spec.type === 'toggle') cmd.addOption(new Option(`--no-${kebab(key)}`, spec.offDescription));
  }
}

/** A parse function's own usage errors keep their codes; anything else reads as commander's "invalid argument". */
function wrapParse<T>(parse: (raw: string) => T): (raw: string) => T {
  return (raw) => {
    try {
      return parse(raw);
    } catch (err) {
      if (err instanceof InvalidArgumentError || err instanceof StorError) throw err;
      throw new InvalidArgumentError(err instanceof Error ? err.message : String(err));
    }
  };
}

/** Flags not given are false, so verbs never see undefined for a flag. */
function withFlagDefaults(specs: OptionSpecs, given: Record<string, unknown>): Record<string, unknown> {
  const out = { ...given };
  for (const [key, spec] of Object.entries(specs)) if (spec.type === 'flag') out[key] ??= false;
  return out;
}

/**
 * A noun's help (`stor privilege`): its verbs, what one came for, before the global options that
 * commander lists ahead of them (and that each verb's own help lists again).
 */
export function verbsFirst(cmd: Command, helper: Help): string {
  const text = Help.prototype.formatHelp.call(helper, cmd, helper);
  const start = text.indexOf('\nGlobal Options:\n');
  const end = start < 0 ? -1 : text.indexOf('\n\n', start + 1);
  if (end < 0) return text;
  const globals = text.slice(start + 1, end + 1);
  return `${text.slice(0, start + 1)}${text.slice(end + 2).replace(/\n*$/, '\n')}\n${globals}`;
}

const GLOBALS_LINE = '\nGlobal options (--json, --url, …): see `stor --help`.\n';

const examples = (lines: readonly string[]) =>
  lines.length ? `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n` : '';

/** What the commands give the program they run in: the parsed context, and the result. */
export interface Runner {
  /** The command's context, built from the parsed global options. */
  context(cmd: Command): CommandContext;
  onResult(result: CommandResult): void;
  /** Filled in by `targetHelp` before the verb's help is shown. */
  wantsHelp: boolean;
}

/** For verbs whose help the target completes: what to ask it before showing that help. */
export const targetHelpFor = new WeakMap<Command, () => Promise<void>>();

/**
 * Turns one declaration into a commander command under `parent`: its arguments, options and
 * help, and an action that runs it with its context. Only declares: what `--targets` does to a
 * verb is the fleet's (fleet/policy.ts), applied to the declaration before it comes here.
 */
export function addVerb(
  parent: Command,
  name: string,
  spec: CommandSpec<ArgSpecs, OptionSpecs>,
  runner: Runner,
): Command {
  const cmd = parent.command(name).summary(spec.summary).description(spec.summary);
  const argNames = Object.keys(spec.args ?? {});
  const usage: string[] = [];
  for (const [argName, a] of Object.entries(spec.args ?? {})) {
    const label = a.variadic ? `${argName}...` : argName;
    cmd.argument(a.required ? `<${label}>` : `[${label}]`, a.description);
    const last = (a as { last?: string }).last;
    usage.push(a.required ? `<${label}>` : `[${label}]`, ...(last ? [`<${last}>`] : []));
  }
  // Commander takes nothing after a variadic argument, so a last one (upload's target) is named in the usage line only.
  if (Object.values(spec.args ?? {}).some((a) => (a as { last?: string }).last))
    cmd.usage(`[options] ${usage.join(' ')}`);
  addOptions(cmd, spec.options ?? {});
  // A verb's help is about the verb: the ~20 global options are `stor --help`'s, named in one line
  // (completion still offers them: it reads globalOptions, not the help).
  cmd.configureHelp({ showGlobalOptions: false });
  let targetText: string | null = null;
  cmd.addHelpText(
    'after',
    () =>
      examples(spec.examples) +
      (spec.notes ? `\n${spec.notes.trimEnd()}\n` : '') +
      (targetText ? `\n${targetText}\n` : '') +
      GLOBALS_LINE,
  );
  if (spec.targetHelp && runner.wantsHelp) {
    const ask = spec.targetHelp;
    const prepare = async () => {
      targetText = await ask(runner.context(parent));
    };
    // `stor call --help` dispatches to the verb; `stor help call` asks for it by name.
    targetHelpFor.set(cmd, prepare);
    parent.hook('preSubcommand', async (_parent, sub) => {
      if (sub === cmd) await prepare();
    });
  }
  cmd.action(async (...params: unknown[]) => {
    const self = params.at(-1) as Command;
    const given = params.at(-2) as Record<string, unknown>;
    const args = Object.fromEntries(argNames.map((n, i) => [n, params[i]]));
    const ctx = runner.context(self);
    // A dry run predicts from reads only (docs/COMMANDS.md "Consent comes first"), as the
    // agent's run policy counts it too: it is no change to refuse or to warn about.
    ctx.changes =
      spec.effect === 'change' &&
      given.dryRun !== true &&
      !(spec.readsWith && typeof params[0] === 'string' && (await spec.readsWith(params[0])));
    runner.onResult(
      await namingTarget(ctx, await spec.run(ctx, args as never, withFlagDefaults(spec.options ?? {}, given) as never)),
    );
  });
  return cmd;
}

/**
 * A change's `--json` document says where the change was made, as the stderr note says it to a
 * person (target.ts, implicitTargetCheck): a document that is an object gains `target`, the
 * transport's TargetInfo as `whoami --json` shows it (kind and state directory, or URL and
 * profile: never a key). Left as they are: reads and dry runs, arrays (a `--targets` run's
 * entries name their target already), a document of the appliance's own (`call`'s result, a
 * `--json` view), one that has a `target` of its own, and a change that reached no target.
 */
async function namingTarget(ctx: CommandContext, result: CommandResult): Promise<CommandResult> {
  if (!ctx.changes || !ctx.globals.json || ctx.globals.targets !== undefined || result.streamed) return result;
  if (result.view.kind === 'json' || result.view.kind === 'text') return result;
  const data = result.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data) || 'target' in data) return result;
  const transport = await ctx.openedTransport();
  return transport ? { ...result, data: { ...data, target: transport.target } } : result;
}

/**
 * The words of the command a command line names, as far as the program knows them: `['job',
 * 'list']`, `['job']` for an unknown verb of a noun, `['share', 'nfs']` for one of a sub-noun, `[]`
 * for an unknown command. A usage error's hint points at that command's help (kubectl's "See
 * 'kubectl get -h'").
 */
export function knownCommandWords(program: Command, path: Pick<CommandLine, 'top' | 'words'>): string[] {
  const words: string[] = [];
  let cmd: Command = program;
  for (const word of path.top === undefined ? [] : path.words) {
    const sub = cmd.commands.find((c) => c.name() === word);
    if (!sub) break;
    words.push(word);
    cmd = sub;
  }
  return words;
}

/** The hint of a usage error in the command `words` names. */
export function usageHint(words: readonly string[]): string {
  return `see \`${['stor', ...words, '--help'].join(' ')}\``;
}

/**
 * The command words of `path` (the topic of `stor help …`, else the line's words), up to the first
 * option commander does not know at the top (CommandLine.commandWords): the words after it name no
 * command, and the help or error commander gives is the one of the command above them.
 */
function namingWords(path: CommandPath): string[] {
  const count = path.commandWords ?? Infinity;
  return path.helpTopic ? path.helpTopic.slice(0, Math.max(0, count - 1)) : (path.words ?? []).slice(0, count);
}

/**
 * The entry of `entries` that `path` names first (`whoami`, `privilege`, or the topic of `stor
 * help …`), when it names a known one: only its verbs are loaded (loadFor), and only it is added
 * to the command tree (buildProgram); any other line gets every entry.
 */
export function namedTop(path: CommandPath, entries: Record<string, Entry>): string | undefined {
  const top = namingWords(path)[0];
  return top !== undefined && Object.hasOwn(entries, top) ? top : undefined;
}

/** Loads the verbs `path` needs: the one named, or all of them when it names none or an unknown one. */
export async function loadFor(
  path: CommandPath,
  entries: Record<string, Entry>,
): Promise<Map<string, CommandSpec<any, any, any>>> {
  const rest = namingWords(path).slice(1);
  const wanted: [string, LoadCommand][] = [];
  const top = namedTop(path, entries);
  const entry = top !== undefined ? entries[top] : undefined;
  if (entry?.kind === 'verb') wanted.push([top!, entry.load]);
  else if (entry?.kind === 'noun') {
    const one = verbAt(entry.noun, rest);
    if (one) wanted.push([`${top} ${one.name}`, one.load]);
    else for (const [verb, load] of Object.entries(entry.noun.verbs)) wanted.push([`${top} ${verb}`, load]);
  } else {
    for (const [name, e] of Object.entries(entries)) {
      if (e.kind === 'verb') wanted.push([name, e.load]);
      else for (const [verb, load] of Object.entries(e.noun.verbs)) wanted.push([`${name} ${verb}`, load]);
    }
  }
  const loaded = await Promise.all(wanted.map(async ([key, load]) => [key, await load()] as const));
  return new Map(loaded);
}

/** A noun's command (`share`, or the sub-noun `share nfs`): with no verb given it shows its verbs. */
export function addNoun(parent: Command, name: string, summary: string): Command {
  return parent
    .command(name)
    .summary(summary)
    .description(summary)
    .configureHelp({ showGlobalOptions: true, formatHelp: verbsFirst });
}
