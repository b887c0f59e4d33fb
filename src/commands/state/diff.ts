import { Identities, identityValue, objectsOf, partOf, type StateFile } from '../../core/state/index.js';
import { KINDS } from './kinds/index.js';
import type { AnyKind, PlanContext, Step, World } from './kinds/kind.js';
import type { PlannedChange, RoleOverlap, StatePlan } from './plan-model.js';

export type { Step } from './kinds/kind.js';

export interface PlanOptions {
  prune: boolean;
  normalize: boolean;
}

const table = KINDS as readonly AnyKind[];

/**
 * The plan: the file's objects against the target's, by name, kind by kind in the table's order
 * (kinds/index.ts). What the file does not name is left alone; with `prune`, deleted only when it
 * carries stor's mark (ownership.ts), kind by kind in reverse order.
 */
export function computePlan(
  world: World,
  desired: StateFile,
  options: PlanOptions,
): { plan: StatePlan; steps: Step[] } {
  const steps: Step[] = [];
  const notes: string[] = [];
  const overlaps: RoleOverlap[] = [];
  const ctx: PlanContext = {
    normalize: options.normalize,
    file: desired,
    note: (n) => notes.push(n),
    overlap: (o) => overlaps.push(o),
  };
  for (const kind of table) {
    const wants = objectsOf(desired, kind.key);
    for (const want of kind.order?.(wants) ?? wants) {
      const step = kind.plan(want, world, ctx);
      if (step) steps.push(step as Step);
    }
  }
  if (options.prune) steps.push(...pruneSteps(world, desired, ctx.note));
  const changes = steps.map((s) => s.change);
  return {
    plan: {
      pending: changes.length > 0,
      release: world.roles.model.release,
      catalogue: world.roles.source,
      changes,
      notes,
      overlaps,
    },
    steps,
  };
}

/** Deletes for `--prune`: objects the file does not name that carry stor's mark; kinds in reverse table order, each told what goes before it. */
function pruneSteps(world: World, desired: StateFile, note: (text: string) => void): Step[] {
  const out: Step[] = [];
  for (const kind of [...table].reverse()) {
    const { identity } = partOf(kind.key);
    const named = new Identities(
      identity,
      objectsOf(desired, kind.key).map((o) => identityValue(identity, o)),
    );
    const gone: PlannedChange[] = out.map((s) => s.change);
    for (const name of kind.prune(world, named, gone, note))
      out.push({ change: { kind: kind.key, name, action: 'delete', changes: [] } } as Step);
  }
  return out;
}
