import { call, queryItems } from '../../core/contract/client.js';
import type { CommandContext } from '../shared/context.js';
import type { CommandResult } from '../shared/render.js';
import { octal } from '../upload/mode.js';

/** One row of `stor ls --json`. */
export interface LsRow {
  name: string;
  path: string;
  /** `DIRECTORY`, `FILE`, `SYMLINK` or `OTHER`. */
  type: string;
  size: number;
  /** Full st_mode in octal, e.g. `100644`. */
  mode: string;
  uid: number;
  gid: number;
}

/** `stor stat --json`. */
export interface StatResult {
  path: string;
  /** Null when the appliance did not report it. */
  realpath: string | null;
  type: LsRow['type'];
  size: number;
  mode: string;
  uid: number;
  gid: number;
  user: string | null;
  group: string | null;
  /** ISO 8601. */
  mtime: string;
  is_mountpoint: boolean | null;
}

export async function ls(ctx: CommandContext, path: string): Promise<CommandResult<LsRow[]>> {
  const t = await ctx.transport();
  const raw = await queryItems(t, 'filesystem.listdir', ['name', 'path', 'type', 'size', 'mode', 'uid', 'gid'], [], {}, [path]);
  const data = raw.map((e) => ({ name: e.name, path: e.path, type: e.type, size: e.size, mode: octal(e.mode, 6), uid: e.uid, gid: e.gid }));
  return {
    data,
    view: {
      kind: 'table',
      columns: ['mode', 'uid', 'gid', 'size', 'name'],
      rows: data.map((e) => [e.mode, e.uid, e.gid, e.size, e.type === 'DIRECTORY' ? `${e.name}/` : e.name]),
      empty: `${path} is empty`,
    },
  };
}

export async function stat(ctx: CommandContext, path: string): Promise<CommandResult<StatResult>> {
  const t = await ctx.transport();
  const s = await call(t, 'filesystem.stat', [path]);
  const data: StatResult = {
    path,
    realpath: s.realpath ?? null,
    type: s.type,
    size: s.size,
    mode: octal(s.mode, 6),
    uid: s.uid,
    gid: s.gid,
    user: s.user ?? null,
    group: s.group ?? null,
    mtime: new Date(s.mtime * 1000).toISOString(),
    is_mountpoint: s.is_mountpoint ?? null,
  };
  return {
    data,
    view: {
      kind: 'record',
      fields: [
        ['path', data.path],
        ['type', data.type],
        ['size', data.size],
        ['mode', data.mode],
        ['owner', `${data.user ?? '?'} (${data.uid})`],
        ['group', `${data.group ?? '?'} (${data.gid})`],
        ['modified', data.mtime],
      ],
    },
  };
}
