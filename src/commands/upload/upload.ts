import { statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { tmpDirFrom } from '../../core/config/paths.js';
import { call } from '../../core/contract/client.js';
import type { ResultOf } from '../../core/contract/index.js';
import { RpcError, StorError } from '../../core/errors.js';
import { E, stoppedBy } from '../../core/error-catalogue.js';
import type { Transport } from '../../core/transport/transport.js';
import type { CommandContext } from '../framework/context.js';
import { describeError, type DescribedError } from '../output/describe-error.js';
import { shown, type CommandResult, type View } from '../output/render.js';
import {
  failureNote,
  fileError,
  stopsTheRest,
  transferView,
  type TransferFileError,
  type TransferOutcome,
} from '../output/transfer-report.js';
import { explainForbidden } from './forbidden.js';
import { formatMode, octal, sizeCell } from '../output/format.js';
import { parseMode } from '../shared/mode.js';
import type { ProgressBar } from '../output/progress.js';
import { forEachLimited } from '../shared/pool.js';
import { positiveInt } from '../framework/arg-parsers.js';
import { assertReadable, walkTree, type PlannedFile, type TreePlan } from './local-tree.js';
import { ensureDirectories } from './remote-dirs.js';
import { spoolStdin, type Spooled } from './stdin-spool.js';
import { arg, defineCommand, flag, value, type OptionValues } from '../framework/declare.js';
import { refuseStdinForTargets } from '../shared/stdin-once.js';
import { watchSignals } from '../shared/interruption.js';

const options = {
  mode: value('<bits>', 'permission bits: decimal (420) or octal (0644, 0o644)'),
  append: flag('append to the target instead of replacing it'),
  recursive: flag('upload directories and everything under them, creating directories as needed', { short: 'r' }),
  follow: flag('with -r, upload what symbolic links point to (by default they are skipped)'),
  parallel: value('<n>', 'transfers at once', { parse: positiveInt('--parallel'), default: 4 }),
  skipExisting: flag('skip files whose size on the appliance already matches (one listing per directory)'),
  name: value('<name>', 'the file name on the appliance when reading standard input (`-`)'),
};

export type UploadOptions = OptionValues<typeof options>;

/** What happened to one file of `stor upload`. */
export type UploadOutcome = TransferOutcome;

/** One file of `stor upload --json`. */
export interface UploadFileResult {
  /** Local path as given (or found under a directory given to -r); `-` for standard input. */
  source: string;
  /** Where it goes on the appliance. */
  target: string;
  outcome: UploadOutcome;
  /** Bytes of the local file (sent, when done). */
  bytes: number;
  /** Size of the target: after the upload as `filesystem.stat` reports it (checked), or as listed when skipped; null otherwise. */
  size: number | null;
  /** Permission bits of the target, octal, e.g. `0644`; null unless done or skipped. */
  mode: string | null;
  /** Null unless done (a listing does not name owners). */
  owner: string | null;
  job_id: number | null;
  /** Set when the outcome is `failed`. */
  error: TransferFileError | null;
}

/** `stor upload --json`: every file's outcome, in the order given (trees walked in name order), and the counts. */
export interface UploadReport {
  files: UploadFileResult[];
  summary: { files: number; done: number; skipped: number; failed: number; not_attempted: number; bytes_sent: number };
}

type Stat = ResultOf<'filesystem.stat'>;

async function statOrNull(t: Transport, path: string): Promise<Stat | null> {
  try {
    return await call(t, 'filesystem.stat', [path]);
  } catch (err) {
    if (err instanceof RpcError && err.errno === 2) return null;
    throw err;
  }
}

function localFiles(ctx: CommandContext, files: string[]): { path: string; size: number }[] {
  return files.map((f) => {
    const path = resolve(ctx.io.cwd, f);
    let st;
    try {
      st = statSync(path);
    } catch {
      throw new StorError(E.LOCAL_FILE_MISSING, `no such local file: ${f}`);
    }
    if (st.isDirectory())
      throw new StorError(E.LOCAL_NOT_A_FILE, `${f} is a directory`, {
        hint: `upload it and everything under it with -r`,
      });
    if (!st.isFile()) throw new StorError(E.LOCAL_NOT_A_FILE, `not a regular file: ${f}`);
    assertReadable(path, f);
    return { path, size: st.size };
  });
}

/**
 * Where each file goes: into `target` when it is a directory (an existing one, or any target
 * ending in `/`, created inside the pool), keeping the basename; else to `target` itself.
 */
async function destinations(t: Transport, target: string, names: string[]): Promise<string[]> {
  const trimmed = target.replace(/\/+$/, '');
  const join = (name: string) => `${trimmed}/${name}`;
  if (target.endsWith('/')) return names.map(join);
  const st = await statOrNull(t, target);
  if (st?.type === 'DIRECTORY') return names.map(join);
  if (names.length > 1) {
    // An existing file cannot become the directory: its own directory can take them.
    throw new StorError(
      E.TARGET_NOT_A_DIRECTORY,
      `several files go to a directory; ${target} is ${st ? 'a file' : 'missing'}`,
      {
        hint: st
          ? `name a directory, e.g. the one it is in: ${trimmed.slice(0, trimmed.lastIndexOf('/') + 1) || '/'}`
          : `end the target with / to create it: ${target}/`,
      },
    );
  }
  return [target];
}

/** `-r`: directories mirrored below the target (as cp -r), files given beside them into it. */
function treePlan(ctx: CommandContext, sources: string[], target: string, follow: boolean): TreePlan {
  const root = target.replace(/\/+$/, '') || '/';
  const plan: TreePlan = { directories: [root], files: [] };
  for (const source of sources) {
    const path = resolve(ctx.io.cwd, source);
    let st;
    try {
      st = statSync(path);
    } catch {
      throw new StorError(E.LOCAL_FILE_MISSING, `no such local file or directory: ${source}`);
    }
    if (st.isDirectory()) walkTree(plan, path, source, root, follow, (line) => ctx.warn(line));
    else if (st.isFile()) {
      assertReadable(path, source);
      plan.files.push({ source, path, size: st.size, target: `${root}/${basename(path)}` });
    } else throw new StorError(E.LOCAL_NOT_A_FILE, `not a regular file or directory: ${source}`);
  }
  return plan;
}

/**
 * Two sources bound for one path would race each other there (and the last would win): refused,
 * naming them. `targets` are where the files go; `directories` are made by -r, so a file may not
 * take one of their places either.
 */
function refuseDuplicateTargets(
  files: readonly { source: string; target: string }[],
  directories: readonly string[] = [],
): void {
  const seen = new Map<string, string>(directories.map((d) => [d, 'a directory of the tree']));
  for (const f of files) {
    const other = seen.get(f.target);
    if (other !== undefined) {
      throw new StorError(E.DUPLICATE_TARGET, `${other} and ${f.source} would both go to ${f.target}`, {
        hint: 'upload them to different targets, or rename one',
      });
    }
    seen.set(f.target, f.source);
  }
}

/** What was read of the local side before any request. */
interface Local {
  files?: { path: string; size: number }[];
  tree?: TreePlan;
}

/** What goes where; standard input is spooled first so that its size is known. */
async function plan(
  ctx: CommandContext,
  t: Transport,
  sources: string[],
  target: string,
  options: UploadOptions,
  local: Local,
): Promise<{ files: PlannedFile[]; directories: string[]; spooled?: Spooled }> {
  if (sources.includes('-')) {
    if (sources.length > 1 || options.recursive)
      throw new StorError(E.USAGE, 'standard input (-) is uploaded on its own, without -r');
    const into = options.name !== undefined ? `${target.replace(/\/+$/, '')}/` : target;
    if (options.name === undefined && target.endsWith('/')) {
      throw new StorError(E.USAGE, 'standard input has no file name', {
        hint: `name it: stor upload - ${target} --name FILE`,
      });
    }
    if (
      options.name !== undefined &&
      (options.name.includes('/') || options.name === '' || options.name === '.' || options.name === '..')
    ) {
      throw new StorError(E.USAGE, `--name takes a file name without /, not ${JSON.stringify(options.name)}`);
    }
    const [dest] = await destinations(t, into, [options.name ?? '']);
    if (dest!.endsWith('/'))
      throw new StorError(E.USAGE, `${target} is a directory and standard input has no file name`, {
        hint: `name it: stor upload - ${target} --name FILE`,
      });
    const spooled = await spoolStdin(ctx.io.stdin, ctx.io.onSignal?.bind(ctx.io), tmpDirFrom(ctx.io.env));
    return {
      files: [{ source: '-', path: spooled.path, size: spooled.size, target: dest! }],
      directories: [],
      spooled,
    };
  }
  if (local.tree) return local.tree;
  const files = local.files!;
  const targets = await destinations(
    t,
    target,
    files.map((f) => basename(f.path)),
  );
  // The first file goes alone, so filesystem.put makes a missing target directory once, before
  // parallel puts could race to (os.makedirs in MW/plugins/filesystem.py put). Only
  // --skip-existing needs the directory first, for its listing.
  return {
    files: files.map((f, i) => ({ source: sources[i]!, path: f.path, size: f.size, target: targets[i]! })),
    directories: options.skipExisting ? [...new Set(targets.map((p) => p.slice(0, p.lastIndexOf('/')) || '/'))] : [],
  };
}

/**
 * `stor upload <file…> <target>` (and `-r`, `-`). The first file goes alone, then up to
 * --parallel at once, each its own upload and job. A failed file does not stop the rest (as cp), unless the failure means the target
 * is unusable: then those not started are not attempted. One file: its failure is the command's
 * error. Several: the report lists every file's outcome in order, and the exit code is that of the
 * first failure in that order.
 */
export async function upload(
  ctx: CommandContext,
  args: string[],
  options: UploadOptions,
): Promise<CommandResult<UploadReport>> {
  if (args.length < 2)
    throw new StorError(E.MISSING_TARGET, 'give one or more local files and a target path on the appliance');
  const target = args.at(-1)!;
  const sources = args.slice(0, -1);
  // Everything that can be checked locally is, before any request.
  const mode = options.mode === undefined ? undefined : parseMode(options.mode);
  if (mode?.warning) ctx.warn(`stor: warning: ${mode.warning}`);
  if (options.append && options.skipExisting)
    throw new StorError(E.USAGE, '--append and --skip-existing do not go together');
  if (options.name !== undefined && !sources.includes('-'))
    throw new StorError(E.USAGE, '--name names standard input (-); a local file keeps its own name');
  const local: Local = sources.includes('-')
    ? {}
    : options.recursive
      ? { tree: treePlan(ctx, sources, target, options.follow) }
      : { files: localFiles(ctx, sources) };
  if (local.tree) refuseDuplicateTargets(local.tree.files, local.tree.directories);
  // Several files go into the target as a directory, each under its basename.
  if (local.files)
    refuseDuplicateTargets(
      local.files.map((f, i) => ({ source: sources[i]!, target: `${target.replace(/\/+$/, '')}/${basename(f.path)}` })),
    );
  // A remote upload posts with undici (upload-client.ts), which takes ~0.1 s of CPU to load: loaded
  // once the login is written, while the appliance checks the key and this process has nothing
  // else to do, not after the login and the target's stat, just before the POST (bench/HISTORY.md,
  // "the upload's fixed costs"). A failure to load is the upload's own to report, when it loads it.
  const t = await ctx.transport(() => {
    import('../../core/transport/upload-client.js').catch(() => undefined);
  });
  const { files, directories, spooled } = await plan(ctx, t, sources, target, options, local);
  try {
    const listings = directories.length > 0 ? await ensureDirectories(t, directories) : new Map();
    // Loaded only for a line to draw: progress.ts brings string-width, whose set-up (an
    // Intl.Segmenter and Unicode property expressions) took 70-108 ms in upload profiles, with or
    // without a terminal (bench/HISTORY.md, "the upload client's fixed costs").
    const bars = ctx.progress ? await import('../output/progress.js') : undefined;
    const total =
      bars && files.length > 1
        ? new bars.TotalProgress(
            ctx.io.stderr,
            'uploaded',
            files.length,
            files.reduce((n, f) => n + f.size, 0),
          )
        : undefined;

    const results: UploadFileResult[] = new Array(files.length);
    const failures: (DescribedError | undefined)[] = new Array(files.length);
    let targetUnusable = false;
    // SIGINT/SIGTERM cut the uploads under way off and leave the rest not attempted; the command
    // then ends with its report and the signal's error, as download -r does.
    const watch = watchSignals(ctx);
    try {
      await forEachLimited(
        files,
        options.parallel,
        async (file, i) => {
          const entry = { source: file.source, target: file.target, bytes: file.size };
          const none = { size: null, mode: null, owner: null, job_id: null, error: null };
          const slash = file.target.lastIndexOf('/');
          const existing = options.skipExisting
            ? listings.get(file.target.slice(0, slash) || '/')?.get(file.target.slice(slash + 1))
            : undefined;
          if (existing?.type === 'FILE' && existing.size === file.size) {
            results[i] = {
              ...entry,
              outcome: 'skipped',
              size: existing.size,
              mode: octal(existing.mode & 0o7777),
              owner: null,
              job_id: null,
              error: null,
            };
            total?.fileDone(i, 0);
            return;
          }
          if (targetUnusable || watch.signal) {
            results[i] = { ...entry, outcome: 'not_attempted', ...none };
            return;
          }
          try {
            const done = await uploadOne(t, file, file.target, {
              mode: mode?.mode,
              append: options.append === true,
              bar:
                bars && files.length === 1
                  ? startedBar(
                      bars.ProgressBar,
                      ctx.io.stderr,
                      file.source === '-' ? basename(file.target) : basename(file.path),
                      file.size,
                    )
                  : undefined,
              onProgress: total ? (n) => total.progress(i, n) : undefined,
              signal: watch.aborted,
            });
            results[i] = { ...entry, ...done };
            total?.fileDone(i, file.size);
          } catch (caught) {
            total?.fileFailed(i);
            const err = watch.signal ? await stoppedUpload(t, watch.signal, file.target, caught) : caught;
            if (files.length === 1) throw err;
            const d = describeError(err);
            failures[i] = d;
            if (stopsTheRest(d)) targetUnusable = true;
            results[i] = { ...entry, outcome: 'failed', ...none, error: fileError(d) };
          }
        },
        { firstAlone: true },
      );
    } finally {
      watch.stop();
    }
    total?.finish(watch.signal ? `stopped by ${watch.signal}` : undefined);
    const data: UploadReport = { files: results, summary: summarize(results) };
    const view = reportView(data, ctx.io.stdout.isTTY === true);
    // A signal that stopped something ends the command as the signal says, whatever failed before it.
    if (watch.signal && data.summary.done + data.summary.skipped < data.summary.files) {
      // Below the report, the error last: what each stopped file left.
      for (const line of failureNote(data.files, data.summary, '').slice(0, -1)) ctx.noteAfter(line);
      const error = describeError(interruptedReport(watch.signal, data.summary));
      return { data, view, exitCode: error.code, error };
    }
    const firstFailure = failures.find((f) => f !== undefined);
    if (firstFailure)
      for (const line of failureNote(data.files, data.summary, `${data.summary.done} uploaded`)) ctx.note(line);
    return { data, view, ...(firstFailure ? { exitCode: firstFailure.code } : {}) };
  } finally {
    spooled?.remove();
  }
}

/** A one-file progress bar, already showing that file. */
function startedBar(
  Bar: typeof ProgressBar,
  out: CommandContext['io']['stderr'],
  label: string,
  size: number,
): ProgressBar {
  const bar = new Bar(out, { files: 1, bytes: size });
  bar.start(label, size);
  return bar;
}

async function uploadOne(
  t: Transport,
  file: { path: string; size: number },
  path: string,
  o: {
    mode: number | undefined;
    append: boolean;
    bar: ProgressBar | undefined;
    onProgress: ((bytes: number) => void) | undefined;
    signal: AbortSignal;
  },
): Promise<Pick<UploadFileResult, 'outcome' | 'size' | 'mode' | 'owner' | 'job_id' | 'error'>> {
  const before = o.append ? await statOrNull(t, path) : null;
  const bar = o.bar;
  const onProgress = bar ? (n: number) => bar.update(n) : o.onProgress;
  let jobId: number;
  try {
    ({ jobId } = await t.upload({
      file: file.path,
      size: file.size,
      path,
      options: { ...(o.mode !== undefined ? { mode: o.mode } : {}), ...(o.append ? { append: true } : {}) },
      ...(onProgress ? { onProgress } : {}),
      signal: o.signal,
    }));
  } catch (err) {
    bar?.clear();
    if (err instanceof StorError && err.code === E.UPLOAD_FORBIDDEN.code) throw await explainForbidden(t, err);
    throw err;
  }
  bar?.finish();
  const after = await call(t, 'filesystem.stat', [path]);
  const expected = (before?.size ?? 0) + file.size;
  // Appends to one path take turns on the appliance, so another client's append may land between
  // the two stats: then the file holds more than ours added, never less.
  if (o.append ? after.size < expected : after.size !== expected) {
    throw new StorError(E.SIZE_MISMATCH, `${path} has ${after.size} bytes after the upload; expected ${expected}`);
  }
  return {
    outcome: 'done',
    size: after.size,
    mode: octal(after.mode & 0o7777),
    owner: after.user ?? null,
    job_id: jobId,
    error: null,
  };
}

/**
 * What an upload stopped by a signal left. The embedded transport says so itself (it stops the put
 * before its rename). Over the network the POST was cut off and the appliance's put fails: the
 * emulator writes beside the target and renames, so nothing is left, but 25.10.1 writes in place
 * (MW/plugins/filesystem.py:565), so whether part of the file stands there is asked, not assumed.
 * A file whose upload ended before the signal is told as it ended.
 */
async function stoppedUpload(t: Transport, signal: NodeJS.Signals, path: string, err: unknown): Promise<unknown> {
  const stopped = err instanceof StorError && (err.code === E.INTERRUPTED.code || err.code === E.TERMINATED.code);
  if (!stopped || t.target.kind === 'embedded') return err;
  const code = stoppedBy(signal);
  const there = await statOrNull(t, path).then(
    (st) => st !== null,
    () => undefined,
  );
  if (there === false)
    return new StorError(code, `interrupted by ${signal}; ${path} was not written, and nothing of it was left behind`);
  return new StorError(
    code,
    `interrupted by ${signal} while ${path} was being written; ${there ? 'a file stands there, which may hold part of it' : 'whether part of it stands there is unknown'}`,
    {
      hint: `check it with \`stor stat ${path}\``,
    },
  );
}

/** The command's error when a signal stopped a multi-file upload: what landed, what did not. */
function interruptedReport(signal: NodeJS.Signals, summary: UploadReport['summary']): StorError {
  const code = stoppedBy(signal);
  const landed = summary.done + summary.skipped;
  const rest = summary.not_attempted > 0 ? `, ${summary.not_attempted} not attempted` : '';
  return new StorError(
    code,
    `interrupted by ${signal}: ${landed} of ${summary.files} files uploaded, ${summary.failed} stopped or failed${rest}`,
    {
      hint: 'run the same command again with --skip-existing to send the rest',
    },
  );
}

function summarize(files: readonly UploadFileResult[]): UploadReport['summary'] {
  const count = (o: UploadOutcome) => files.filter((f) => f.outcome === o).length;
  const bytesSent = files.filter((f) => f.outcome === 'done').reduce((sum, f) => sum + f.bytes, 0);
  return {
    files: files.length,
    done: count('done'),
    skipped: count('skipped'),
    failed: count('failed'),
    not_attempted: count('not_attempted'),
    bytes_sent: bytesSent,
  };
}

function reportView({ files, summary }: UploadReport, tty: boolean): View {
  return transferView(files, summary.failed, tty, {
    columns: [{ header: 'size', align: 'right' }, 'mode', 'owner'],
    cells: (f) => [
      sizeCell(f.size ?? f.bytes),
      f.mode === null ? null : shown(f.mode, formatMode(parseInt(f.mode, 8), 'FILE')),
      f.owner,
    ],
  });
}

export const uploadCommand = defineCommand({
  summary: 'upload local files to the appliance (streamed), wait for the job, and check the size',
  effect: 'change',
  calls: ['filesystem.put', 'filesystem.stat', 'filesystem.mkdir'],
  args: {
    files: arg.variadic(
      'local file(s) (directories with -r, - for standard input), then the target: a file path, or a directory (existing, or ending in /)',
      true,
      'file',
      'target',
    ),
  },
  options,
  examples: [
    'stor upload ./report.pdf /mnt/tank/docs/ --mode 0644',
    'stor upload ./a.log ./b.log /mnt/tank/logs/',
    'stor upload ./part2 /mnt/tank/big.bin --append',
    'stor upload -r ./site /mnt/tank/www/ --parallel 8 --skip-existing',
    'pg_dump db | stor upload - /mnt/tank/backups/ --name db.sql',
  ],
  notes: 'On 25.10.1 only FULL_ADMIN holders may upload (the reports say SYS_ADMIN accounts); see the README.',
  fanOut: 'change',
  checkTargets: ({ files }) => {
    if (files.slice(0, -1).includes('-')) refuseStdinForTargets('`stor upload -`');
  },
  run: (ctx, { files }, opts) => upload(ctx, files, opts),
});
