import { unlink, type FileHandle } from 'node:fs/promises';
import { createFile, umaskOf } from '../shared/local-file.js';
import { resolve } from 'node:path';
import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import type { CommandContext } from '../framework/context.js';
import { arg, defineCommand, flag, value, yesFlag } from '../framework/declare.js';
import { EXIT } from '../output/exit-codes.js';
import { confirmChange, willAsk } from '../shared/prompts.js';
import { type CommandResult, render, renderMode, tableResult } from '../output/render.js';
import { computePlan, type Step } from './diff.js';
import { executeSteps, type AppliedChange, type NewApiKey } from './execute.js';
import type { PlannedChange, StatePlan } from './plan-model.js';
import {
  checkPlan,
  notePlan,
  objectLabel,
  planComment,
  planOptions,
  planView,
  preparePlan,
  readStateFile,
  type PlanOptionValues,
  type Prepared,
} from './prepare.js';
import {
  changedSince,
  checkPlanTarget,
  fingerprint,
  readPlanFile,
  stableJson,
  targetName,
  type SavedPlan,
} from './saved-plan.js';
import { readWorld, type World } from './world.js';
import type { Transport } from '../../core/transport/transport.js';
import type { StateFile } from '../../core/state/index.js';

/** `stor apply --json` */
export interface StateApplied {
  /** Whether anything on the target changed (a step done); false for --dry-run and for no changes. */
  changed: boolean;
  /** One line: `2 done, 0 failed, 0 not attempted on tank-nas`, or the plan's line when nothing was attempted. */
  comment: string;
  plan: StatePlan;
  /** Every planned object: done, failed, or not attempted (after a failure, without --keep-going). */
  results: AppliedChange[];
  /** New keys' names and ids; their secrets went to --keys-out (or stdout, piped), never here unless piped without --keys-out. */
  keys: { name: string; user: string; id: number; key?: string }[];
}

interface ApplyOptions extends PlanOptionValues {
  yes?: boolean | undefined;
  dryRun?: boolean | undefined;
  keepGoing?: boolean | undefined;
  keysOut?: string | undefined;
}

/** Opens --keys-out before anything changes: 0600, never over an existing file. */
async function openKeysOut(ctx: CommandContext, path: string): Promise<FileHandle> {
  try {
    return await createFile(resolve(ctx.io.cwd, path), umaskOf(ctx.io), 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST')
      throw new StorError(E.LOCAL_FILE_EXISTS, `${path} exists; new API keys are never written over a file`, {
        hint: 'name a new file with --keys-out',
      });
    throw new StorError(E.LOCAL_WRITE_FAILED, `cannot create ${path}: ${code ?? (err as Error).message}`);
  }
}

/**
 * What apply carries out: a plan made now from `-f FILE`, or a saved one (`stor apply PLAN`),
 * with what it is called in the question and hints, and the check made again after the question.
 */
interface Source extends Prepared {
  label: string;
  replan: string;
  /** The objects whose plan changed since `confirmed` was shown (empty: apply). */
  moved(t: Transport, confirmed: readonly PlannedChange[]): Promise<string[]>;
}

async function fromFile(ctx: CommandContext, t: Transport, opts: ApplyOptions): Promise<Source> {
  const desired = await readStateFile(ctx, opts.file);
  const prepared = await preparePlan(ctx, t, desired, opts);
  const options = { prune: opts.prune === true, normalize: opts.normalize === true };
  return {
    ...prepared,
    label: opts.file!,
    replan: `stor plan -f ${opts.file}`,
    moved: async (t2, confirmed) =>
      changedObjects(confirmed, computePlan(await readWorld(t2), desired, options).plan.changes),
  };
}

/** The objects and facts whose fingerprint differs from the saved plan's, read again now. */
async function movedSince(
  t: Transport,
  saved: SavedPlan,
  desired: StateFile,
): Promise<{ world: World; moved: string[] }> {
  const world = await readWorld(t);
  const { steps } = computePlan(world, desired, saved.options);
  return { world, moved: changedSince(saved.read, fingerprint(world, desired, steps, saved.options.prune)) };
}

function planChanged(saved: SavedPlan, path: string, moved: string[]): StorError {
  return new StorError(
    E.PLAN_CHANGED,
    `the target changed since the plan was saved (${saved.made_at}): ${moved.join(', ')}; nothing was changed`,
    { details: moved, hint: `make and review a new plan: \`stor plan -f ${saved.state.file} --out ${path}\`` },
  );
}

/**
 * `stor apply PLAN`: the plan file is checked (saved-plan.ts readPlanFile), then its target, before
 * anything is read; then the world is read again and fingerprinted as the plan was. Any object or
 * fact that differs is PLAN_CHANGED; else the saved steps, which the saved file plans on this
 * world step for step (else the file was edited), are checked as any plan is and carried out.
 */
async function fromSaved(ctx: CommandContext, path: string): Promise<Source> {
  const { saved, desired } = readPlanFile(ctx, path);
  const spec = await ctx.target();
  checkPlanTarget(saved, spec);
  const t = await ctx.transport();
  const { world, moved } = await movedSince(t, saved, desired);
  checkPlanTarget(saved, spec, world.roles.model.release);
  if (moved.length > 0) throw planChanged(saved, path, moved);
  const { plan, steps } = computePlan(world, desired, saved.options);
  if (stableJson(steps) !== stableJson(saved.steps))
    throw new StorError(
      E.PLAN_FILE_INVALID,
      `${path}: its steps are not what its state file plans on the target it read: the file was edited; nothing was changed`,
      { hint: `make the plan again: \`stor plan -f ${saved.state.file} --out ${path}\`` },
    );
  const savedSteps = saved.steps as Step[];
  await checkPlan(ctx, t, world, plan, savedSteps, saved.options.force);
  return {
    desired,
    world,
    plan,
    steps: savedSteps,
    label: path,
    replan: `stor plan -f ${saved.state.file} --out ${path}`,
    moved: async (t2) => (await movedSince(t2, saved, desired)).moved,
  };
}

export async function stateApply(
  ctx: CommandContext,
  planFile: string | undefined,
  opts: ApplyOptions,
): Promise<CommandResult<StateApplied>> {
  if (planFile !== undefined && (opts.file !== undefined || opts.prune || opts.normalize || opts.force))
    throw new StorError(E.USAGE, 'a saved plan holds its state file and options: give PLAN alone, or -f FILE', {
      hint: 'stor apply state.plan (from `stor plan -f FILE --out state.plan`), or stor apply -f state.yaml',
    });
  if (planFile === undefined && opts.file === undefined)
    throw new StorError(E.USAGE, 'name the desired-state file (-f FILE) or a saved plan (PLAN)', {
      hint: '`stor export > state.yaml` writes a state file from a target; `stor plan -f FILE --out PLAN` saves a plan',
    });
  const t = planFile === undefined ? await ctx.transport() : undefined;
  const source = planFile === undefined ? await fromFile(ctx, t!, opts) : await fromSaved(ctx, planFile);
  const transport = t ?? (await ctx.transport());
  const { world, plan, steps } = source;
  const target = targetName(await ctx.target());
  const unchanged = (): CommandResult<StateApplied> => ({
    data: { changed: false, comment: planComment(plan, target), plan, results: [], keys: [] },
    view: planView(plan),
  });
  notePlan(ctx, plan);
  // The rehearsal `--targets` runs on every target before its one question: the plan, exit 0.
  if (opts.dryRun) return unchanged();
  if (!plan.pending) {
    ctx.noteAfter('no changes: the target matches the file');
    return unchanged();
  }
  const makesKeys = steps.some((s) => s.change.kind === 'api_keys' && s.change.action === 'create');
  const keysToStdout = makesKeys && opts.keysOut === undefined;
  if (keysToStdout && ctx.io.stdout.isTTY) {
    throw new StorError(
      E.USAGE,
      'this plan creates API keys: say where their secrets go with --keys-out FILE (or pipe stdout)',
      { hint: 'e.g. --keys-out new-keys.json (written 0600, never over an existing file)' },
    );
  }
  const keysFile = makesKeys && opts.keysOut !== undefined ? await openKeysOut(ctx, opts.keysOut) : undefined;
  let keysWritten = false;
  try {
    if (willAsk(ctx, opts.yes)) {
      ctx.warn((await render({ data: plan, view: planView(plan) }, renderMode(ctx.io, false, 'stderr'))).trimEnd());
    }
    const asked = await confirmChange(
      ctx,
      `apply ${plan.changes.length} change(s) from ${source.label}?`,
      opts.yes,
      source.replan,
    );
    // The plan the operator said yes to: this run's own, or the one the `--targets` rehearsal showed for this target.
    const confirmed =
      (ctx.confirmedPlan as StateApplied | undefined)?.plan.changes ?? (asked ? plan.changes : undefined);
    if (confirmed !== undefined) {
      // Time passed at the question: the world must still be the one planned.
      const moved =
        ctx.confirmedPlan === undefined
          ? await source.moved(transport, confirmed)
          : changedObjects(confirmed, plan.changes);
      if (moved.length > 0) {
        throw new StorError(
          E.PLAN_CHANGED,
          `the target changed since the plan you confirmed: ${moved.join(', ')}; nothing was changed`,
          {
            details: moved,
            hint: `review the new plan with \`${source.replan}\`, then run again`,
          },
        );
      }
    }
    const { results, keys } = await executeSteps(transport, world, steps, opts.keepGoing === true);
    if (keysFile && keys.length > 0) {
      await keysFile.writeFile(`${JSON.stringify(keys, null, 2)}\n`);
      keysWritten = true;
    }
    return report(ctx, plan, results, keys, keysToStdout, target);
  } finally {
    await keysFile?.close();
    // A run that made no key (refused consent, PLAN_CHANGED, every key create failed) leaves no
    // file behind: it would refuse the next run's --keys-out as an existing file.
    if (keysFile && !keysWritten) await unlink(resolve(ctx.io.cwd, opts.keysOut!)).catch(() => undefined);
  }
}

/** The objects whose planned change is not the one confirmed: `privileges held (now: update, was: create)`. */
function changedObjects(confirmed: readonly PlannedChange[], now: readonly PlannedChange[]): string[] {
  const key = (c: PlannedChange) => `${c.kind} ${c.name}`;
  const was = new Map(confirmed.map((c) => [key(c), c]));
  const is = new Map(now.map((c) => [key(c), c]));
  return [...new Set([...was.keys(), ...is.keys()])].flatMap((k) => {
    const a = was.get(k);
    const b = is.get(k);
    if (JSON.stringify(a) === JSON.stringify(b)) return [];
    return [`${k} (now: ${b ? b.action : 'no change'}, was: ${a ? a.action : 'no change'})`];
  });
}

function report(
  ctx: CommandContext,
  plan: StatePlan,
  results: AppliedChange[],
  keys: NewApiKey[],
  keysToStdout: boolean,
  target: string,
): CommandResult<StateApplied> {
  const count = (s: AppliedChange['status']) => results.filter((r) => r.status === s).length;
  const failed = count('failed');
  const summary = `${count('done')} done, ${failed} failed, ${count('not_attempted')} not attempted`;
  const data: StateApplied = {
    changed: count('done') > 0,
    comment: `${summary} on ${target}`,
    plan,
    results,
    keys: keys.map((k) => ({ name: k.name, user: k.user, id: k.id, ...(keysToStdout ? { key: k.key } : {}) })),
  };
  const exitCode = failed > 0 ? EXIT.FAILED : EXIT.OK;
  if (keysToStdout && !ctx.globals.json) {
    // Piped: stdout holds the new keys alone (`name<TAB>key`), the report goes to stderr.
    for (const r of results) ctx.note(`${r.status}: ${r.action} ${objectLabel(r)}${r.error ? `: ${r.error}` : ''}`);
    ctx.note(summary);
    return { ...tableResult(data, { columns: ['name', 'key'], rows: keys.map((k) => [k.name, k.key]) }), exitCode };
  }
  if (keys.length && !keysToStdout) ctx.noteAfter(`${keys.length} new API key(s) written to the --keys-out file`);
  ctx.noteAfter(summary);
  return {
    ...tableResult(data, {
      columns: ['status', 'change', 'object', { header: 'error', overflow: 'wrap' }],
      rows: results.map((r) => [
        {
          value: r.status,
          human: r.status.replace('_', ' '),
          tone: r.status === 'done' ? 'ok' : r.status === 'failed' ? 'danger' : 'warning',
        },
        r.action,
        objectLabel(r),
        r.error ?? '',
      ]),
    }),
    exitCode,
  };
}

export const stateApplyCommand = defineCommand({
  summary: 'make the target match a desired-state file: the plan, one confirmation, then each change verified',
  effect: 'change',
  asks: true,
  fanOut: 'change',
  args: {
    plan: arg.optional('a plan file `stor plan -f FILE --out PLAN` saved (instead of -f FILE)'),
  },
  checkTargets: (args, opts) => {
    if (args.plan !== undefined)
      throw new StorError(E.USAGE, 'a saved plan is for the one target it was made on, and --targets names many', {
        hint: "apply each target's own plan: `stor --profile NAME apply NAME.plan`",
      });
    if (opts.keysOut !== undefined)
      throw new StorError(E.USAGE, '--keys-out names one file, and --targets makes keys on many targets', {
        hint: 'pipe stdout instead: each new key comes out on a line with its target',
      });
  },
  options: {
    ...planOptions,
    yes: yesFlag(),
    dryRun: flag('show the plan and change nothing (exit 0; `stor plan` exits 7 on drift)'),
    keepGoing: flag('after a change fails, still attempt the rest (with --targets: and still start the other targets)'),
    keysOut: value(
      '<file>',
      'write new API keys here (created 0600; an existing file is refused); piped stdout otherwise',
    ),
  },
  examples: [
    'stor apply -f state.yaml',
    'stor --targets @site_a apply -f state.yaml --yes > new-keys.tsv',
    'stor apply -f state.yaml --yes --keys-out new-keys.json',
    'stor plan -f state.yaml --out state.plan && stor apply state.plan',
  ],
  notes:
    'Order: groups, users, privileges, datasets, snapshot tasks, replications, shares, API keys; deletes (--prune) in reverse. Stops at the first failure unless --keep-going, ' +
    'and reports every object as done, failed or not attempted. Users are made without a password (password_disabled). ' +
    'New API keys are written once, never into the state file. ' +
    'Given PLAN (a file `stor plan --out` saved) instead of -f: refused unless made for this target and release and still true of it ' +
    '(PLAN_TARGET, PLAN_CHANGED: nothing changed); else its saved steps, exactly (docs/STATE.md "Saved plans").',
  run: (ctx, args, opts) => stateApply(ctx, args.plan, opts),
});
