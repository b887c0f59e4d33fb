import { closeSync, openSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { call } from '../../core/contract/client.js';
import type { ResultOf } from '../../core/contract/index.js';
import { RpcError, StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';
import type { Transport } from '../../core/transport/transport.js';
import type { CommandContext } from '../shared/context.js';
import { describeError, type DescribedError } from '../shared/describe-error.js';
import { shown, toned, type CommandResult, type Tone, type View } from '../shared/render.js';
import { explainForbidden } from './forbidden.js';
import { formatMode, octal, sizeCell } from '../shared/format.js';
import { parseMode } from '../shared/mode.js';
import { ProgressBar } from '../shared/progress.js';
import { arg, defineCommand, flag, value, type OptionValues } from '../shared/declare.js';

const options = {
  mode: value('<bits>', 'permission bits: decimal (420) or octal (0644, 0o644)'),
  append: flag('append to the target instead of replacing it'),
};

export type UploadOptions = OptionValues<typeof options>;

/** What happened to one file of `stor upload`. */
export type UploadOutcome = 'done' | 'failed' | 'not_attempted';

/** Why a file failed: the error as `--json` shows a command's error (code, kind, message). */
export interface UploadFileError {
  code: string;
  kind: string;
  message: string;
  hint?: string;
  /** The appliance's validation errors, one per line. */
  details?: string[];
}

/** One file of `stor upload --json`. */
export interface UploadFileResult {
  /** Local path as given. */
  source: string;
  /** Where it goes on the appliance. */
  target: string;
  outcome: UploadOutcome;
  /** Bytes of the local file (sent, when done). */
  bytes: number;
  /** Size of the target after the upload, as `filesystem.stat` reports it (checked); null unless done. */
  size: number | null;
  /** Permission bits of the target, octal, e.g. `0644`; null unless done. */
  mode: string | null;
  owner: string | null;
  job_id: number | null;
  /** Set when the outcome is `failed`. */
  error: UploadFileError | null;
}

/** `stor upload --json`: every file's outcome, in the order given, and the counts. */
export interface UploadReport {
  files: UploadFileResult[];
  summary: { files: number; done: number; failed: number; not_attempted: number; bytes_sent: number };
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
    if (!st.isFile()) throw new StorError(E.LOCAL_NOT_A_FILE, `not a regular file: ${f}`);
    // Opened now, not when its turn comes: an unreadable file must stop the command before any upload.
    try {
      closeSync(openSync(path, 'r'));
    } catch (err) {
      throw new StorError(E.LOCAL_FILE_UNREADABLE, `cannot read the local file ${f}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
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
    throw new StorError(E.TARGET_NOT_A_DIRECTORY, `several files go to a directory; ${target} is ${st ? 'a file' : 'missing'}`, {
      hint: `end the target with / to create it: ${target}/`,
    });
  }
  return [target];
}

// After these the target cannot take the next file either; cp would stop too.
const STOPS_THE_REST = new Set(['auth', 'unreachable', 'interrupted']);

/**
 * `stor upload <file…> <target>`. Each file is uploaded in turn; a failed file does not stop the
 * rest (as cp), unless the failure means the target is unusable: then the rest are not attempted.
 * One file: its failure is the command's error. Several: the report lists every file's outcome and
 * the exit code is that of the first failure.
 */
export async function upload(ctx: CommandContext, args: string[], options: UploadOptions): Promise<CommandResult<UploadReport>> {
  if (args.length < 2) throw new StorError(E.MISSING_TARGET, 'give one or more local files and a target path on the appliance');
  const target = args.at(-1)!;
  const sources = args.slice(0, -1);
  // Everything that can be checked locally is, before any request.
  const mode = options.mode === undefined ? undefined : parseMode(options.mode);
  if (mode?.warning) ctx.note(`stor: warning: ${mode.warning}`);
  const files = localFiles(ctx, sources);
  const t = await ctx.transport();
  const targets = await destinations(t, target, files.map((f) => basename(f.path)));
  const showProgress = ctx.io.stderr.isTTY === true && !ctx.globals.json && !ctx.globals.quiet;
  // One bar for the whole command: file i of n, and the total besides this file's share.
  const bar = showProgress ? new ProgressBar(ctx.io.stderr, { files: files.length, bytes: files.reduce((n, f) => n + f.size, 0) }) : undefined;

  const results: UploadFileResult[] = [];
  let firstFailure: DescribedError | undefined;
  let targetUnusable = false;
  for (const [i, file] of files.entries()) {
    const entry = { source: sources[i]!, target: targets[i]!, bytes: file.size };
    if (targetUnusable) {
      results.push({ ...entry, outcome: 'not_attempted', size: null, mode: null, owner: null, job_id: null, error: null });
      continue;
    }
    try {
      const done = await uploadOne(t, file, entry.target, { mode: mode?.mode, append: options.append === true, bar });
      results.push({ ...entry, ...done });
    } catch (err) {
      if (files.length === 1) throw err;
      const d = describeError(err);
      firstFailure ??= d;
      targetUnusable = STOPS_THE_REST.has(d.kind);
      const error = { code: d.errorCode, kind: d.kind, message: d.message, ...(d.hint ? { hint: d.hint } : {}), ...(d.details ? { details: d.details } : {}) };
      results.push({ ...entry, outcome: 'failed', size: null, mode: null, owner: null, job_id: null, error });
    }
  }
  const data: UploadReport = { files: results, summary: summarize(results) };
  if (firstFailure && !ctx.globals.json) ctx.note(failureNote(data));
  return { data, view: reportView(data, ctx.io.stdout.isTTY === true), ...(firstFailure ? { exitCode: firstFailure.code } : {}) };
}

async function uploadOne(
  t: Transport,
  file: { path: string; size: number },
  path: string,
  o: { mode: number | undefined; append: boolean; bar: ProgressBar | undefined },
): Promise<Pick<UploadFileResult, 'outcome' | 'size' | 'mode' | 'owner' | 'job_id' | 'error'>> {
  const before = o.append ? await statOrNull(t, path) : null;
  const bar = o.bar;
  bar?.start(basename(file.path), file.size);
  let jobId: number;
  try {
    ({ jobId } = await t.upload({
      file: file.path,
      size: file.size,
      path,
      options: { ...(o.mode !== undefined ? { mode: o.mode } : {}), ...(o.append ? { append: true } : {}) },
      ...(bar ? { onProgress: (n: number) => bar.update(n) } : {}),
    }));
  } catch (err) {
    bar?.clear();
    if (err instanceof StorError && err.code === 'UPLOAD_FORBIDDEN') throw await explainForbidden(t, err);
    throw err;
  }
  bar?.finish();
  const after = await call(t, 'filesystem.stat', [path]);
  const expected = (before?.size ?? 0) + file.size;
  if (after.size !== expected) {
    throw new StorError(E.SIZE_MISMATCH, `${path} has ${after.size} bytes after the upload; expected ${expected}`);
  }
  return { outcome: 'done', size: after.size, mode: octal(after.mode & 0o7777), owner: after.user ?? null, job_id: jobId, error: null };
}

function summarize(files: readonly UploadFileResult[]): UploadReport['summary'] {
  const count = (o: UploadOutcome) => files.filter((f) => f.outcome === o).length;
  const bytesSent = files.filter((f) => f.outcome === 'done').reduce((sum, f) => sum + f.bytes, 0);
  return { files: files.length, done: count('done'), failed: count('failed'), not_attempted: count('not_attempted'), bytes_sent: bytesSent };
}

/** For stderr, so that a person whose stdout is redirected still learns that not everything landed. */
function failureNote({ files, summary }: UploadReport): string {
  const lines = files.filter((f) => f.error).map((f) => `stor: ${f.source}: ${f.error!.message}`);
  const rest = summary.not_attempted > 0 ? `, ${summary.not_attempted} not attempted` : '';
  lines.push(`stor: ${summary.failed} of ${summary.files} files failed${rest}; ${summary.done} uploaded`);
  return lines.join('\n');
}

const OUTCOME_TONE: Record<UploadOutcome, Tone> = { done: 'ok', failed: 'danger', not_attempted: 'warning' };

/**
 * One row per file. On a terminal the error column shows only when something failed, so a clean
 * run keeps its width for paths; piped, the columns never change, for the scripts that split them.
 */
function reportView({ files, summary }: UploadReport, tty: boolean): View {
  const withErrors = summary.failed > 0 || !tty;
  return {
    kind: 'table',
    columns: [
      { header: 'source', overflow: 'middle' },
      { header: 'target', overflow: 'middle' },
      'outcome',
      { header: 'size', align: 'right' },
      'mode',
      'owner',
      ...(withErrors ? [{ header: 'error', overflow: 'wrap' as const }] : []),
    ],
    rows: files.map((f) => [
      f.source,
      f.target,
      f.outcome === 'not_attempted' ? shown(f.outcome, 'not attempted', OUTCOME_TONE[f.outcome]) : toned(f.outcome, OUTCOME_TONE[f.outcome]),
      sizeCell(f.size ?? f.bytes),
      f.mode === null ? null : shown(f.mode, formatMode(parseInt(f.mode, 8), 'FILE')),
      f.owner,
      ...(withErrors ? [f.error?.message ?? null] : []),
    ]),
  };
}

export const uploadCommand = defineCommand({
  summary: 'upload local files to the appliance (streamed), wait for the job, and check the size',
  args: { files: arg.variadic('local file(s), then the target: a file path, or a directory (existing, or ending in /)', true, 'file') },
  options,
  examples: ['stor upload ./report.pdf /mnt/tank/docs/ --mode 0644', 'stor upload ./a.log ./b.log /mnt/tank/logs/', 'stor upload ./part2 /mnt/tank/big.bin --append'],
  notes: 'On 25.10.1 only FULL_ADMIN holders may upload (the reports say SYS_ADMIN accounts); see the README.',
  run: (ctx, { files }, opts) => upload(ctx, files, opts),
});
