/**
 * Carrying out a plan's steps, one object at a time, each by its kind's adapter (kinds/index.ts)
 * and verified by that object's own read (the object planned again must show no change). Stops at
 * the first failure unless keep-going; the report says of every object done, failed or not attempted.
 */
import { E } from '../../core/error-catalogue.js';
import { RpcError, StorError } from '../../core/errors.js';
import type { Transport } from '../../core/transport/transport.js';
import { kindOf, STATE_KINDS } from './kinds/index.js';
import type { NewApiKey, Objects, Step, World } from './kinds/kind.js';
import type { PlannedChange } from './plan-model.js';

export type StepStatus = 'done' | 'failed' | 'not_attempted';

/** One object's outcome in `stor apply --json`. */
export interface AppliedChange extends PlannedChange {
  status: StepStatus;
  /** Why it failed (the appliance's or stor's words). */
  error?: string;
}

export type { NewApiKey } from './kinds/kind.js';

/**
 * The read that verifies a step: the object's own read (its adapter's `readOne`, not the whole
 * world), and the object planned again on it shows no change (a deleted one is gone).
 */
async function verify(t: Transport, world: World, step: Step, steps: readonly Step[]): Promise<void> {
  const { kind, name, action } = step.change;
  const adapter = kindOf(kind);
  const seen: World = { ...world, objects: { ...NOTHING, ...(await adapter.readOne(t, name, step.want)) } };
  if (action === 'delete') {
    if (adapter.exists(seen, name))
      throw new StorError(E.VERIFY_FAILED, `${kind} ${name} is still there after the delete`);
    return;
  }
  // The object checked as any state file's is (the schema's part for its kind).
  const want = adapter.schema.parse(step.want);
  const again = adapter.plan(adapter.expected?.(want, seen, steps) ?? want, seen, {
    normalize: false,
    note: () => undefined,
    overlap: () => undefined,
  });
  if (again) {
    const c = again.change;
    const left =
      c.action === 'create'
        ? ['not found']
        : c.changes.map((f) => `${f.field} is ${JSON.stringify(f.from)}, not ${JSON.stringify(f.to)}`);
    throw new StorError(E.VERIFY_FAILED, `${kind} ${name}: the read after the change disagrees: ${left.join('; ')}`);
  }
}

const NOTHING: Objects = Object.fromEntries(STATE_KINDS.map((k) => [k, []])) as unknown as Objects;

const describeError = (err: unknown): string =>
  (err instanceof Error ? err.message : String(err)).trim().replace(/\s*\n\s*/g, '; ');

/** Runs the steps in order; after a failure the rest are not attempted unless keepGoing. */
export async function executeSteps(
  t: Transport,
  world: World,
  steps: readonly Step[],
  keepGoing: boolean,
): Promise<{ results: AppliedChange[]; keys: NewApiKey[] }> {
  const results: AppliedChange[] = [];
  const keys: NewApiKey[] = [];
  let stopped = false;
  for (const step of steps) {
    if (stopped) {
      results.push({ ...step.change, status: 'not_attempted' });
      continue;
    }
    try {
      await kindOf(step.change.kind).apply(t, step, { world, keys });
      await verify(t, world, step, steps);
      results.push({ ...step.change, status: 'done' });
    } catch (err) {
      results.push({ ...step.change, status: 'failed', error: describeError(err) });
      // Even a fault of stor's own (not the appliance's refusal) ends as a report, never a throw: the
      // keys made before it are in `keys`, shown once or written to --keys-out; a throw would lose them.
      // After such a fault nothing more is attempted, --keep-going or not.
      if (!keepGoing || !(err instanceof StorError || err instanceof RpcError)) stopped = true;
    }
  }
  return { results, keys };
}
