/**
 * Saved plans (docs/STATE.md "Saved plans"): `stor plan -f FILE --out PLAN` writes what it planned,
 * for whom, and a fingerprint of every object it read; `stor apply PLAN` holds the target to that
 * fingerprint and carries out the saved steps, or refuses. The file is JSON, 0600, and holds no
 * secret: a state file names no password or key (users are made password-disabled, API keys'
 * secrets are made at apply and go to --keys-out), and the target is named by its URL or its state
 * directory, never by its key.
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { readSmallFile, type SmallFileKind } from '../../core/config/small-file.js';
import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import { identityValue, objectsOf, parseStateFile, partOf, type StateFile } from '../../core/state/index.js';
import type { CommandContext } from '../framework/context.js';
import type { TargetSpec } from '../framework/target.js';
import { replaceFile, umaskOf } from '../shared/local-file.js';
import { KINDS } from './kinds/index.js';
import type { AnyKind, Step, World } from './kinds/kind.js';
import type { StatePlan } from './plan-model.js';
import { objectLabel } from './prepare.js';

/** The format marker and version a plan file opens with; another version is refused, never guessed at. */
export const PLAN_FORMAT = 'stor-plan';
export const PLAN_VERSION = 1;

/** The state file's text, its steps and the fingerprints: a few times the state file's own bound. */
const PLAN_FILE: SmallFileKind = { what: 'a saved plan', bytes: 32 * 1024 * 1024 };

/** Whom a plan is for: a remote appliance by its URL (and the profile it was reached by), the embedded one by its state directory. */
export type PlanTarget = { kind: 'remote'; url: string; profile?: string } | { kind: 'embedded'; state_dir: string };

/** The options the plan was made with: apply uses these, never its own. */
export interface SavedOptions {
  prune: boolean;
  normalize: boolean;
  force: boolean;
}

/** A plan file (`stor plan --out`), as written; `checksum` is the SHA-256 of the rest, as stableJson writes it. */
export interface SavedPlan {
  format: typeof PLAN_FORMAT;
  version: typeof PLAN_VERSION;
  made_at: string;
  target: PlanTarget;
  release: string | null;
  options: SavedOptions;
  /** The desired-state file as it was read: its name, its text, the text's SHA-256. */
  state: { file: string; sha256: string; text: string };
  /** The steps apply carries out, in order: each planned change and the file's object it makes true. */
  steps: { change: Step['change']; want?: unknown }[];
  /** What the plan read, by object (`group web`) and by fact of the target (`release`, `marks`): SHA-256 of each. */
  read: Record<string, string>;
  checksum: string;
}

/** JSON with every object's keys sorted: the same data always hashes the same. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value instanceof Map) return stableJson(Object.fromEntries(value));
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value ?? null);
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The target as a plan names it: never its key. */
export function planTarget(spec: TargetSpec): PlanTarget {
  if (spec.kind === 'embedded') return { kind: 'embedded', state_dir: resolve(spec.stateDir) };
  return { kind: 'remote', url: spec.endpoint.display, ...(spec.profile ? { profile: spec.profile } : {}) };
}

/** How a summary names the target: its profile, its URL, or the embedded appliance. */
export function targetName(spec: TargetSpec): string {
  if (spec.kind === 'embedded') return 'the embedded appliance';
  return spec.profile ?? spec.endpoint.display;
}

const describeTarget = (t: PlanTarget): string =>
  t.kind === 'embedded' ? `the embedded appliance in ${t.state_dir}` : t.url;

const sameTarget = (a: PlanTarget, b: PlanTarget): boolean =>
  a.kind === 'embedded' ? b.kind === 'embedded' && a.state_dir === b.state_dir : b.kind === 'remote' && a.url === b.url;

/**
 * The fingerprint of what a plan read: for each object the file names (and, with prune, every
 * object of its kind the target holds, and each delete), the SHA-256 of what the plan compared of
 * it, the change it planned (or none), and the object as `stor export` writes it (or absent); and
 * of the facts of the target the plan relies on: its release and role catalogue, and stor's marks.
 * Two reads fingerprint alike exactly when the plan would be made the same from them. Who read is
 * not among them: a plan saved with a read-only key is applied with one that may write (least
 * privilege, docs/STATE.md "Saved plans"), and the checks that depend on the identity (your own
 * roles) run again at apply on the identity applying.
 */
export function fingerprint(
  world: World,
  desired: StateFile,
  steps: readonly Step[],
  prune: boolean,
): Record<string, string> {
  const read: Record<string, string> = {
    release: sha256(stableJson(world.roles.model.release)),
    catalogue: sha256(stableJson({ source: world.roles.source, model: world.roles.model })),
    marks: sha256(stableJson({ home: world.marks.home, owned: [...world.marks.owned].map(([k, v]) => [k, [...v]]) })),
  };
  for (const kind of KINDS as readonly AnyKind[]) {
    const { identity } = partOf(kind.key);
    const exported = new Map(kind.export(world).map((o) => [identityValue(identity, o), o]));
    const names = new Set(objectsOf(desired, kind.key).map((o) => identityValue(identity, o)));
    for (const s of steps) if (s.change.kind === kind.key) names.add(s.change.name);
    if (prune) for (const n of exported.keys()) names.add(n);
    for (const name of names) {
      const change = steps.find((s) => s.change.kind === kind.key && s.change.name === name)?.change ?? null;
      read[objectLabel({ kind: kind.key, name })] = sha256(stableJson({ change, target: exported.get(name) ?? null }));
    }
  }
  return read;
}

/** What to write: everything but the checksum, then the checksum of it. */
export function savedPlan(
  target: PlanTarget,
  file: string,
  text: string,
  options: SavedOptions,
  plan: StatePlan,
  steps: readonly Step[],
  read: Record<string, string>,
  now: Date,
): SavedPlan {
  const body: Omit<SavedPlan, 'checksum'> = {
    format: PLAN_FORMAT,
    version: PLAN_VERSION,
    made_at: now.toISOString(),
    target,
    release: plan.release,
    options,
    state: { file, sha256: sha256(text), text },
    steps: steps.map((s) => ({ change: s.change, ...(s.want !== undefined ? { want: s.want } : {}) })),
    read,
  };
  return { ...body, checksum: sha256(stableJson(body)) };
}

/** Writes the plan file: 0600 whatever the umask, by a new file renamed over the path (a link there is replaced, never followed). */
export async function writePlanFile(ctx: CommandContext, path: string, saved: SavedPlan): Promise<void> {
  await replaceFile(
    resolve(ctx.io.cwd, path),
    umaskOf(ctx.io),
    (handle) => handle.writeFile(`${JSON.stringify(saved, null, 2)}\n`),
    { mode: 0o600 },
  );
}

const invalid = (message: string, hint?: string): StorError =>
  new StorError(E.PLAN_FILE_INVALID, message, hint ? { hint } : {});

/**
 * Reads a plan file and refuses what it cannot trust before the target is touched: not a regular
 * file, not the user's own or readable by others (not 0600), not a stor plan (a state file given
 * without -f), another format version, or a file whose checksum or state text does not add up.
 */
export function readPlanFile(ctx: CommandContext, path: string): { saved: SavedPlan; desired: StateFile } {
  let data: string;
  let mode: number;
  let uid: bigint;
  try {
    const file = readSmallFile(resolve(ctx.io.cwd, path), PLAN_FILE);
    data = file.data.toString('utf8');
    mode = file.mode;
    uid = file.stats.uid;
  } catch (err) {
    if (err instanceof StorError) throw err;
    throw new StorError(
      E.LOCAL_FILE_UNREADABLE,
      `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  const me = process.getuid?.();
  if (me !== undefined && uid !== BigInt(me))
    throw invalid(`${path} belongs to uid ${uid}, not to you (uid ${me}): a plan is applied only from your own file`);
  if ((mode & 0o077) !== 0)
    throw invalid(
      `${path} has mode ${(mode & 0o777).toString(8).padStart(4, '0')}: a plan file must be 0600, as \`stor plan --out\` writes it`,
      `if you trust its content: chmod 600 ${path}`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    parsed = undefined;
  }
  const doc = parsed as Partial<SavedPlan> | undefined;
  if (doc === undefined || doc === null || typeof doc !== 'object' || doc.format !== PLAN_FORMAT)
    throw invalid(
      `${path} is not a stor plan file (a desired-state file is applied with -f: \`stor apply -f ${path}\`)`,
      '`stor apply PLAN` takes a file `stor plan -f FILE --out PLAN` wrote; a desired-state file is applied with `stor apply -f FILE`',
    );
  if (doc.version !== PLAN_VERSION)
    throw invalid(
      `${path} is a stor plan of format version ${String(doc.version)}; this stor reads version ${PLAN_VERSION}`,
      'make the plan again with this stor',
    );
  const { checksum, ...body } = doc as SavedPlan;
  if (
    checksum !== sha256(stableJson(body)) ||
    typeof body.state?.text !== 'string' ||
    body.state.sha256 !== sha256(body.state.text)
  )
    throw invalid(`${path} is damaged or was edited: its checksum does not match its content`, 'make the plan again');
  return { saved: doc as SavedPlan, desired: parseStateFile(body.state.text, body.state.file) };
}

/** Refuses a plan made for another target (before it is read) or another release (after). */
export function checkPlanTarget(saved: SavedPlan, spec: TargetSpec, release?: string | null): void {
  const here = planTarget(spec);
  if (!sameTarget(saved.target, here))
    throw new StorError(
      E.PLAN_TARGET,
      `this plan was made for ${describeTarget(saved.target)}, not for ${describeTarget(here)}; nothing was changed`,
      {
        hint: "choose the plan's target (--url, --profile), or make a plan for this one with `stor plan -f FILE --out PLAN`",
      },
    );
  if (release !== undefined && release !== saved.release)
    throw new StorError(
      E.PLAN_TARGET,
      `this plan was made for release ${String(saved.release)}; ${describeTarget(here)} now runs ${String(release)}; nothing was changed`,
      { hint: 'make the plan again: `stor plan -f FILE --out PLAN`' },
    );
}

/** The objects and facts whose fingerprint differs from the plan's: `group web`, `release`. */
export function changedSince(saved: Record<string, string>, now: Record<string, string>): string[] {
  return [...new Set([...Object.keys(saved), ...Object.keys(now)])].filter((k) => saved[k] !== now[k]);
}
