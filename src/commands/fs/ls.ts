import { queryItems } from '../../core/contract/client.js';
import type { CommandContext } from '../shared/context.js';
import { octal } from '../shared/format.js';
import type { CommandResult } from '../shared/render.js';
import { arg, defineCommand } from '../shared/declare.js';

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

export const lsCommand = defineCommand({
  summary: 'list a directory on the appliance',
  args: { path: arg.required('an absolute path, e.g. /mnt/tank/docs', 'remote-path') },
  examples: ['stor ls /mnt/tank', 'stor ls /mnt/tank/docs --json'],
  run: (ctx, { path }) => ls(ctx, path),
});
