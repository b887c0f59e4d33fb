import { configDirFrom } from '../../core/config/paths.js';
import { ProfileStore } from '../../core/config/profiles.js';
import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import { CommandContext } from './context.js';
import { describeError } from './describe-error.js';
import { EXIT } from './exit-codes.js';
import type { IO, OutputStream } from './io.js';
import { forEachLimited } from './pool.js';
import type { Cell, CommandResult, View } from './render.js';
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
  /** Why it failed on this target: as `--json` prints an error. */
  error?: { code: string; kind: string; message: string; hint?: string };
}

/** Each target's notes and traces on stderr, one line at a time, led by its name. */
function prefixedStderr(stderr: OutputStream, target: string): OutputStream {
  let atLineStart = true;
  return {
    write(chunk: string) {
      let out = '';
      for (const line of String(chunk).split(/(?<=\n)/)) {
        out += (atLineStart ? `${target}: ` : '') + line;
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
 */
function targetEnv(env: IO['env']): IO['env'] {
  const { STOR_URL: _url, STOR_PROFILE: _profile, STOR_API_KEY: _key, ...rest } = env;
  return rest;
}

/** The exit code of the whole run: the first failed target's (in list order), else 6 if some target has findings, else 0. */
export function fanOutExitCode(outcomes: readonly TargetOutcome[]): number {
  const failed = outcomes.find((o) => o.exit_code !== EXIT.OK && o.exit_code !== EXIT.CHECK);
  if (failed) return failed.exit_code;
  return outcomes.some((o) => o.exit_code === EXIT.CHECK) ? EXIT.CHECK : EXIT.OK;
}

/** `5 ok, 1 lockout, 1 unreachable`: targets counted by outcome, ok first, then findings, then failures as they came. */
export function fanOutSummary(outcomes: readonly TargetOutcome[], findings: string): string {
  const counts = new Map<string, number>([
    ['ok', 0],
    [findings, 0],
  ]);
  for (const o of outcomes) {
    const label = o.error ? o.error.kind : o.exit_code === EXIT.OK ? 'ok' : o.exit_code === EXIT.CHECK ? findings : `exit ${o.exit_code}`;
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return [...counts].filter(([label, n]) => n > 0 || label === 'ok').map(([label, n]) => `${n} ${label}`).join(', ');
}

const sameColumns = (a: View & { kind: 'table' }, b: View & { kind: 'table' }) =>
  JSON.stringify(a.columns) === JSON.stringify(b.columns);

/** One table with a leading `target` column when every target answered with a table; otherwise a section per target. */
function fleetView(results: { target: string; result: CommandResult }[]): View {
  const tables = results.map((r) => r.result.view).filter((v): v is View & { kind: 'table' } => v.kind === 'table');
  const first = tables[0];
  if (first && tables.length === results.length && tables.every((t) => sameColumns(t, first))) {
    return {
      kind: 'table',
      columns: ['target', ...first.columns],
      rows: results.flatMap(({ target, result }) => (result.view as View & { kind: 'table' }).rows.map((row): Cell[] => [target, ...row])),
      ...(first.empty ? { empty: first.empty } : {}),
    };
  }
  return { kind: 'sections', sections: results.map(({ target, result }) => ({ heading: target, view: result.view, data: result.data })) };
}

export interface FanOutRequest {
  /** The verb's run, with its arguments and options bound. */
  run(ctx: CommandContext): Promise<CommandResult> | CommandResult;
  /** What exit 6 means for one target (`lockout`). */
  findings: string;
  parallel: number;
}

/**
 * Runs one read command on every target of `--targets`, at most `parallel` at once, each with
 * its own context (its own transport, timeout and failure). The `--json` document is the array
 * of outcomes in list order; a person gets the merged view, each failure and a summary on stderr.
 */
export async function fanOut(base: CommandContext, request: FanOutRequest): Promise<CommandResult<TargetOutcome[]>> {
  const { globals, io } = base;
  if (globals.url !== undefined || globals.profile !== undefined) {
    throw new StorError(E.BAD_TARGETS, `--targets chooses the targets itself; it cannot be combined with --${globals.url !== undefined ? 'url' : 'profile'}`);
  }
  const doc = await new ProfileStore(configDirFrom(io.env)).read();
  const targets = resolveTargetList(globals.targets!, doc);
  const env = targetEnv(io.env);
  const outcomes: TargetOutcome[] = new Array(targets.length);
  const results: { target: string; result: CommandResult }[] = [];
  await forEachLimited(targets, request.parallel, async (target, i) => {
    const ctx = new CommandContext({ ...io, env, stderr: prefixedStderr(io.stderr, target) }, { ...globals, targets: undefined, url: undefined, profile: target });
    try {
      const result = await request.run(ctx);
      const exitCode = result.exitCode ?? EXIT.OK;
      outcomes[i] = { target, ok: exitCode === EXIT.OK, exit_code: exitCode, data: result.data };
      results[i] = { target, result };
    } catch (err) {
      const d = describeError(err);
      outcomes[i] = { target, ok: false, exit_code: d.code, error: { code: d.errorCode, kind: d.kind, message: d.message, ...(d.hint ? { hint: d.hint } : {}) } };
    } finally {
      await ctx.close();
    }
  });
  if (!globals.json) {
    for (const o of outcomes) if (o.error) base.note(`stor: ${o.target}: ${o.error.kind}: ${o.error.message}`);
    base.note(fanOutSummary(outcomes, request.findings));
  }
  return { data: outcomes, view: fleetView(results.filter((r) => r !== undefined)), exitCode: fanOutExitCode(outcomes) };
}
