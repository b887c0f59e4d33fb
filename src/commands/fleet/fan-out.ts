import { profileNamed, ProfileStore } from '../../core/config/profiles.js';
import { E, stoppedBy } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import { CommandContext } from '../framework/context.js';
import { describeError } from '../output/describe-error.js';
import { EXIT, EXIT_FOR_KIND } from '../output/exit-codes.js';
import type { IO, OutputStream } from '../output/io.js';
import { forEachLimited } from '../shared/pool.js';
import { watchSignals } from '../shared/interruption.js';
import { abandonWork } from '../startup/abandoned-work.js';
import { describeRelease, targetRelease, type TargetRelease } from '../shared/target-release.js';
import type { Cell, CommandResult, View } from '../output/render.js';
import { resolveTargetList } from './target-list.js';

/** One element of the `--json` array a command prints with `--targets`. */
export interface TargetOutcome {
  /** The profile name. */
  target: string;
  /** True when the command exited 0 on this target. */
  ok: boolean;
  /** The exit code the command alone would have had on this target. */
  exit_code: number;
  /** The command's own `--json` document, when it ran to the end (findings included). */
  data?: unknown;
  /** The target's `system.version_short` (the emulator's release), when the command reached it and it said. */
  release?: string | null;
  /** Why it failed on this target: as `--json` prints an error. */
  error?: { code: string; kind: string; message: string; hint?: string; details?: string[] };
  /** For a change: what was planned on this target (its dry run's document, or the command it would run). */
  plan?: unknown;
}

/** One target's line of `--json-lines` (docs/REMOTE.md "Fleets"): written as soon as the target finishes. */
export interface TargetLine {
  target: string;
  /** The profile's URL. */
  url?: string;
  /** The target's `system.version_short`; null when the command did not reach it or it would not say. */
  release: string | null;
  exit_code: number;
  /** The command's own `--json` document, when it ran to the end on this target. */
  result?: unknown;
  error?: TargetOutcome['error'];
  /** For a change: what was planned on this target. */
  plan?: unknown;
}

/** The last line of a `--json-lines` run over `--targets`. */
export interface SummaryLine {
  summary: {
    targets: number;
    /** Targets where the command ran to its end: exit 0, 6 (findings) or 7 (drift). */
    ok: number;
    /** The others: an error, or not attempted. */
    failed: number;
    /** `plan`: the targets with changes pending; a change: the targets it changed. */
    changed?: number;
    /** The run's exit code (fanOutExitCode). */
    exit_code: number;
  };
}

const ranToTheEnd = (o: TargetOutcome) =>
  o.exit_code === EXIT.OK || o.exit_code === EXIT.CHECK || o.exit_code === EXIT.DRIFT;

/** A target's outcome as its `--json-lines` line. */
export function targetLine(base: CommandContext, o: TargetOutcome): TargetLine {
  const url = base.profiles ? profileNamed(base.profiles, o.target)?.url : undefined;
  return {
    target: o.target,
    ...(url !== undefined ? { url } : {}),
    release: o.release ?? null,
    exit_code: o.exit_code,
    ...(o.error ? { error: o.error } : { result: o.data }),
    ...(o.plan !== undefined ? { plan: o.plan } : {}),
  };
}

/** The summary line: targets counted, and `changed` where the run counts changes (`plan`'s drift, a change's targets changed). */
export function summaryLine(outcomes: readonly TargetOutcome[], changed?: number): SummaryLine {
  const ok = outcomes.filter(ranToTheEnd).length;
  return {
    summary: {
      targets: outcomes.length,
      ok,
      failed: outcomes.length - ok,
      ...(changed !== undefined ? { changed } : {}),
      exit_code: fanOutExitCode(outcomes),
    },
  };
}

/** A target a change never started on, because an earlier one failed (without `--keep-going`). */
export function notAttempted(target: string, plan: unknown): TargetOutcome {
  const { code, kind } = E.NOT_ATTEMPTED;
  return {
    target,
    ok: false,
    exit_code: EXIT_FOR_KIND[kind],
    error: { code, kind, message: 'not attempted: an earlier target failed (--keep-going starts the rest anyway)' },
    plan,
  };
}

const isNotAttempted = (o: TargetOutcome) => o.error?.code === E.NOT_ATTEMPTED.code;

/**
 * A hint that names a command (`stor login`, `stor privilege fix 3`) names it for this target,
 * so the operator can copy it: `stor --profile nas3 privilege fix 3`.
 */
export function hintForTarget(hint: string, target: string): string {
  return hint.replace(/`stor (?!--profile )/g, `\`stor --profile ${target} `);
}

/** A note of one target's, naming the target in the commands it suggests. */
const namedForTarget = (line: string, target: string): string =>
  hintForTarget(line, target).replace(/^next: stor (?!--profile )/, `next: stor --profile ${target} `);

/**
 * Each target's notes and traces on stderr, one line at a time, led by its name; a command it
 * suggests (`next: stor privilege fix 4`, or a quoted `stor …`) names the target too.
 */
function prefixedStderr(stderr: OutputStream, target: string): OutputStream {
  let atLineStart = true;
  return {
    write(chunk: string) {
      let out = '';
      for (const line of String(chunk).split(/(?<=\n)/)) {
        out += atLineStart ? `${target}: ${namedForTarget(line, target)}` : line;
        atLineStart = line.endsWith('\n');
      }
      return stderr.write(out);
    },
    ...(stderr.isTTY !== undefined ? { isTTY: stderr.isTTY } : {}),
    ...(stderr.columns !== undefined ? { columns: stderr.columns } : {}),
  };
}

/**
 * The environment a target's command sees: the variables that choose a target or a key would
 * send every target to one URL, or one key to every appliance, so each target keeps its profile's.
 * STOR_USER too: it names the key's user for SCRAM (TrueNAS 26), and one name for every target's
 * own key would fail each whose key is another user's; each profile keeps its key's user.
 */
function targetEnv(env: IO['env']): IO['env'] {
  let made = targetEnvs.get(env);
  if (made === undefined) {
    const { STOR_URL: _url, STOR_PROFILE: _profile, STOR_API_KEY: _key, STOR_USER: _user, ...rest } = env;
    // Made once per run and shared by its targets, which only read it: not a copy of the whole environment per target.
    made = Object.freeze(rest);
    targetEnvs.set(env, made);
  }
  return made;
}

const targetEnvs = new WeakMap<IO['env'], IO['env']>();

/**
 * The exit code of the whole run (docs/ERRORS.md "Exit codes"): the first failed target's in LIST
 * order (not the first to fail in time, so a run's code does not depend on which answered first),
 * else 6 if some target has findings, else 7 if some target drifted (`plan`), else 0. A target not
 * attempted is never the first failure: the one that stopped it is.
 */
export function fanOutExitCode(outcomes: readonly TargetOutcome[]): number {
  // A signal stopped the whole run: its code, as the process's would be, before any target's.
  const stopped = outcomes.find((o) => o.error?.kind === 'interrupted' || o.error?.kind === 'terminated');
  if (stopped) return stopped.exit_code;
  const failed = outcomes.find(
    (o) => o.exit_code !== EXIT.OK && o.exit_code !== EXIT.CHECK && o.exit_code !== EXIT.DRIFT && !isNotAttempted(o),
  );
  if (failed) return failed.exit_code;
  if (outcomes.some((o) => o.exit_code === EXIT.CHECK)) return EXIT.CHECK;
  // `stor plan`: the fleet drifted when any target did.
  return outcomes.some((o) => o.exit_code === EXIT.DRIFT) ? EXIT.DRIFT : EXIT.OK;
}

/** `5 ok, 1 lockout, 1 unreachable, 2 not attempted`: targets counted by outcome, ok first, then findings, then failures as they came, then those not attempted. */
export function fanOutSummary(outcomes: readonly TargetOutcome[], findings: string): string {
  const counts = new Map<string, number>([
    ['ok', 0],
    [findings, 0],
  ]);
  for (const o of outcomes) {
    if (isNotAttempted(o)) continue;
    const label = o.error
      ? o.error.kind
      : o.exit_code === EXIT.OK
        ? 'ok'
        : o.exit_code === EXIT.CHECK
          ? findings
          : o.exit_code === EXIT.DRIFT
            ? 'drift'
            : `exit ${o.exit_code}`;
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  counts.set('not attempted', outcomes.filter(isNotAttempted).length);
  return [...counts]
    .filter(([label, n]) => n > 0 || label === 'ok')
    .map(([label, n]) => `${n} ${label}`)
    .join(', ');
}

const sameColumns = (a: View & { kind: 'table' }, b: View & { kind: 'table' }) =>
  JSON.stringify(a.columns) === JSON.stringify(b.columns);

/** One table with a leading `target` column when every target answered with a table; otherwise a section per target. */
export function fleetView(results: { target: string; result: CommandResult; release?: string | undefined }[]): View {
  const tables = results.map((r) => r.result.view).filter((v): v is View & { kind: 'table' } => v.kind === 'table');
  const first = tables[0];
  if (first && tables.length === results.length && tables.every((t) => sameColumns(t, first))) {
    return {
      kind: 'table',
      columns: [{ header: 'target', key: true }, ...first.columns],
      rows: results.flatMap(({ target, result }) =>
        (result.view as View & { kind: 'table' }).rows.map((row): Cell[] => [target, ...row]),
      ),
      ...(first.empty ? { empty: first.empty } : {}),
    };
  }
  return {
    kind: 'sections',
    sections: results.map(({ target, result, release }) => ({
      heading: release ? `${target} (${release})` : target,
      view: result.view,
      data: result.data,
    })),
  };
}

/** One target's run: its outcome, and its result when it ran to the end. */
export interface TargetRun {
  outcome: TargetOutcome;
  result?: CommandResult;
  /** The target's release for its section heading (`TrueNAS 26.0.0-RC.1`), when the command reached the target. */
  release?: string;
}

/**
 * The release of the target a command reached (docs/RELEASES.md "Supported releases"): every section names
 * it. Not asked of a target the command never connected to; a failed ask leaves the heading bare.
 */
async function releaseOf(ctx: CommandContext): Promise<TargetRelease | undefined> {
  const transport = await ctx.openedTransport();
  if (!transport) return undefined;
  return targetRelease(transport).catch(() => undefined);
}

/**
 * The targets `--targets` names, in list order; `--url` and `--profile` would contradict them.
 * The profiles file is read here once, and each target's run resolves its profile from that read.
 */
export async function resolveFleet(base: CommandContext): Promise<string[]> {
  const { globals, io } = base;
  if (globals.url !== undefined || globals.profile !== undefined) {
    throw new StorError(
      E.BAD_TARGETS,
      `--targets chooses the targets itself; it cannot be combined with --${globals.url !== undefined ? 'url' : 'profile'}`,
    );
  }
  base.profiles = await ProfileStore.of(io.env).read();
  return resolveTargetList(globals.targets!, base.profiles);
}

/**
 * Runs `run` on one target with its own context (its own transport, timeout and failure); its
 * notes go to stderr led by its name, and `quiet` silences them (a plan's rehearsal).
 */
export async function runOnTarget(
  base: CommandContext,
  target: string,
  run: (ctx: CommandContext) => Promise<CommandResult> | CommandResult,
  quiet = false,
  /** The plan shown and confirmed for this target, which a change holds to (plan-check.ts). */
  confirmedPlan?: unknown,
  /** `--parallel` for a read in the session agent: taken unless the target's pooled connection is open (fanOut). */
  opening?: OpeningLimit,
): Promise<TargetRun> {
  const { globals, io } = base;
  const ctx = new CommandContext(
    { ...io, env: targetEnv(io.env), stderr: prefixedStderr(io.stderr, target) },
    { ...globals, targets: undefined, url: undefined, profile: target, ...(quiet ? { quiet: true } : {}) },
    { sessions: base.sessions, stopped: base.stopped },
  );
  ctx.confirmedPlan = confirmedPlan;
  ctx.profiles = base.profiles;
  ctx.saidOnce = base.saidOnce ??= new Set();
  const done = opening && !(await ctx.onOpenConnection()) ? await opening.take() : undefined;
  try {
    const result = await run(ctx);
    // What a target says about its output goes below the run's output, led by its name.
    for (const line of ctx.afterOutput.splice(0)) base.noteAfter(`${target}: ${namedForTarget(line, target)}`);
    const exitCode = result.exitCode ?? EXIT.OK;
    const release = await releaseOf(ctx);
    const said = release ? { release: release.version } : {};
    return {
      outcome: { target, ok: exitCode === EXIT.OK, exit_code: exitCode, data: result.data, ...said },
      result,
      ...(release ? { release: describeRelease(release) } : {}),
    };
  } catch (err) {
    const d = describeError(err);
    // A target that answered (and refused) still says its release; one that did not answer, or a
    // run interrupted, is not asked again (it would wait out another timeout).
    const asked = !['unreachable', 'interrupted', 'terminated'].includes(d.kind);
    const release = asked ? await releaseOf(ctx) : undefined;
    const said = release?.version ? { release: release.version } : {};
    const hint = d.hint ? { hint: hintForTarget(d.hint, target) } : {};
    // The appliance's per-field reasons (`* pool_dataset_create.name: already exists`) are the
    // message's substance for parameters it rejected.
    const details = d.details?.length ? { details: d.details } : {};
    return {
      outcome: {
        target,
        ok: false,
        exit_code: d.code,
        error: { code: d.errorCode, kind: d.kind, message: d.message, ...hint, ...details },
        ...said,
      },
    };
  } finally {
    await ctx.close();
    done?.();
  }
}

/**
 * `--parallel N` in the session agent: at most N targets at once whose connection is not open
 * yet, each held from its start to its end. A target on a pooled connection that
 * is open and logged in takes none: it opens nothing, logs in nowhere, and only waits for its
 * answer, so bounding it would only queue it behind the others (docs/REMOTE.md "Fleets").
 */
export class OpeningLimit {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  /** Resolves once the target may start; call what it resolves with once it has ended. */
  async take(): Promise<() => void> {
    if (this.running < this.limit) this.running++;
    // Handed over by the target that ends (below), which keeps `running` as it is.
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    };
  }
}

/** Each failure's reason (not those never attempted: the summary counts them), then the summary, on stderr. */
export function noteOutcomes(base: CommandContext, outcomes: readonly TargetOutcome[], findings: string): void {
  // Below the merged output, after what the targets said of theirs: the summary is the last line.
  for (const o of outcomes) {
    if (!o.error || isNotAttempted(o)) continue;
    base.noteAfter(`stor: ${o.target}: ${o.error.kind}: ${o.error.message}`);
    for (const line of o.error.details ?? []) base.noteAfter(`${o.target}: ${line}`);
    if (o.error.hint) base.noteAfter(`${o.target}: hint: ${o.error.hint}`);
  }
  base.noteAfter(fanOutSummary(outcomes, findings));
}

export interface FanOutRequest {
  /** The verb's run, with its arguments and options bound. */
  run(ctx: CommandContext): Promise<CommandResult> | CommandResult;
  /** What exit 6 means for one target (`lockout`). */
  findings: string;
  parallel: number;
  /** Exit 7 is drift (`plan`): the `--json-lines` summary counts the targets with changes pending. */
  drifts?: boolean;
}

/**
 * Runs one read command on every target of `--targets`, at most `parallel` at once. The `--json`
 * document is the array of outcomes in list order; `--json-lines` has each target's line as it
 * finishes, then a summary; a person gets the merged view, each failure and a summary on stderr.
 */
export async function fanOut(base: CommandContext, request: FanOutRequest): Promise<CommandResult<TargetOutcome[]>> {
  const targets = await resolveFleet(base);
  const runs: TargetRun[] = new Array(targets.length);
  // `--json`: each outcome goes out as soon as those before it in list order have (the array's
  // bytes are the same), not all at once after the slowest target.
  const array = base.jsonArray(targets.length);
  // SIGINT/SIGTERM: every target not finished yet ends as interrupted, at once, so that the
  // `--json` array, the `--json-lines` summary and the report are whole and the run exits 130/143.
  // A read left waiting for its answer is abandoned, as a process killed there would leave it.
  const watch = watchSignals(base);
  const signalled = new Promise<NodeJS.Signals>((resolve) =>
    watch.aborted.addEventListener('abort', () => resolve(watch.aborted.reason as NodeJS.Signals), { once: true }),
  );
  const settle = (i: number, run: TargetRun) => {
    if (runs[i]) return;
    runs[i] = run;
    base.record(() => targetLine(base, run.outcome));
    array?.set(i, run.outcome);
  };
  const one = async (target: string, i: number, opening?: OpeningLimit) => {
    if (watch.aborted.aborted) return settle(i, stoppedRun(target, watch.aborted.reason as NodeJS.Signals, false));
    const running = runOnTarget(base, target, request.run, false, undefined, opening);
    settle(i, await Promise.race([running, signalled.then((s) => stoppedRun(target, s, true))]));
  };
  try {
    // In the session agent every target starts at once (ten to a turn of the event loop, inTurns)
    // and `--parallel` bounds only those whose connection is not open yet (OpeningLimit); in a
    // process of its own each target opens a connection, and at most `--parallel` run at once.
    if (base.sessions?.isOpen) {
      const opening = new OpeningLimit(request.parallel);
      await inTurns(targets, TARGETS_PER_TURN, (target, i) => one(target, i, opening));
    } else await forEachLimited(targets, request.parallel, (target, i) => one(target, i));
  } finally {
    watch.stop();
  }
  if (watch.aborted.aborted) abandonWork();
  const outcomes = runs.map((r) => r.outcome);
  noteOutcomes(base, outcomes, request.findings);
  const drifted = request.drifts ? outcomes.filter((o) => o.exit_code === EXIT.DRIFT).length : undefined;
  return {
    lastLine: summaryLine(outcomes, drifted),
    data: outcomes,
    view: fleetView(
      runs.flatMap((r) => (r.result ? [{ target: r.outcome.target, result: r.result, release: r.release }] : [])),
    ),
    exitCode: fanOutExitCode(outcomes),
    ...(array ? { streamed: true } : {}),
  };
}

/** How many targets the session agent sets up in one turn of the event loop (inTurns). */
export const TARGETS_PER_TURN = 10;

/**
 * Starts `start` for each item, `per` of them at once, each further `per` in a later turn of the
 * event loop (one `setImmediate` each, all run in the same check phase, with the `process.nextTick`
 * callbacks queued by the turn before run in between). Why: a pooled connection holds the frames
 * of its calls until the next tick (corkForTick, core/transport/remote.ts), so that the calls a
 * command makes together leave in one write; targets started all at once reach their calls in the
 * same drain of the microtask queue, and no request left until the last of 100 targets was set
 * up, the servers idle meanwhile. In turns of ten, the first requests leave once ten targets are.
 * One target a turn cost the agent a fifth more CPU than all at once; ten a turn about the same
 * as all at once (bench/HISTORY.md, "the requests leave as the targets are set up").
 */
function inTurns<T>(items: readonly T[], per: number, start: (item: T, i: number) => Promise<void>): Promise<void[]> {
  const turns: Promise<void>[] = [];
  for (let at = per; at < items.length; at += per) turns.push(new Promise<void>((resolve) => setImmediate(resolve)));
  return Promise.all(
    items.map((item, i) => (i < per ? start(item, i) : turns[Math.floor(i / per) - 1]!.then(() => start(item, i)))),
  );
}

/** A target a signal stopped the run before it finished (`started`) or before it started. */
function stoppedRun(target: string, signal: NodeJS.Signals, started: boolean): TargetRun {
  const d = describeError(
    new StorError(
      stoppedBy(signal),
      started
        ? `interrupted by ${signal} before this target answered`
        : `interrupted by ${signal} before this target was started`,
    ),
  );
  return {
    outcome: { target, ok: false, exit_code: d.code, error: { code: d.errorCode, kind: d.kind, message: d.message } },
  };
}
