import { unlink, type FileHandle } from 'node:fs/promises';
import { createFile, umaskOf } from '../shared/local-file.js';
import { resolve } from 'node:path';
import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import type { CommandContext } from '../framework/context.js';
import { defineCommand, flag, value, yesFlag } from '../framework/declare.js';
import { EXIT } from '../output/exit-codes.js';
import { confirmChange, willAsk } from '../shared/prompts.js';
import { type CommandResult, render, renderMode, tableResult } from '../output/render.js';
import { computePlan } from './diff.js';
import { executeSteps, type AppliedChange, type NewApiKey } from './execute.js';
import type { PlannedChange, StatePlan } from './plan-model.js';
import {
  notePlan,
  objectLabel,
  planOptions,
  planView,
  preparePlan,
  readStateFile,
  type PlanOptionValues,
} from './prepare.js';
import { readWorld } from './world.js';

/** `stor apply --json` */
export interface StateApplied {
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

export async function stateApply(ctx: CommandContext, opts: ApplyOptions): Promise<CommandResult<StateApplied>> {
  const desired = await readStateFile(ctx, opts.file);
  const t = await ctx.transport();
  const { world, plan, steps } = await preparePlan(ctx, t, desired, opts);
  notePlan(ctx, plan);
  // The rehearsal `--targets` runs on every target before its one question: the plan, exit 0.
  if (opts.dryRun) return { data: { plan, results: [], keys: [] }, view: planView(plan) };
  if (!plan.pending) {
    ctx.noteAfter('no changes: the target matches the file');
    return { data: { plan, results: [], keys: [] }, view: planView(plan) };
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
      `apply ${plan.changes.length} change(s) from ${opts.file}?`,
      opts.yes,
      `stor plan -f ${opts.file}`,
    );
    // The plan the operator said yes to: this run's own, or the one the `--targets` rehearsal showed for this target.
    const confirmed =
      (ctx.confirmedPlan as StateApplied | undefined)?.plan.changes ?? (asked ? plan.changes : undefined);
    if (confirmed !== undefined) {
      // Time passed at the question: the world must still be the one planned.
      const again =
        ctx.confirmedPlan === undefined
          ? computePlan(await readWorld(t), desired, { prune: opts.prune === true, normalize: opts.normalize === true })
              .plan.changes
          : plan.changes;
      const moved = changedObjects(confirmed, again);
      if (moved.length > 0) {
        throw new StorError(
          E.PLAN_CHANGED,
          `the target changed since the plan you confirmed: ${moved.join(', ')}; nothing was changed`,
          {
            details: moved,
            hint: `review the new plan with \`stor plan -f ${opts.file}\`, then run again`,
          },
        );
      }
    }
    const { results, keys } = await executeSteps(t, world, steps, opts.keepGoing === true);
    if (keysFile && keys.length > 0) {
      await keysFile.writeFile(`${JSON.stringify(keys, null, 2)}\n`);
      keysWritten = true;
    }
    return report(ctx, plan, results, keys, keysToStdout);
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
): CommandResult<StateApplied> {
  const count = (s: AppliedChange['status']) => results.filter((r) => r.status === s).length;
  const failed = count('failed');
  const summary = `${count('done')} done, ${failed} failed, ${count('not_attempted')} not attempted`;
  const data: StateApplied = {
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
  checkTargets: (_args, opts) => {
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
  ],
  notes:
    'Order: groups, users, privileges, datasets, snapshot tasks, replications, shares, API keys; deletes (--prune) in reverse. Stops at the first failure unless --keep-going, ' +
    'and reports every object as done, failed or not attempted. Users are made without a password (password_disabled). ' +
    'New API keys are written once, never into the state file.',
  run: (ctx, _args, opts) => stateApply(ctx, opts),
});
