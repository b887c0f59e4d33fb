import { call } from '../../core/contract/client.js';
import type { ParamsOf } from '../../core/contract/index.js';
import type { Transport } from '../../core/transport/transport.js';
import type { CommandContext } from '../framework/context.js';
import { flag } from '../framework/declare.js';
import { octal } from '../output/format.js';
import { runJob } from '../shared/job.js';
import { readingPath } from './missing-path.js';
import type { CommandResult } from '../output/render.js';

/** The recursion options `filesystem.setperm` and `filesystem.chown` share (FilesystemRecursionOptions). */
export const recursionOptions = {
  recursive: flag('also everything below PATH (not into child datasets unless --traverse; never through symlinks)', {
    short: 'R',
  }),
  traverse: flag('with -R, also descend into child datasets'),
};

/** `stor chmod --json` and `stor chown --json`: the path as `filesystem.stat` reads it after the job. */
export interface PermResult {
  path: string;
  /** Permission bits, octal, e.g. `0750`. */
  mode: string;
  user: string | null;
  group: string | null;
  uid: number;
  gid: number;
  recursive: boolean;
  /** The appliance job that did it; null when the connection waited for the job itself. */
  job_id: number | null;
}

/** Reads `path` back after the job, so what is shown is what the appliance now has. */
export async function readBack(
  t: Transport,
  path: string,
  recursive: boolean,
  jobId: number | null,
): Promise<PermResult> {
  const st = await call(t, 'filesystem.stat', [path]);
  return {
    path,
    mode: octal(st.mode & 0o7777),
    user: st.user,
    group: st.group,
    uid: st.uid,
    gid: st.gid,
    recursive,
    job_id: jobId,
  };
}

/** chmod's and chown's change: the job, waited for, then `path` as it now is. */
export async function changePermissions<M extends 'filesystem.setperm' | 'filesystem.chown'>(
  ctx: CommandContext,
  method: M,
  params: ParamsOf<M>,
  { path, recursive, label }: { path: string; recursive: boolean; label: string },
): Promise<CommandResult<PermResult>> {
  const t = await ctx.transport();
  // The job first stats the path (MW/plugins/filesystem_/acl.py:89-96, _common_perm_path_validate):
  // its ENOENT is PATH missing, said as `stat` says it.
  const jobId = await readingPath(path, runJob(ctx, t, method, params, label));
  const data = await readBack(t, path, recursive, jobId);
  return { data, view: permView(data) };
}

export function permView(r: PermResult) {
  return {
    kind: 'record' as const,
    fields: [
      ['path', r.path],
      ['mode', r.mode],
      ['owner', `${r.user ?? '?'} (${r.uid})`],
      ['group', `${r.group ?? '?'} (${r.gid})`],
      ['recursive', r.recursive],
    ] as [string, string | boolean][],
  };
}
