import { createWriteStream, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';
import type { Transport } from '../../core/transport/transport.js';
import type { CommandContext } from '../shared/context.js';
import { describeError, type DescribedError } from '../shared/describe-error.js';
import { forEachLimited } from '../shared/pool.js';
import { TotalProgress } from '../shared/progress.js';
import type { CommandResult, View } from '../shared/render.js';
import { listDirectory } from '../upload/remote-dirs.js';
import type { UploadFileError } from '../upload/upload.js';

/** What happened to one file of `stor download -r`. */
export type DownloadOutcome = 'done' | 'failed' | 'not_attempted';

/** One file of `stor download -r --json`. */
export interface DownloadFileResult {
  /** The file on the appliance. */
  source: string;
  /** Where it was written, as given below the local directory. */
  target: string;
  outcome: DownloadOutcome;
  /** Its size in the appliance's listing. */
  size: number;
  job_id: number | null;
  error: UploadFileError | null;
}

/** `stor download -r --json`: every file in name order (depth first), the directories made, and the counts. */
export interface DownloadTreeReport {
  files: DownloadFileResult[];
  directories: number;
  summary: { files: number; done: number; failed: number; not_attempted: number; bytes_received: number };
}

interface RemoteFile {
  source: string;
  target: string;
  size: number;
}

/** The remote tree, one listdir per directory; symbolic links and other non-files said and left out. */
async function walkRemote(t: Transport, root: string, local: string, note: (line: string) => void): Promise<{ dirs: string[]; files: RemoteFile[] }> {
  const dirs: string[] = [];
  const files: RemoteFile[] = [];
  const walk = async (remote: string, here: string) => {
    dirs.push(here);
    const entries = [...(await listDirectory(t, remote)).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [name, entry] of entries) {
      if (name.includes('/') || name === '.' || name === '..') throw new StorError(E.MALFORMED_ANSWER, `the appliance listed ${remote} with an entry named ${JSON.stringify(name)}`);
      if (entry.type === 'DIRECTORY') await walk(`${remote}/${name}`, join(here, name));
      else if (entry.type === 'FILE') files.push({ source: `${remote}/${name}`, target: join(here, name), size: entry.size });
      else note(`stor: skipped ${remote}/${name}: a ${entry.type.toLowerCase()}, not a file or directory`);
    }
  };
  await walk(root, local);
  return { dirs, files };
}

// After these the appliance cannot give the next file either.
const STOPS_THE_REST = new Set(['auth', 'unreachable', 'interrupted']);

/**
 * `stor download -r REMOTE_DIR LOCAL_DIR`: LOCAL_DIR becomes a copy of REMOTE_DIR (made if
 * missing; files already there are replaced). Each file is written to a temporary name beside
 * it and renamed when its bytes are all there and match the listed size, so an interrupted run
 * leaves no half files under real names. Up to `parallel` files at once.
 */
export async function downloadTree(ctx: CommandContext, remote: string, local: string, parallel: number): Promise<CommandResult<DownloadTreeReport>> {
  const root = remote.replace(/\/+$/, '') || '/';
  const localRoot = resolve(ctx.io.cwd, local);
  try {
    if (!statSync(localRoot).isDirectory()) throw new StorError(E.TARGET_NOT_A_DIRECTORY, `${local} exists and is not a directory`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const t = await ctx.transport();
  const { dirs, files } = await walkRemote(t, root, localRoot, (line) => ctx.note(line));
  for (const dir of dirs) mkdirSync(dir, { recursive: true });
  const shown = (path: string) => join(local, path.slice(localRoot.length));
  const showProgress = ctx.io.stderr.isTTY === true && !ctx.globals.json && !ctx.globals.quiet;
  const total = showProgress && files.length > 0 ? new TotalProgress(ctx.io.stderr, 'downloaded', files.length, files.reduce((n, f) => n + f.size, 0)) : undefined;

  const results: DownloadFileResult[] = new Array(files.length);
  const failures: (DescribedError | undefined)[] = new Array(files.length);
  let stopped = false;
  await forEachLimited(files, parallel, async (file, i) => {
    const entry = { source: file.source, target: shown(file.target), size: file.size };
    if (stopped) {
      results[i] = { ...entry, outcome: 'not_attempted', job_id: null, error: null };
      return;
    }
    const partial = join(dirname(file.target), `.stor-download-${process.pid}-${i}`);
    try {
      const { jobId, bytes } = await t.download({ path: file.source, sink: createWriteStream(partial, { mode: 0o644 }), ...(total ? { onProgress: (n: number) => total.progress(i, n) } : {}) });
      if (bytes !== file.size) throw new StorError(E.SIZE_MISMATCH, `${file.source} gave ${bytes} bytes; its listing says ${file.size}`);
      renameSync(partial, file.target);
      results[i] = { ...entry, outcome: 'done', job_id: jobId, error: null };
      total?.fileDone(i, file.size);
    } catch (err) {
      rmSync(partial, { force: true });
      total?.fileDone(i, 0);
      const d = describeError(err);
      failures[i] = d;
      if (STOPS_THE_REST.has(d.kind)) stopped = true;
      const error = { code: d.errorCode, kind: d.kind, message: d.message, ...(d.hint ? { hint: d.hint } : {}), ...(d.details ? { details: d.details } : {}) };
      results[i] = { ...entry, outcome: 'failed', job_id: null, error };
    }
  }, { firstAlone: true });
  total?.finish();
  const count = (o: DownloadOutcome) => results.filter((f) => f.outcome === o).length;
  const data: DownloadTreeReport = {
    files: results,
    directories: dirs.length,
    summary: {
      files: results.length,
      done: count('done'),
      failed: count('failed'),
      not_attempted: count('not_attempted'),
      bytes_received: results.filter((f) => f.outcome === 'done').reduce((n, f) => n + f.size, 0),
    },
  };
  const firstFailure = failures.find((f) => f !== undefined);
  if (firstFailure && !ctx.globals.json) {
    const lines = results.filter((f) => f.error).map((f) => `stor: ${f.source}: ${f.error!.message}`);
    lines.push(`stor: ${data.summary.failed} of ${data.summary.files} files failed; ${data.summary.done} downloaded`);
    ctx.note(lines.join('\n'));
  }
  return { data, view: treeView(data), ...(firstFailure ? { exitCode: firstFailure.code } : {}) };
}

function treeView({ files }: DownloadTreeReport): View {
  return {
    kind: 'table',
    columns: ['source', 'target', 'outcome', 'size', 'error'],
    rows: files.map((f) => [f.source, f.target, f.outcome, f.size, f.error?.message ?? null]),
  };
}
