import { statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { call } from '../../core/contract/client.js';
import type { ResultOf } from '../../core/contract/index.js';
import { RpcError, StorError } from '../../core/errors.js';
import type { Transport } from '../../core/transport/transport.js';
import type { CommandContext } from '../shared/context.js';
import { shown, type CommandResult } from '../shared/render.js';
import { explainForbidden } from './forbidden.js';
import { formatMode, octal, sizeCell } from '../shared/format.js';
import { parseMode } from '../shared/mode.js';
import { ProgressBar } from '../shared/progress.js';

export interface UploadOptions {
  mode?: string;
  append?: boolean;
}

/** One uploaded file in `stor upload --json` (the command prints an array). */
export interface UploadResult {
  /** Local path as given. */
  source: string;
  /** Where it landed on the appliance. */
  target: string;
  /** Bytes sent. */
  bytes: number;
  /** Size of the target after the upload, as `filesystem.stat` reports it (checked). */
  size: number;
  /** Permission bits of the target, octal, e.g. `0644`. */
  mode: string;
  owner: string | null;
  job_id: number;
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
      throw new StorError('usage', 'LOCAL_FILE_MISSING', `no such local file: ${f}`);
    }
    if (!st.isFile()) throw new StorError('usage', 'LOCAL_NOT_A_FILE', `not a regular file: ${f}`);
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
    throw new StorError('usage', 'TARGET_NOT_A_DIRECTORY', `several files go to a directory; ${target} is ${st ? 'a file' : 'missing'}`, {
      hint: `end the target with / to create it: ${target}/`,
    });
  }
  return [target];
}

/** `stor upload <file…> <target>` */
export async function upload(ctx: CommandContext, args: string[], options: UploadOptions): Promise<CommandResult<UploadResult[]>> {
  if (args.length < 2) throw new StorError('usage', 'MISSING_TARGET', 'give one or more local files and a target path on the appliance');
  const target = args.at(-1)!;
  const sources = args.slice(0, -1);
  // Everything that can be checked locally is, before any request.
  const mode = options.mode === undefined ? undefined : parseMode(options.mode);
  if (mode?.warning) ctx.note(`stor: warning: ${mode.warning}`);
  const files = localFiles(ctx, sources);
  const t = await ctx.transport();
  const targets = await destinations(t, target, files.map((f) => basename(f.path)));
  const showProgress = ctx.io.stderr.isTTY === true && !ctx.globals.json && !ctx.globals.quiet;
  const bar = showProgress ? new ProgressBar(ctx.io.stderr, { files: files.length, bytes: files.reduce((n, f) => n + f.size, 0) }) : undefined;

  const results: UploadResult[] = [];
  for (const [i, file] of files.entries()) {
    const path = targets[i]!;
    const before = options.append ? await statOrNull(t, path) : null;
    bar?.start(basename(file.path), file.size);
    let jobId: number;
    try {
      ({ jobId } = await t.upload({
        file: file.path,
        size: file.size,
        path,
        options: { ...(mode ? { mode: mode.mode } : {}), ...(options.append ? { append: true } : {}) },
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
      throw new StorError('failed', 'SIZE_MISMATCH', `${path} has ${after.size} bytes after the upload; expected ${expected}`);
    }
    results.push({ source: sources[i]!, target: path, bytes: file.size, size: after.size, mode: octal(after.mode & 0o7777), owner: after.user ?? null, job_id: jobId });
  }
  return {
    data: results,
    view: {
      kind: 'table',
      columns: [{ header: 'source', overflow: 'middle' }, { header: 'target', overflow: 'middle' }, { header: 'size', align: 'right' }, 'mode', 'owner'],
      rows: results.map((r) => [r.source, r.target, sizeCell(r.size), shown(r.mode, formatMode(parseInt(r.mode, 8), 'FILE')), r.owner]),
    },
  };
}
