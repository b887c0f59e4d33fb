import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import { positiveInt } from '../shared/arg-parsers.js';
import { flag, kebab, value, yesFlag, type ArgSpecs, type CommandSpec, type OptionSpecs } from '../shared/declare.js';

/** How many targets `--targets` runs at once unless `--fan-out` (or `--parallel`) says. */
export const DEFAULT_FAN_OUT = 8;

/**
 * The options `--targets` brings to a verb: they belong to the fan-out, not to the verb.
 * `--fan-out N` everywhere; `--parallel N` too where the verb has no `--parallel` of its own
 * (upload's counts files per target), so no flag means two things in one command.
 */
export function fanOutOptions(spec: CommandSpec<ArgSpecs, OptionSpecs>): OptionSpecs {
  const own = spec.options ?? {};
  const change = spec.fanOut === 'change';
  return {
    fanOut: value('<n>', `with --targets: targets at once (default ${DEFAULT_FAN_OUT})`, { parse: positiveInt('--fan-out') }),
    ...(own.parallel ? {} : { parallel: value('<n>', 'with --targets: targets at once, as --fan-out', { parse: positiveInt('--parallel'), conflicts: ['fanOut'] }) }),
    ...(change ? { keepGoing: flag('with --targets: after a target fails, still start the others') } : {}),
    ...(change && !own.yes ? { yes: yesFlag() } : {}),
  };
}

/** What the fan-out options said, taken out of what commander parsed. */
export interface FanOutChoice {
  /** Targets at once, when given. */
  parallel: number | undefined;
  keepGoing: boolean;
  yes: boolean;
}

/**
 * Splits the parsed options into the verb's own and the fan-out's. Without `--targets` the
 * options that count or steer targets are refused, not ignored; `--yes` alone is harmless.
 */
export function splitFanOutOptions(extra: OptionSpecs, given: Record<string, unknown>, targets: boolean): { own: Record<string, unknown>; choice: FanOutChoice } {
  const own = Object.fromEntries(Object.entries(given).filter(([key]) => !(key in extra)));
  if (!targets) {
    const stray = ['fanOut', 'parallel', 'keepGoing'].find((key) => key in extra && given[key] !== undefined && given[key] !== false);
    if (stray) throw new StorError(E.USAGE, `--${kebab(stray)} ${stray === 'keepGoing' ? 'steers' : 'counts'} targets: it goes with --targets`);
  }
  const count = (given.fanOut ?? ('parallel' in extra ? given.parallel : undefined)) as number | undefined;
  return { own, choice: { parallel: count, keepGoing: given.keepGoing === true, yes: given.yes === true } };
}

/** A word as a POSIX shell reads it back: bare when safe, else in single quotes. */
export const shellWord = (word: string): string => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/** The command line that would make this change on one target (`stor dataset create tank/a`), as the plan names it. */
export function commandLine(command: string, spec: CommandSpec<ArgSpecs, OptionSpecs>, args: Record<string, unknown>, options: Record<string, unknown>): string {
  const words = ['stor', ...command.split(' ')];
  for (const name of Object.keys(spec.args ?? {})) {
    const v = args[name];
    if (Array.isArray(v)) words.push(...v.map((w) => shellWord(String(w))));
    else if (v !== undefined) words.push(shellWord(String(v)));
  }
  for (const [key, o] of Object.entries(spec.options ?? {})) {
    const v = options[key];
    if (key === 'yes' || v === undefined || (o.type === 'value' && o.default !== undefined && v === o.default)) continue;
    if (o.type === 'toggle') words.push(v ? `--${kebab(key)}` : `--no-${kebab(key)}`);
    else if (o.type === 'flag') {
      if (v) words.push(`--${kebab(key)}`);
    } else words.push(`--${kebab(key)}`, shellWord(Array.isArray(v) ? v.join(',') : String(v)));
  }
  return words.join(' ');
}
