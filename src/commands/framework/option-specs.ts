/*
 * How an option is declared (`flag`, `toggle`, `list`, `value`, `choice`) and the type of the
 * value it gives: the part of declare.ts that the global options (global-options.ts) need, kept
 * apart so that they, and the first stage that reads them (command-line.ts), load no more.
 */

/** Values a shell can complete for an argument or option (see `stor completion`). */
export type Completion =
  | 'file'
  | 'directory'
  | 'profile'
  | 'privilege'
  | 'method'
  | 'remote-path'
  | 'dataset'
  | 'service'
  | 'share'
  | 'snapshot-task'
  | 'replication'
  | 'smb-purpose';

interface OptionBase {
  description: string;
  /** Single-letter alias, e.g. `y` for `-y, --yes`. */
  short?: string;
  /** Keys of options that cannot be given together with this one. */
  conflicts?: readonly string[];
  hidden?: boolean;
}

/** `--all`: true when given, false otherwise. */
export interface FlagOption extends OptionBase {
  type: 'flag';
}

/** `--web-shell` / `--no-web-shell`: true, false, or undefined when neither is given. */
export interface ToggleOption extends OptionBase {
  type: 'toggle';
  /** What the `--no-` form does. */
  offDescription: string;
}

/** `--roles A,B --roles C`: repeatable, comma-separated; the items in order (blanks dropped), or undefined when not given. */
export interface ListOption extends OptionBase {
  type: 'list';
  placeholder: string;
  complete?: Completion;
  /** Words completion offers, without refusing others (the appliance names its own choices when one is wrong). */
  suggest?: readonly string[];
}

/** `--mode <bits>`: one value, parsed; `Required` when it has a default. */
export interface ValueOption<T, Required extends boolean> extends OptionBase {
  type: 'value';
  placeholder: string;
  parse?: (raw: string) => T;
  choices?: readonly string[];
  default?: T;
  /** Only for the type: whether a value is always present. */
  readonly required?: Required;
  complete?: Completion;
  /** Words completion offers, without refusing others (the appliance names its own choices when one is wrong). */
  suggest?: readonly string[];
}

export type OptionSpec = FlagOption | ToggleOption | ListOption | ValueOption<unknown, boolean>;
export type OptionSpecs = Record<string, OptionSpec>;

type OptionValue<S> = S extends FlagOption
  ? boolean
  : S extends ToggleOption
    ? boolean | undefined
    : S extends ListOption
      ? string[] | undefined
      : S extends ValueOption<infer T, infer R>
        ? R extends true
          ? T
          : T | undefined
        : never;

/** The parsed options of a declaration. */
export type OptionValues<O extends OptionSpecs> = { -readonly [K in keyof O]: OptionValue<O[K]> };

type More = Pick<OptionBase, 'short' | 'conflicts' | 'hidden'>;

export const flag = (description: string, more: More = {}): FlagOption => ({ type: 'flag', description, ...more });

/** `-y, --yes`: every verb that asks before a change takes it the same way (shared/prompts.ts). */
export const yesFlag = (): FlagOption => flag('do not ask for confirmation', { short: 'y' });

/** `--ignore-not-found`: every delete takes it the same way (shared/ignore-not-found.ts), as kubectl's. */
export const ignoreNotFoundFlag = (): FlagOption =>
  flag('exit 0 when it does not exist, saying there was nothing to delete (for re-run scripts)');

export const toggle = (description: string, offDescription: string, more: More = {}): ToggleOption => ({
  type: 'toggle',
  description,
  offDescription,
  ...more,
});

export const list = (
  placeholder: string,
  description: string,
  more: More & { complete?: Completion; suggest?: readonly string[] } = {},
): ListOption => ({
  type: 'list',
  placeholder,
  description,
  ...more,
});

type ValueMore<T> = More & { parse?: (raw: string) => T; complete?: Completion; suggest?: readonly string[] };

export function value(placeholder: string, description: string, more?: ValueMore<string>): ValueOption<string, false>;
export function value<T>(
  placeholder: string,
  description: string,
  more: ValueMore<T> & { parse: (raw: string) => T },
): ValueOption<T, false>;
export function value<T>(
  placeholder: string,
  description: string,
  more: ValueMore<T> & { default: T },
): ValueOption<T, true>;
export function value<T>(
  placeholder: string,
  description: string,
  more: ValueMore<T> & { default?: T } = {},
): ValueOption<T, boolean> {
  return { type: 'value', placeholder, description, ...more };
}

/** One of a fixed set of words, typed as that set. */
export function choice<const C extends readonly string[]>(
  choices: C,
  placeholder: string,
  description: string,
  more: More = {},
): ValueOption<C[number], false> {
  return { type: 'value', placeholder, description, choices, ...more };
}

/** `dryRun` → `dry-run`. */
export const kebab = (key: string): string => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
