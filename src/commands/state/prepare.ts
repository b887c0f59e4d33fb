import { resolve } from 'node:path';
import { readSmallFile, STATE_FILE } from '../../core/config/small-file.js';
import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import { parseStateFile, type StateFile } from '../../core/state/index.js';
import type { Transport } from '../../core/transport/transport.js';
import type { CommandContext } from '../framework/context.js';
import { flag, value } from '../framework/declare.js';
import type { Cell, View } from '../output/render.js';
import { checkAdministrators, checkKinds } from './checks.js';
import { computePlan, type Step } from './diff.js';
import { KINDS } from './kinds/index.js';
import type { AnyKind } from './kinds/kind.js';
import type { PlannedChange, StatePlan } from './plan-model.js';
import { readWorld, type World } from './world.js';
import { keyInUse } from '../api-key/model.js';

/** The options `plan` and `apply` share. */
export const planOptions = {
  file: value('<file>', 'the desired-state file (YAML or JSON); required', { short: 'f' }),
  prune: flag('also delete objects the file does not name, but only those stor made (they carry its mark)'),
  normalize: flag("plan the minimal role list where a privilege's roles overlap (same effective roles)"),
  force: flag("plan it even if it locks a privilege's users out, leaves no administrator, or takes your own roles"),
};

export interface PlanOptionValues {
  file?: string | undefined;
  prune?: boolean | undefined;
  normalize?: boolean | undefined;
  force?: boolean | undefined;
}

export async function readStateFile(ctx: CommandContext, file: string | undefined): Promise<StateFile> {
  return (await readState(ctx, file)).desired;
}

/** The desired-state file, parsed, and its text as read (what a saved plan keeps). */
export async function readState(
  ctx: CommandContext,
  file: string | undefined,
): Promise<{ desired: StateFile; text: string }> {
  if (file === undefined)
    throw new StorError(E.USAGE, 'name the desired-state file: -f FILE', {
      hint: '`stor export > state.yaml` writes one from a target',
    });
  let text: string;
  try {
    // Bounded, and never a FIFO or device: /dev/zero would be read until memory ran out, a FIFO waited on forever.
    text = readSmallFile(resolve(ctx.io.cwd, file), STATE_FILE).data.toString('utf8');
  } catch (err) {
    if (err instanceof StorError) throw err;
    throw new StorError(
      E.LOCAL_FILE_UNREADABLE,
      `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  return { desired: parseStateFile(text, file), text };
}

export interface Prepared {
  desired: StateFile;
  world: World;
  plan: StatePlan;
  steps: Step[];
}

/** Reads the target (one query per kind), plans, and checks the plan; refuses what must not be applied. */
export async function preparePlan(
  ctx: CommandContext,
  t: Transport,
  desired: StateFile,
  opts: PlanOptionValues,
): Promise<Prepared> {
  const world = await readWorld(t);
  const { plan, steps } = computePlan(world, desired, {
    prune: opts.prune === true,
    normalize: opts.normalize === true,
  });
  await checkPlan(ctx, t, world, plan, steps, opts.force === true);
  return { desired, world, plan, steps };
}

/** Refuses what must not be applied (checks.ts) and adds each kind's warnings to the plan's notes. */
export async function checkPlan(
  ctx: CommandContext,
  t: Transport,
  world: World,
  plan: StatePlan,
  steps: readonly Step[],
  force: boolean,
): Promise<void> {
  checkKinds(world, steps, force);
  plan.notes.push(...(await warnings(t, world, steps)));
  for (const problem of checkAdministrators(world, steps, force, await keyInUse(ctx)))
    ctx.warn(`stor: warning (--force): ${problem}`);
}

/** Each kind's warnings about its steps (its adapter's `warn`: reads only), in the table's order. */
async function warnings(t: Transport, world: World, steps: readonly Step[]): Promise<string[]> {
  const out: string[] = [];
  for (const kind of KINDS as readonly AnyKind[])
    if (kind.warn)
      out.push(
        ...(await kind.warn(
          t,
          world,
          steps.filter((s) => s.change.kind === kind.key),
        )),
      );
  return out;
}

const SIGN = { create: '+ create', update: '~ update', delete: '- delete' } as const;
const show = (v: unknown): string =>
  v === null || v === undefined ? '(none)' : Array.isArray(v) ? (v.length ? v.join(',') : '(none)') : String(v);

/**
 * How the plan and the apply report name an object: its section's place, innermost word first and
 * in the singular: `privilege ops`, `api key backup`, `nfs share /mnt/tank/x` (`shares.nfs`).
 */
export const objectLabel = (c: { kind: string; name: string }): string =>
  `${c.kind.split('.').reverse().join(' ').replaceAll('_', ' ').replace(/s$/, '')} ${c.name}`;

/** The plan as rows: one per field changed (`~ update privilege ops  roles: A → B`). */
export function planRows(plan: StatePlan): Cell[][] {
  return plan.changes.flatMap((c) => {
    const label = {
      value: SIGN[c.action],
      human: SIGN[c.action],
      tone:
        c.action === 'delete' ? ('danger' as const) : c.action === 'create' ? ('ok' as const) : ('warning' as const),
    };
    const what = objectLabel(c);
    if (c.changes.length === 0) return [[label, what, '']];
    return c.changes.map((f, i) => [
      i === 0 ? label : '',
      i === 0 ? what : '',
      c.action === 'create' ? `${f.field}: ${show(f.to)}` : `${f.field}: ${show(f.from)} → ${show(f.to)}`,
    ]);
  });
}

export function planView(plan: StatePlan): View {
  return {
    kind: 'table',
    columns: ['change', 'object', { header: 'field', overflow: 'wrap' }],
    rows: planRows(plan),
    empty: 'No changes: the target matches the file.',
  };
}

/** Notes and overlaps, for the operator on stderr. */
export function notePlan(ctx: CommandContext, plan: StatePlan): void {
  for (const n of plan.notes) ctx.note(`note: ${n}`);
  for (const o of plan.overlaps)
    ctx.note(
      `note: privilege ${o.privilege}: ${o.findings.join('; ')}; the minimal list is ${o.minimal.join(',')} (--normalize plans it)`,
    );
}

/** A plan in one line, for `--json`'s `comment`: `3 to create, 1 to update, 0 to delete on tank-nas`. */
export function planComment(plan: StatePlan, target: string): string {
  const count = (a: PlannedChange['action']) => plan.changes.filter((c) => c.action === a).length;
  return `${count('create')} to create, ${count('update')} to update, ${count('delete')} to delete on ${target}`;
}
