import { queryItems } from '../../core/contract/client.js';
import type { CommandContext } from '../shared/context.js';
import { formatMode, octal, ownerText, sizeCell } from '../shared/format.js';
import { shown, type CommandResult } from '../shared/render.js';
import { ownerNames } from './owners.js';
import { readingPath } from './missing-path.js';
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
  /** Owner's name; null when the target did not tell it (unknown uid, or accounts not readable). */
  user: string | null;
  group: string | null;
}

export async function ls(ctx: CommandContext, path: string): Promise<CommandResult<LsRow[]>> {
  const t = await ctx.transport();
  const [raw, names] = await Promise.all([
    readingPath(path, queryItems(t, 'filesystem.listdir', ['name', 'path', 'type', 'size', 'mode', 'uid', 'gid'], [], {}, [path])),
    ownerNames(t),
  ]);
  const rows = raw.map((e) => ({
    row: { name: e.name, path: e.path, type: e.type, size: e.size, mode: octal(e.mode, 6), uid: e.uid, gid: e.gid, user: names.user(e.uid), group: names.group(e.gid) },
    mode: e.mode,
  }));
  return {
    data: rows.map((r) => r.row),
    view: {
      kind: 'table',
      columns: ['mode', 'owner', 'group', { header: 'size', align: 'right' }, { header: 'name', overflow: 'wrap' }],
      rows: rows.map(({ row, mode }) => [
        shown(row.mode, formatMode(mode, row.type)),
        shown(row.uid, ownerText(row.user, row.uid)),
        shown(row.gid, ownerText(row.group, row.gid)),
        sizeCell(row.size),
        row.type === 'DIRECTORY' ? `${row.name}/` : row.name,
      ]),
      empty: `${path} is empty`,
    },
  };
}

export const lsCommand = defineCommand({
  summary: 'list a directory on the appliance',
  effect: 'read',
  fanOut: 'read',
  args: { path: arg.required('an absolute path, e.g. /mnt/tank/docs', 'remote-path') },
  examples: ['stor ls /mnt/tank', 'stor ls /mnt/tank/docs --json'],
  run: (ctx, { path }) => ls(ctx, path),
});
