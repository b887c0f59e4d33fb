/**
 * One kind of object a desired-state file names (a section: groups, users, …), as one adapter:
 * how its objects are read, planned, refused, applied, verified and exported. The driver
 * (diff.ts computePlan, execute.ts executeSteps, export-state.ts) walks the table of them
 * (kinds/index.ts) and knows no kind by name (docs/ARCHITECTURE.md "How to add a kind to desired
 * state").
 */
import type * as z from 'zod';
import { identityValue, partOf, type StateFile, type StateKind, type StateObject } from '../../../core/state/index.js';
import type { Transport } from '../../../core/transport/transport.js';
import type { TargetRoles } from '../../privilege/model.js';
import type { Marks } from '../ownership.js';
import type { FieldChange, PlannedChange, RoleOverlap } from '../plan-model.js';

/** A file's object of one section: `DesiredOf<'groups'>` is a group of the file, `DesiredOf<'shares.nfs'>` an NFS share (its schema in core/state/schema.ts). */
export type DesiredOf<K extends StateKind> = StateObject<K>;

/** Every kind's objects as read, by section (each adapter reads and casts its own). */
export type Objects = { readonly [K in StateKind]: readonly unknown[] };

/** What a target holds of what a state file can name: each kind's objects, read once, one query per kind. */
export interface World {
  objects: Objects;
  /** The target's catalogue and lockout rule (its release's; privilege/model.ts). */
  roles: TargetRoles;
  /** The username stor is logged in as (`auth.me`). */
  me: string;
  marks: Marks;
}

/** A planned change with the object the file wants (none for a delete). */
export interface KindStep<K extends StateKind = StateKind> {
  change: PlannedChange & { kind: K };
  want?: DesiredOf<K>;
}

/** Any kind's step, as the driver holds them. */
export type Step = { [K in StateKind]: KindStep<K> }[StateKind];

/** What planning one object may add besides its step: notes (never changed in place) and role overlaps. */
export interface PlanContext {
  /** `--normalize`: plan the minimal role list where a privilege's roles overlap. */
  normalize: boolean;
  /** The whole file, when the plan is the file's (absent when one object is planned again to verify it). */
  file?: StateFile;
  note(text: string): void;
  overlap(o: RoleOverlap): void;
}

/** A key made by apply: the secret goes to --keys-out or piped stdout, never into the state file or a log. */
export interface NewApiKey {
  name: string;
  user: string;
  id: number;
  key: string;
}

/** What applying one step may need besides the transport. */
export interface ApplyContext {
  /** The world the plan was made from (the marks' home, a dataset's entry as planned). */
  world: World;
  /** The keys made so far (api-keys.ts adds each it makes). */
  keys: NewApiKey[];
}

export interface KindAdapter<K extends StateKind, Live> {
  /** The file's section, by its place (`groups`, or `shares.nfs` for a list inside `shares`), and the PlannedChange's `kind`. */
  readonly key: K;
  /** Its part of the file's schema (core/state/schema.ts, which builds the shipped JSON Schema from the parts). */
  readonly schema: z.ZodType<DesiredOf<K>>;
  /** Every object of the kind on the target: one query. */
  read(t: Transport): Promise<Live[]>;
  /** Its objects in a world read before. */
  live(world: World): readonly Live[];
  /** The reads that verify one object: its own query (and what naming its references takes), as the world's objects they fill. */
  readOne(t: Transport, name: string, want: DesiredOf<K> | undefined): Promise<Partial<Objects>>;
  /** Pure: the file's objects in the order their steps must run (default: the file's). */
  order?(wants: readonly DesiredOf<K>[]): DesiredOf<K>[];
  /** Pure: the file's object against the world: a create, an update of the fields the file sets and that differ, or null. */
  plan(want: DesiredOf<K>, world: World, ctx: PlanContext): KindStep<K> | null;
  /**
   * Pure: `--prune`'s deletes, names the file does not name (`named`: its objects' identities, as
   * the section compares them, so `has` ignores case where the section does) that carry stor's mark.
   * `gone`: the deletes planned before this kind's (the kinds after it in the table); `note`: says
   * why a marked object the file does not name is kept.
   */
  prune(
    world: World,
    named: ReadonlySet<string>,
    gone: readonly PlannedChange[],
    note: (text: string) => void,
  ): string[];
  /** Whether an object of that name is there (a delete is verified by its absence). */
  exists(world: World, name: string): boolean;
  /**
   * Pure: refuses (throws) what must not be applied, before anything is; `force` lets the
   * overridable through; `all`: every kind's steps (what the same run makes, a task's dataset).
   */
  refuse?(world: World, steps: readonly KindStep<K>[], force: boolean, all: readonly Step[]): void;
  /**
   * What the plan's steps would cost that only the appliance can tell, asked of it by reads that
   * change nothing (a snapshot task's retention: the snapshots a change or a delete lets go), as
   * the plan's notes, shown before `apply` asks.
   */
  warn?(t: Transport, world: World, steps: readonly KindStep<K>[]): Promise<string[]>;
  /**
   * What the read after this step may show of `want`: the file's object, less what later steps of
   * the run (`steps`) make (a group's members created by the users step).
   */
  expected?(want: DesiredOf<K>, seen: World, steps: readonly Step[]): DesiredOf<K>;
  /** Carries out one step (creates mark what they make; deletes remove the mark). */
  apply(t: Transport, step: KindStep<K>, ctx: ApplyContext): Promise<void>;
  /** The target's objects in the file's format, built-ins left out. */
  export(world: World): DesiredOf<K>[];
}

/** Any adapter, as the table holds them. */
export type AnyKind = KindAdapter<StateKind, unknown>;

export const sorted = (xs: readonly string[]): string[] => [...xs].sort();
export const sameSet = (a: readonly string[], b: readonly string[]): boolean =>
  JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));

/** Adds a field's change when it differs. */
export function field(changes: FieldChange[], name: string, from: unknown, to: unknown, differs: boolean): void {
  if (differs) changes.push({ field: name, from, to });
}

/** One field of the file in the appliance's terms over a base object: the values it sets, and how the plan shows an object's. */
export interface Compared<F, V> {
  field: F;
  params: Partial<V>;
  shown: (v: V) => unknown;
}

/** How a kind compares one of its values, `have` the object's, `want` the file's. */
export type SameValue = (key: string, have: unknown, want: unknown) => boolean;

/** Whether a field of the file changes `have`. */
export const differs = <V>(c: { params: Partial<V> }, have: V, same: SameValue): boolean =>
  Object.entries(c.params).some(([k, v]) => !same(k, have[k as keyof V], v));

/** What the fields change of `have` (the live object, or a fresh one), as update (create) takes it. */
export const changedParams = <V>(fields: readonly { params: Partial<V> }[], have: V, same: SameValue): Partial<V> =>
  Object.assign({}, ...fields.filter((c) => differs(c, have, same)).map((c) => c.params)) as Partial<V>;

/**
 * The step for one object, named by its section's identity (a group's name, an NFS share's path): a
 * create when there is none, else an update when a field differs, else null.
 */
export function stepOf<K extends StateKind>(
  key: K,
  want: DesiredOf<K>,
  action: 'create' | 'update',
  changes: FieldChange[],
): KindStep<K> | null {
  if (action === 'update' && changes.length === 0) return null;
  const name = identityValue(partOf(key).identity, want);
  return { change: { kind: key, name, action, changes }, want } as KindStep<K>;
}
