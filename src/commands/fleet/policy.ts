import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import { positiveInt } from '../framework/arg-parsers.js';
import type { CommandContext } from '../framework/context.js';
import {
  flag,
  kebab,
  value,
  yesFlag,
  type ArgSpecs,
  type CommandSpec,
  type OptionSpecs,
} from '../framework/declare.js';

/** How many targets `--targets` runs at once unless `--fan-out` (or `--parallel`) says. */
const DEFAULT_FAN_OUT = 8;

/**
 * The options `--targets` brings to a verb: they belong to the fan-out, not to the verb.
 * `--fan-out N` everywhere; `--parallel N` too where the verb has no `--parallel` of its own
 * (upload's counts files per target), so no flag means two things in one command.
 */
function fanOutOptions(spec: CommandSpec<ArgSpecs, OptionSpecs>): OptionSpecs {
  const own = spec.options ?? {};
  const change = spec.fanOut === 'change';
  return {
    fanOut: value('<n>', `with --targets: targets at once (default ${DEFAULT_FAN_OUT})`, {
      parse: positiveInt('--fan-out'),
    }),
    ...(own.parallel
      ? {}
      : {
          parallel: value('<n>', 'with --targets: targets at once, as --fan-out', {
            parse: positiveInt('--parallel'),
            conflicts: ['fanOut'],
          }),
        }),
    // A verb with a --keep-going of its own (apply) keeps it: the one flag then steers both.
    ...(change && !own.keepGoing
      ? { keepGoing: flag('with --targets: after a target fails, still start the others') }
      : {}),
    ...(change && !own.yes ? { yes: yesFlag() } : {}),
  };
}

/** What the fan-out options said, taken out of what commander parsed. */
interface FanOutChoice {
  /** Targets at once, when given. */
  parallel: number | undefined;
  keepGoing: boolean;
  yes: boolean;
}

/**
 * Splits the parsed options into the verb's own and the fan-out's. Without `--targets` the
 * options that count or steer targets are refused, not ignored; `--yes` alone is harmless.
 */
function splitFanOutOptions(
  extra: OptionSpecs,
  given: Record<string, unknown>,
  targets: boolean,
): { own: Record<string, unknown>; choice: FanOutChoice } {
  const own = Object.fromEntries(Object.entries(given).filter(([key]) => !(key in extra)));
  if (!targets) {
    const stray = ['fanOut', 'parallel', 'keepGoing'].find(
      (key) => key in extra && given[key] !== undefined && given[key] !== false,
    );
    if (stray)
      throw new StorError(
        E.USAGE,
        `--${kebab(stray)} ${stray === 'keepGoing' ? 'steers' : 'counts'} targets: it goes with --targets`,
      );
  }
  const count = (given.fanOut ?? ('parallel' in extra ? given.parallel : undefined)) as number | undefined;
  return { own, choice: { parallel: count, keepGoing: given.keepGoing === true, yes: given.yes === true } };
}

/** A word as a POSIX shell reads it back: bare when safe, else in single quotes. */
export const shellWord = (word: string): string =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;

/** The command line that would make this change on one target (`stor dataset create tank/a`), as the plan names it. */
function commandLine(
  command: string,
  spec: CommandSpec<ArgSpecs, OptionSpecs>,
  args: Record<string, unknown>,
  options: Record<string, unknown>,
): string {
  const words = ['stor', ...command.split(' ')];
  for (const name of Object.keys(spec.args ?? {})) {
    const v = args[name];
    if (Array.isArray(v)) words.push(...v.map((w) => shellWord(String(w))));
    else if (v !== undefined) words.push(shellWord(String(v)));
  }
  for (const [key, o] of Object.entries(spec.options ?? {})) {
    const v = options[key];
    if (key === 'yes' || v === undefined || (o.type === 'value' && o.default !== undefined && v === o.default))
      continue;
    if (o.type === 'toggle') words.push(v ? `--${kebab(key)}` : `--no-${kebab(key)}`);
    else if (o.type === 'flag') {
      if (v) words.push(`--${kebab(key)}`);
    } else words.push(`--${kebab(key)}`, shellWord(Array.isArray(v) ? v.join(',') : String(v)));
  }
  return words.join(' ');
}

/** A verb as `--targets` sees it: its declaration and the command words that name it. */
type Spec = CommandSpec<ArgSpecs, OptionSpecs>;
type Run = Spec['run'];

/** A verb without `fanOut` refuses `--targets`, before it reaches any target. */
function refuseTargets(command: string): StorError {
  return new StorError(E.BAD_TARGETS, `\`stor ${command}\` does not take --targets`, {
    hint: 'read commands and most changes do, e.g. `stor --targets all privilege check`; run this one a profile at a time with --profile',
  });
}

/**
 * The fan-out policy, applied to one verb: the verb as program.ts declares it, with the options
 * `--targets` brings and a run that decides. Without `--targets` it is the verb's own run (the
 * fan-out's options taken out, and refused when given); with it, a verb without `fanOut` refuses;
 * a read, or a change's dry run (which only reads), runs on every target at once (fan-out.ts);
 * a change plans on every target, asks once, then applies (fan-out-change.ts).
 */
export function withFleet(command: string, spec: Spec): Spec {
  if (!spec.fanOut) {
    return {
      ...spec,
      run: (ctx, args, options) => {
        if (ctx.globals.targets !== undefined) throw refuseTargets(command);
        return spec.run(ctx, args, options);
      },
    };
  }
  // Verb-level options, not global ones: upload has its own --parallel, which a global one would take.
  const extra = fanOutOptions(spec);
  const run: Run = async (ctx, args, options) => {
    const targets = ctx.globals.targets !== undefined;
    const { own, choice } = splitFanOutOptions(extra, options, targets);
    if (!targets) return spec.run(ctx, args, own as never);
    await spec.checkTargets?.(args, own as never);
    const parallel = choice.parallel ?? DEFAULT_FAN_OUT;
    const findings = spec.findings ?? 'with findings';
    const verb = (o: Record<string, unknown>) => (target: CommandContext) => spec.run(target, args, o as never);
    // A change's dry run only reads: it fans out as a read does, and stops there.
    if (spec.fanOut === 'read' || own.dryRun === true) {
      const { fanOut } = await import('./fan-out.js');
      return fanOut(ctx, { run: verb(own), findings, parallel, ...(spec.drifts ? { drifts: true } : {}) });
    }
    const { fanOutChange } = await import('./fan-out-change.js');
    // The fan-out asks once for every target; the verb, where it asks, is told the answer.
    const applied = spec.options?.yes !== undefined ? { ...own, yes: true } : own;
    const action = commandLine(command, spec, args, own);
    // A verb with a dry run rehearses it on every target, and the question names it to run again.
    const rehearsal =
      spec.options?.dryRun !== undefined
        ? {
            rehearse: verb({ ...own, dryRun: true }),
            preview: `stor --targets ${shellWord(ctx.globals.targets!)} ${action.replace(/^stor /, '')} --dry-run`,
          }
        : {};
    return fanOutChange(ctx, {
      action,
      ...rehearsal,
      apply: verb(applied),
      findings,
      parallel,
      keepGoing: choice.keepGoing,
      yes: choice.yes,
    });
  };
  return { ...spec, options: { ...spec.options, ...extra }, run };
}
