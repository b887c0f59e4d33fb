import { lstatSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { call } from '../../core/contract/client.js';
import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import type { Transport } from '../../core/transport/transport.js';
import type { CommandContext } from '../framework/context.js';
import { positiveInt } from '../framework/arg-parsers.js';
import { arg, defineCommand, flag, value, type OptionValues } from '../framework/declare.js';
import { downloadTree, type DownloadTreeReport } from './download-tree.js';
import { fileSink, interruptedBy, syncDirectory } from './local-write.js';
import { watchSignals, type Interruption } from '../shared/interruption.js';
import type { OutputStream } from '../output/io.js';
import { localWriteFailed, makeDirectories, replaceFile, umaskOf } from '../shared/local-file.js';
import { ProgressBar } from '../output/progress.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { readingPath } from './missing-path.js';

const options = {
  force: flag('replace LOCAL when it exists', { short: 'f' }),
  recursive: flag('mirror a remote directory and everything under it into LOCAL (made if missing)', { short: 'r' }),
  parallel: value('<n>', 'with -r: transfers at once', { parse: positiveInt('--parallel'), default: 4 }),
};

type DownloadOptions = OptionValues<typeof options>;

/** `stor download --json`. */
export interface DownloadResult {
  /** The file on the appliance. */
  source: string;
  /** The local file written (absolute). */
  target: string;
  /** Bytes received; equal to the size `filesystem.stat` reported before the download (checked). */
  bytes: number;
  /** Whether an existing local file was replaced (`--force`). */
  replaced: boolean;
  job_id: number;
}

/**
 * Where the file goes: `local` itself, or the remote basename inside it when it is a directory
 * (an existing one, or any path ending in /); the basename in the working directory by default.
 * Checked before any request, as `cp` does.
 */
function destination(
  cwd: string,
  local: string | undefined,
  name: string,
  force: boolean,
): { path: string; exists: boolean } {
  let path = resolve(cwd, local ?? name);
  const isDir = (p: string) => statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
  if (local !== undefined && (local.endsWith('/') || isDir(path))) path = join(path, name);
  const existing = lstatSync(path, { throwIfNoEntry: false });
  if (existing?.isDirectory())
    throw new StorError(E.LOCAL_FILE_EXISTS, `${path} is a directory`, {
      hint: 'name a file to write, or a directory to write into',
    });
  if (existing && !force)
    throw new StorError(E.LOCAL_FILE_EXISTS, `${path} exists`, {
      hint: 'add --force to replace it, or name another LOCAL',
    });
  return { path, exists: existing !== undefined };
}

/** A sink into stdout that waits when a slow reader makes it push back, and leaves it open. */
function stdoutSink(out: OutputStream): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (out.write(chunk) === false && out.once) out.once('drain', () => done());
      else done();
    },
  });
}

/** Runs one download into `sink` and checks the byte count; a signal ends it as INTERRUPTED or TERMINATED. */
async function transfer(
  t: Transport,
  remote: string,
  size: number,
  sink: Writable,
  watch: Interruption,
  bar: ProgressBar | undefined,
  what: string,
) {
  const untrack = watch.track(sink);
  try {
    if (watch.signal) throw interruptedBy(watch.signal, what);
    const done = await t.download({
      path: remote,
      sink,
      size,
      ...(bar ? { onProgress: (n: number) => bar.update(n) } : {}),
    });
    if (watch.signal) throw interruptedBy(watch.signal, what);
    if (done.bytes !== size) {
      throw new StorError(
        E.DOWNLOAD_SIZE_MISMATCH,
        `${remote} gave ${done.bytes} bytes; the appliance reported ${size}`,
        { hint: 'it may have changed meanwhile: download it again' },
      );
    }
    bar?.finish();
    return done;
  } catch (err) {
    bar?.clear();
    if (watch.signal) throw interruptedBy(watch.signal, what);
    throw err;
  } finally {
    untrack();
  }
}

/**
 * `stor download REMOTE [LOCAL|-]`: streamed into a temporary file beside LOCAL, flushed to
 * disk, checked against the size `filesystem.stat` reported, then renamed over LOCAL; a failed
 * or interrupted download leaves LOCAL as it was and no temporary file. `-` streams to stdout.
 */
export async function download(
  ctx: CommandContext,
  remote: string,
  local: string | undefined,
  opts: DownloadOptions,
): Promise<CommandResult<DownloadResult>> {
  const toStdout = local === '-';
  if (toStdout && ctx.globals.json) {
    throw new StorError(E.USAGE, 'with - the file goes to stdout, where --json would go too', {
      hint: 'download to a local file to get the --json report',
    });
  }
  const name = remote.split('/').filter(Boolean).at(-1);
  if (name === undefined || !remote.startsWith('/'))
    throw new StorError(
      E.USAGE,
      `REMOTE must be the absolute path of a file on the appliance, not ${JSON.stringify(remote)}`,
    );
  const dest = toStdout ? undefined : destination(ctx.io.cwd, local, name, opts.force === true);

  const t = await ctx.transport();
  const st = await readingPath(remote, call(t, 'filesystem.stat', [remote]));
  if (st.type !== 'FILE') {
    throw new StorError(
      E.REMOTE_NOT_A_FILE,
      `${remote} is ${st.type === 'DIRECTORY' ? 'a directory' : `not a regular file (${st.type})`}`,
      {
        hint:
          st.type === 'DIRECTORY'
            ? `add -r to copy the tree: stor download -r ${remote} LOCAL_DIR`
            : '`stor ls` shows what is in a directory',
      },
    );
  }
  const progressTo = ctx.progress && !(toStdout && ctx.io.stdout.isTTY === true);
  const bar = progressTo ? new ProgressBar(ctx.io.stderr, { files: 1, bytes: st.size }) : undefined;
  bar?.start(name, st.size);

  const watch = watchSignals(ctx);
  try {
    if (!dest) {
      const done = await transfer(t, remote, st.size, stdoutSink(ctx.io.stdout), watch, bar, '-');
      const data: DownloadResult = {
        source: remote,
        target: '-',
        bytes: done.bytes,
        replaced: false,
        job_id: done.jobId,
      };
      return { data, view: { kind: 'json' }, streamed: true };
    }
    return await toFile(t, remote, st.size, dest, umaskOf(ctx.io), watch, bar);
  } finally {
    watch.stop();
  }
}

/** Into a temporary file beside the destination, flushed, then renamed over it (replaceFile); on failure the temporary file goes. */
async function toFile(
  t: Transport,
  remote: string,
  size: number,
  dest: { path: string; exists: boolean },
  umask: number,
  watch: Interruption,
  bar: ProgressBar | undefined,
): Promise<CommandResult<DownloadResult>> {
  // Missing directories are made, as `download -r` and `upload` make theirs, under the caller's
  // umask; only now that the remote file is known to be there.
  try {
    makeDirectories(dirname(dest.path), umask);
  } catch (err) {
    throw localWriteFailed(dest.path, err);
  }
  const done = await replaceFile(dest.path, umask, (handle) =>
    transfer(t, remote, size, fileSink(handle, dest.path), watch, bar, dest.path),
  );
  await syncDirectory(dirname(dest.path));
  const data: DownloadResult = {
    source: remote,
    target: dest.path,
    bytes: done.bytes,
    replaced: dest.exists,
    job_id: done.jobId,
  };
  return recordResult(data, {
    fields: [
      ['source', data.source],
      ['target', data.target],
      ['bytes', data.bytes],
      ['replaced', data.replaced],
    ],
  });
}

export const downloadCommand = defineCommand({
  summary:
    'download a file (or with -r a directory tree) from the appliance: streamed, written atomically, size checked',
  effect: 'read',
  calls: ['filesystem.get', 'filesystem.stat', 'filesystem.listdir'],
  args: {
    remote: arg.required('the file on the appliance, e.g. /mnt/tank/docs/report.pdf', 'remote-path'),
    local: arg.optional(
      'where to write it: a file, a directory (the file keeps its name), or - for stdout; default: its name in the current directory',
      'file',
    ),
  },
  options,
  examples: [
    'stor download /mnt/tank/docs/report.pdf',
    'stor download /mnt/tank/docs/report.pdf ./backup/ --force',
    'stor download /mnt/tank/logs/app.log - | tail',
    'stor download -r /mnt/tank/www ./www-copy --parallel 8',
  ],
  notes: 'On 25.10.1 only FULL_ADMIN holders may download (filesystem.get is FULL_ADMIN only).',
  run: (ctx, { remote, local }, opts): Promise<CommandResult<DownloadResult | DownloadTreeReport>> => {
    if (!opts.recursive) return download(ctx, remote, local, opts);
    if (local === '-')
      throw new StorError(E.USAGE, 'a tree cannot go to standard output: give a local directory with -r');
    // As `cp -r DIR` into the current directory: the tree keeps its name.
    return downloadTree(ctx, remote, local ?? basename(remote.replace(/\/+$/, '')), {
      parallel: opts.parallel,
      force: opts.force === true,
    });
  },
});
