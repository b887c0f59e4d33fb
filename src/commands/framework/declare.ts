import type { MethodName } from '../../core/contract/index.js';
import type { CommandContext } from './context.js';
import type { CommandResult } from '../output/render.js';
import type { Completion, OptionSpecs, OptionValues } from './option-specs.js';

export { choice, flag, ignoreNotFoundFlag, kebab, list, toggle, value, yesFlag } from './option-specs.js';
export type { Completion, OptionSpecs, OptionValues } from './option-specs.js';

/**
 * How a verb declares itself: its arguments, options, examples and run function in one object,
 * in its own file (as wrangler's `createCommand` and gh's `NewCmdX` do). The types of the values
 * `run` receives are inferred from the declaration, so a flag is added in one place.
 *
 * An option's flag comes from its key: `dryRun` is `--dry-run` (commander's own camel-casing,
 * read backwards), so the name a verb reads is the name the user types.
 */

export interface ArgSpec {
  description: string;
  required: boolean;
  variadic: boolean;
  complete?: Completion;
}
interface RequiredArg extends ArgSpec {
  required: true;
  variadic: false;
}
interface OptionalArg extends ArgSpec {
  required: false;
  variadic: false;
}
interface VariadicArg extends ArgSpec {
  variadic: true;
  /** The last word given is its own argument, named here for the usage line (`<files...> <target>`). */
  last?: string;
}

export const arg = {
  required: (description: string, complete?: Completion): RequiredArg => ({
    description,
    required: true,
    variadic: false,
    ...(complete ? { complete } : {}),
  }),
  optional: (description: string, complete?: Completion): OptionalArg => ({
    description,
    required: false,
    variadic: false,
    ...(complete ? { complete } : {}),
  }),
  /** The rest of the arguments; `required` means at least one. */
  /** `last`: the final word is an argument of its own (upload's target), named in the usage line after the variadic one. */
  variadic: (description: string, required: boolean, complete?: Completion, last?: string): VariadicArg => ({
    description,
    required,
    variadic: true,
    ...(complete ? { complete } : {}),
    ...(last ? { last } : {}),
  }),
};

export type ArgSpecs = Record<string, ArgSpec>;

type ArgValue<A> = A extends VariadicArg ? string[] : A extends RequiredArg ? string : string | undefined;

/** The parsed positional arguments of a declaration, by name. */
export type ArgValues<A extends ArgSpecs> = { -readonly [K in keyof A]: ArgValue<A[K]> };

export interface CommandSpec<A extends ArgSpecs = ArgSpecs, O extends OptionSpecs = OptionSpecs, R = unknown> {
  /** One line, lower case, no full stop: shown in the parent's list and atop the verb's help. */
  summary: string;
  /**
   * Whether the verb may change anything (on the appliance, or locally: profiles, files). Required,
   * so that no verb is added without saying: the session agent tells the first stage, and a
   * command lost with its agent is run again only when it is a `read` (docs/SESSIONS.md).
   */
  effect: 'read' | 'change';
  /**
   * The verb may ask a question at a terminal (a confirmation through confirmChange, a password or
   * one-time code): the session agent declines it when standard input is a terminal, so the
   * question is asked in the command's own process.
   */
  asks?: true;
  /**
   * For a top-level verb whose effect is `change` only in general: whether the command line reads
   * only after all, judged from its first argument before it is parsed (`stor call auth.me`). A
   * read lost with its session agent is run again; a change never is.
   */
  readsWith?: (firstArgument: string) => boolean | Promise<boolean>;
  /** Positional arguments, in order. */
  args?: A;
  options?: O;
  /** Command lines shown under "Examples:". */
  examples: readonly string[];
  /** Paragraphs shown after the examples. */
  notes?: string;
  /**
   * More help that only the target can give (`stor call --help` lists its methods); asked for
   * only when this verb's help is shown.
   */
  targetHelp?: (ctx: CommandContext) => Promise<string | null>;
  /**
   * `read`: the verb only reads from the target, so `--targets` runs it on each target at once
   * (fleet/fan-out.ts). `change`: `--targets` plans on every target first, asks once, then
   * applies (fleet/fan-out-change.ts). Verbs without it refuse `--targets`.
   */
  fanOut?: 'read' | 'change';
  /**
   * With `fanOut`: refuses, before any target is asked, what cannot run on many targets (a
   * secret read once from standard input, a method that changes things).
   */
  checkTargets?: (args: ArgValues<A>, options: OptionValues<O>) => Promise<void> | void;
  /**
   * The appliance methods the verb calls that need a role (the `/_upload/` endpoint is
   * `filesystem.put`): the one list `stor privilege suggest --for` reads to name the least roles
   * that let an identity run the verb (docs/COMMANDS.md "privilege suggest"). A test runs the verbs that
   * declare it and holds the list to the calls they make.
   */
  calls?: readonly MethodName[];
  /** With `fanOut`, what exit 6 means for one target, as the summary line counts it (`lockout`). */
  findings?: string;
  /** With `fanOut: 'read'`: exit 7 means changes pending on a target (`plan`), which a `--json-lines` summary counts as `changed`. */
  drifts?: boolean;
  run(ctx: CommandContext, args: ArgValues<A>, options: OptionValues<O>): Promise<CommandResult<R>> | CommandResult<R>;
}

/** Every declaration made, so that a verb's module can be told from the helpers it also exports. */
const declared = new WeakSet<object>();

/** Declares a verb; returns `spec` as given, with `run`'s types inferred from the declaration. */
export function defineCommand<const A extends ArgSpecs = {}, const O extends OptionSpecs = {}, R = unknown>(
  spec: CommandSpec<A, O, R>,
): CommandSpec<A, O, R> {
  declared.add(spec);
  return spec;
}

/** A verb's declaration, its module loaded only when that verb runs (or its help or completion is needed). */
export type LoadCommand = () => Promise<CommandSpec<any, any, any>>;

/**
 * How a table lists a verb: a function that imports its file (`user/index.ts` shows the form). The
 * file declares the verb with `defineCommand`, once, and may export helpers beside it.
 */
export type ImportVerb = () => Promise<object>;

/** `L` when the module it imports exports a declaration; otherwise a type that says what is missing. */
type Declares<L> = L extends () => Promise<infer M>
  ? [Extract<M[keyof M], CommandSpec<any, any, any>>] extends [never]
    ? { 'a verb module exports its defineCommand(…)': never }
    : L
  : never;

/** The one declaration among a verb module's exports. */
function declarationIn(module: object): CommandSpec<any, any, any> {
  const found = Object.entries(module).filter(
    ([, value]) => typeof value === 'object' && value !== null && declared.has(value),
  );
  if (found.length !== 1)
    throw new Error(
      `a verb's module exports one defineCommand(…), not ${found.length} (its exports: ${Object.keys(module).join(', ')})`,
    );
  return found[0]![1] as CommandSpec<any, any, any>;
}

const loadDeclaration =
  (importVerb: ImportVerb): LoadCommand =>
  async () =>
    declarationIn(await importVerb());

/** A top-level verb (`src/commands/index.ts`), listed by the import of its file. */
export function lazyVerb<const L extends ImportVerb>(importVerb: L & Declares<L>): LoadCommand {
  return loadDeclaration(importVerb);
}

/** A noun (`privilege`) and its verbs, in the order help lists them, each loaded on demand. */
export interface NounSpec {
  summary: string;
  /** Its verbs by their words under it: `list`, or `nfs create` for a verb under a sub-noun. */
  verbs: Record<string, LoadCommand>;
  /** Its sub-nouns' summaries, by their words under it (`nfs`). */
  nouns: Record<string, string>;
}

/**
 * Declares a noun: its summary, then one line a verb, its name and the import of its file, or a
 * sub-noun, its name and its own `defineNoun` (`share nfs create`). The table is the noun's
 * `index.ts`; `src/commands/index.ts` lists the nouns.
 */
export function defineNoun<const V extends Record<string, ImportVerb | NounSpec>>(
  summary: string,
  verbs: V & { [K in keyof V]: V[K] extends NounSpec ? V[K] : Declares<V[K]> },
): NounSpec {
  const noun: NounSpec = { summary, verbs: {}, nouns: {} };
  for (const [word, item] of Object.entries(verbs) as [string, ImportVerb | NounSpec][]) {
    if (typeof item === 'function') {
      noun.verbs[word] = loadDeclaration(item);
      continue;
    }
    noun.nouns[word] = item.summary;
    for (const [sub, summary] of Object.entries(item.nouns)) noun.nouns[`${word} ${sub}`] = summary;
    for (const [verb, load] of Object.entries(item.verbs)) noun.verbs[`${word} ${verb}`] = load;
  }
  return noun;
}

/**
 * The verb that `words`, the words after the noun (its arguments may follow), name under `noun`:
 * `['nfs', 'create', '/mnt/x']` names `nfs create`; undefined for a sub-noun alone or an unknown word.
 */
export function verbAt(noun: NounSpec, words: readonly string[]): { name: string; load: LoadCommand } | undefined {
  for (let n = 1; n <= words.length; n++) {
    const name = words.slice(0, n).join(' ');
    if (Object.hasOwn(noun.verbs, name)) return { name, load: noun.verbs[name]! };
    if (!Object.hasOwn(noun.nouns, name)) return undefined;
  }
  return undefined;
}
