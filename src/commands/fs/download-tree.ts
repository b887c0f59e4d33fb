import { lstatSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';
import type { Transport } from '../../core/transport/transport.js';
import type { CommandContext } from '../framework/context.js';
import { describeError, type DescribedError } from '../output/describe-error.js';
import { sizeCell } from '../output/format.js';
import { forEachLimited } from '../shared/pool.js';
import { TotalProgress } from '../output/progress.js';
import type { CommandResult, View } from '../output/render.js';
import { listDirectory } from '../shared/remote-listing.js';
import { notAnApplianceAnswer } from '../../core/contract/answer-error.js';
import {
  failureNote,
  fileError,
  stopsTheRest,
  transferView,
  type TransferFileError,
  type TransferOutcome,
} from '../output/transfer-report.js';
import { fileSink, interruptedBy, localWriteFailed, syncDirectory } from './local-write.js';
import { makeDirectories, replaceFile, umaskOf } from '../shared/local-file.js';
import { watchSignals, type Interruption } from '../shared/interruption.js';
import { readingPath } from './missing-path.js';

/** What happened to one file of `stor download -r`. */
export type DownloadOutcome = Exclude<TransferOutcome, 'skipped'>;

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
  error: TransferFileError | null;
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

/**
 * The longest path a Linux appliance can name: PATH_MAX, 4096 bytes with the closing NUL
 * (linux/limits.h). A listing that leads deeper comes from no real directory tree (it is
 * endless, or a loop) and is refused before its paths grow without bound.
 */
const MAX_REMOTE_PATH_BYTES = 4095;

/**
 * Directories and files one `download -r` mirrors at most: the whole list is held (and checked
 * locally) before the first byte moves, so it is bounded; a larger tree goes in parts.
 */
export const MAX_TREE_ENTRIES = 100_000;

/** The remote tree, one listdir per directory; symbolic links and other non-files said and left out. */
async function walkRemote(
  t: Transport,
  root: string,
  local: string,
  note: (line: string) => void,
): Promise<{ dirs: string[]; files: RemoteFile[] }> {
  const dirs: string[] = [];
  const files: RemoteFile[] = [];
  let count = 0;
  const walk = async (remote: string, here: string) => {
    if (Buffer.byteLength(remote) > MAX_REMOTE_PATH_BYTES) {
      throw notAnApplianceAnswer(
        'filesystem.listdir',
        `the appliance listed directories down to ${remote.slice(0, 120)}…, a path longer than the ${MAX_REMOTE_PATH_BYTES + 1} bytes (PATH_MAX) any appliance path has`,
      );
    }
    dirs.push(here);
    // The root missing is NOT_FOUND, as `ls` says it; a directory gone during the walk stays the appliance's error.
    const listing = remote === root ? readingPath(root, listDirectory(t, remote)) : listDirectory(t, remote);
    const entries = [...(await listing).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    count += entries.length;
    if (count > MAX_TREE_ENTRIES) {
      throw new StorError(
        E.TREE_TOO_LARGE,
        `${root} holds more than ${MAX_TREE_ENTRIES.toLocaleString('en-US')} files and directories; stor mirrors at most that many in one run (nothing was written)`,
        {
          hint: 'download its subdirectories one at a time',
        },
      );
    }
    for (const [name, entry] of entries) {
      if (entry.type === 'DIRECTORY') await walk(`${remote}/${name}`, join(here, name));
      else if (entry.type === 'FILE')
        files.push({ source: `${remote}/${name}`, target: join(here, name), size: entry.size });
      else note(`stor: skipped ${remote}/${name}: a ${entry.type.toLowerCase()}, not a file or directory`);
    }
  };
  await walk(root, local);
  return { dirs, files };
}

/**
 * Everything the download would write, checked before it starts (as `cp` checks): a local file
 * where a remote directory goes, a local directory where a remote file goes, and, unless
 * `force`, a local file it would replace.
 */
function checkLocal(
  dirs: readonly string[],
  files: readonly RemoteFile[],
  force: boolean,
  shown: (path: string) => string,
): void {
  for (const dir of dirs) {
    if (statSync(dir, { throwIfNoEntry: false })?.isDirectory() === false) {
      throw new StorError(
        E.LOCAL_FILE_EXISTS,
        `${shown(dir)} exists and is not a directory; a remote directory goes there`,
        { hint: 'move it away, or download into another local directory' },
      );
    }
  }
  const existing: string[] = [];
  for (const file of files) {
    const st = lstatSync(file.target, { throwIfNoEntry: false });
    if (st?.isDirectory()) {
      throw new StorError(
        E.LOCAL_FILE_EXISTS,
        `${shown(file.target)} is a directory; the remote file ${file.source} goes there`,
        { hint: 'move it away, or download into another local directory' },
      );
    }
    if (st) existing.push(shown(file.target));
  }
  if (existing.length > 0 && !force) {
    const more = existing.length > 1 ? ` (and ${existing.length - 1} more)` : '';
    throw new StorError(E.LOCAL_FILE_EXISTS, `${existing[0]} exists${more}`, {
      hint: 'add --force to replace them, or download into another local directory',
    });
  }
}

/**
 * `stor download -r REMOTE_DIR LOCAL_DIR`: LOCAL_DIR becomes a copy of REMOTE_DIR (made if
 * missing; files already there are refused, or replaced with `force`). Each file is written to a
 * temporary name beside it, flushed to disk and renamed when its bytes are all there and match
 * the listed size, so an interrupted run leaves no half files under real names. Up to `parallel`
 * files at once. SIGINT/SIGTERM stop the files in flight (their temporary files removed), leave
 * the rest not attempted, and end the command as INTERRUPTED or TERMINATED with the report.
 */
export async function downloadTree(
  ctx: CommandContext,
  remote: string,
  local: string,
  opts: { parallel: number; force: boolean },
): Promise<CommandResult<DownloadTreeReport>> {
  const root = remote.replace(/\/+$/, '') || '/';
  const localRoot = resolve(ctx.io.cwd, local);
  if (statSync(localRoot, { throwIfNoEntry: false })?.isDirectory() === false)
    throw new StorError(E.TARGET_NOT_A_DIRECTORY, `${local} exists and is not a directory`);
  const t = await ctx.transport();
  const { dirs, files } = await walkRemote(t, root, localRoot, (line) => ctx.warn(line));
  const shown = (path: string) => join(local, path.slice(localRoot.length));
  checkLocal(dirs, files, opts.force, shown);
  const umask = umaskOf(ctx.io);
  for (const dir of dirs) {
    try {
      makeDirectories(dir, umask);
    } catch (err) {
      throw localWriteFailed(shown(dir), err);
    }
  }
  const showProgress = ctx.progress;
  const total =
    showProgress && files.length > 0
      ? new TotalProgress(
          ctx.io.stderr,
          'downloaded',
          files.length,
          files.reduce((n, f) => n + f.size, 0),
        )
      : undefined;

  const results: DownloadFileResult[] = new Array(files.length);
  const failures: (DescribedError | undefined)[] = new Array(files.length);
  let stopped = false;
  const watch = watchSignals(ctx);
  try {
    await forEachLimited(
      files,
      opts.parallel,
      async (file, i) => {
        const entry = { source: file.source, target: shown(file.target), size: file.size };
        if (stopped || watch.signal) {
          results[i] = { ...entry, outcome: 'not_attempted', job_id: null, error: null };
          return;
        }
        try {
          const jobId = await downloadOne(t, file, i, umask, watch, total);
          results[i] = { ...entry, outcome: 'done', job_id: jobId, error: null };
          total?.fileDone(i, file.size);
        } catch (err) {
          total?.fileFailed(i);
          const d = describeError(watch.signal ? interruptedBy(watch.signal, entry.target) : err);
          failures[i] = d;
          if (stopsTheRest(d)) stopped = true;
          results[i] = { ...entry, outcome: 'failed', job_id: null, error: fileError(d) };
        }
      },
      { firstAlone: true },
    );
  } finally {
    watch.stop();
  }
  total?.finish();
  const landedIn = new Set(
    results.filter((f) => f.outcome === 'done').map((f) => dirname(resolve(ctx.io.cwd, f.target))),
  );
  for (const dir of landedIn) await syncDirectory(dir);
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
  // A signal that stopped something ends the command as the signal says, whatever failed before it.
  const interrupted = watch.signal !== undefined && data.summary.done < data.summary.files;
  const ending = interrupted
    ? describeError(interruptedBy(watch.signal!, local))
    : failures.find((f) => f !== undefined);
  if (ending)
    for (const line of failureNote(data.files, data.summary, `${data.summary.done} downloaded`)) ctx.note(line);
  return { data, view: treeView(data, ctx.io.stdout.isTTY === true), ...(ending ? { exitCode: ending.code } : {}) };
}

/** One file into a temporary name beside its target, flushed, checked, renamed; on failure the temporary file goes. */
async function downloadOne(
  t: Transport,
  file: RemoteFile,
  i: number,
  umask: number,
  watch: Interruption,
  total: TotalProgress | undefined,
): Promise<number> {
  // replaceFile's own random name beside the target: never one made of the pid, which every
  // command the session agent runs at once shares (two `download -r` into one directory).
  return replaceFile(file.target, umask, async (handle) => {
    const sink = fileSink(handle, file.target);
    const untrack = watch.track(sink);
    try {
      const { jobId, bytes } = await t.download({
        path: file.source,
        sink,
        size: file.size,
        ...(total ? { onProgress: (n: number) => total.progress(i, n) } : {}),
      });
      if (watch.signal) throw interruptedBy(watch.signal, file.target);
      if (bytes !== file.size)
        throw new StorError(
          E.DOWNLOAD_SIZE_MISMATCH,
          `${file.source} gave ${bytes} bytes; its listing says ${file.size}`,
        );
      return jobId;
    } finally {
      untrack();
    }
  });
}

function treeView({ files, summary }: DownloadTreeReport, tty: boolean): View {
  return transferView(files, summary.failed, tty, {
    columns: [{ header: 'size', align: 'right' }],
    cells: (f) => [sizeCell(f.size)],
  });
}
