import type { CommandContext } from './context.js';
import type { CommandResult } from './render.js';
import type { Completion, OptionSpecs, OptionValues } from './option-specs.js';

export { choice, flag, kebab, list, toggle, value, yesFlag } from './option-specs.js';
export type { Completion, FlagOption, ListOption, OptionSpec, OptionSpecs, OptionValues, ToggleOption, ValueOption } from './option-specs.js';

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
  required: (description: string, complete?: Completion): RequiredArg => ({ description, required: true, variadic: false, ...(complete ? { complete } : {}) }),
  optional: (description: string, complete?: Completion): OptionalArg => ({ description, required: false, variadic: false, ...(complete ? { complete } : {}) }),
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
  /** With `fanOut`, what exit 6 means for one target, as the summary line counts it (`lockout`). */
  findings?: string;
  run(ctx: CommandContext, args: ArgValues<A>, options: OptionValues<O>): Promise<CommandResult<R>> | CommandResult<R>;
}

/** Declares a verb; the identity function that gives `run` its inferred types. */
export function defineCommand<const A extends ArgSpecs = {}, const O extends OptionSpecs = {}, R = unknown>(spec: CommandSpec<A, O, R>): CommandSpec<A, O, R> {
  return spec;
}

/** A verb's module, loaded only when that verb runs (or its help or completion is needed). */
export type LoadCommand = () => Promise<CommandSpec<any, any, any>>;

/** A noun (`privilege`) and its verbs, each loaded on demand. */
export interface NounSpec {
  summary: string;
  verbs: Record<string, LoadCommand>;
}

export const defineNoun = (spec: NounSpec): NounSpec => spec;
