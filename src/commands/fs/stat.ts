import { call } from '../../core/contract/client.js';
import type { CommandContext } from '../framework/context.js';
import { formatMode, formatTime, octal, ownerText, sizeCell } from '../output/format.js';
import { type CommandResult, recordResult, shown } from '../output/render.js';
import type { LsRow } from './ls.js';
import { readingPath } from './missing-path.js';
import { arg, defineCommand } from '../framework/declare.js';

/** `stor stat --json`. */
export interface StatResult extends Omit<LsRow, 'name'> {
  /** Null when the appliance did not report it. */
  realpath: string | null;
  /** ISO 8601. */
  mtime: string;
  is_mountpoint: boolean | null;
}

export async function stat(ctx: CommandContext, path: string): Promise<CommandResult<StatResult>> {
  const t = await ctx.transport();
  const s = await readingPath(path, call(t, 'filesystem.stat', [path]));
  const data: StatResult = {
    path,
    realpath: s.realpath ?? null,
    type: s.type,
    size: s.size,
    mode: octal(s.mode & 0o7777),
    st_mode: s.mode,
    uid: s.uid,
    gid: s.gid,
    user: s.user ?? null,
    group: s.group ?? null,
    mtime: new Date(s.mtime * 1000).toISOString(),
    is_mountpoint: s.is_mountpoint ?? null,
  };
  return recordResult(data, {
    fields: [
      ['path', data.path],
      ['type', data.type],
      ['size', sizeCell(data.size)],
      ['mode', shown(data.mode, formatMode(s.mode, s.type))],
      ['owner', ownerText(data.user, data.uid)],
      ['group', ownerText(data.group, data.gid)],
      ['modified', shown(data.mtime, formatTime(new Date(s.mtime * 1000), ctx.io.env.TZ))],
    ],
  });
}

export const statCommand = defineCommand({
  summary: 'show the attributes of a path on the appliance',
  effect: 'read',
  calls: ['filesystem.stat'],
  fanOut: 'read',
  args: { path: arg.required('an absolute path, e.g. /mnt/tank/docs/report.pdf', 'remote-path') },
  examples: ['stor stat /mnt/tank/docs/report.pdf', 'stor stat /mnt/tank --json'],
  run: (ctx, { path }) => stat(ctx, path),
});
