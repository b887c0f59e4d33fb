import { call, queryItems } from '../../core/contract/client.js';
import { RpcError } from '../../core/errors.js';
import type { CommandContext } from '../framework/context.js';
import { formatMode, octal, ownerText, sizeCell } from '../output/format.js';
import { shown, tableResult, type CommandResult } from '../output/render.js';
import { ownerNames, type OwnerNames } from './owners.js';
import { readingPath } from './missing-path.js';
import type { Transport } from '../../core/transport/transport.js';
import { arg, defineCommand } from '../framework/declare.js';

/** One row of `stor ls --json`. */
export interface LsRow {
  name: string;
  path: string;
  /** `DIRECTORY`, `FILE`, `SYMLINK` or `OTHER`. */
  type: string;
  size: number;
  /** Permission bits in octal, four digits, as chmod takes them and every command prints them: `0644`. */
  mode: string;
  /** The full st_mode as 25.10.1 answers it (type bits included), e.g. 33188. */
  st_mode: number;
  uid: number;
  gid: number;
  /** Owner's name; null when the target did not tell it (unknown uid, or accounts not readable). */
  user: string | null;
  group: string | null;
}

/**
 * `stor ls PATH`. Owners by name as `stor stat` shows them (docs/COMMANDS.md "Commands", One format per
 * value): from user.query/group.query, and for an id those do not list (the system's own
 * groups, root's gid 0 among them) from `filesystem.stat` of an entry that has it, which names
 * it as the appliance's getpwuid/getgrgid does (MW/plugins/filesystem.py stat).
 */
export async function ls(ctx: CommandContext, path: string): Promise<CommandResult<LsRow[]>> {
  const t = await ctx.transport();
  const [raw, names] = await Promise.all([
    readingPath(
      path,
      queryItems(t, 'filesystem.listdir', ['name', 'path', 'type', 'size', 'mode', 'uid', 'gid'], [], {}, [path]),
    ),
    ownerNames(t),
  ]);
  const statNames = await namesFromStat(t, raw, names);
  const rows = raw.map((e) => ({
    row: {
      name: e.name,
      path: e.path,
      type: e.type,
      size: e.size,
      mode: octal(e.mode & 0o7777),
      st_mode: e.mode,
      uid: e.uid,
      gid: e.gid,
      user: names.user(e.uid) ?? statNames.users.get(e.uid) ?? null,
      group: names.group(e.gid) ?? statNames.groups.get(e.gid) ?? null,
    },
    mode: e.mode,
  }));
  return tableResult(
    rows.map((r) => r.row),
    {
      columns: ['mode', 'owner', 'group', { header: 'size', align: 'right' }, { header: 'name', overflow: 'wrap' }],
      rows: rows.map(({ row, mode }) => [
        shown(row.mode, formatMode(mode, row.type)),
        ownerText(row.user, row.uid),
        ownerText(row.group, row.gid),
        sizeCell(row.size),
        row.type === 'DIRECTORY' ? `${row.name}/` : row.name,
      ]),
      empty: `${path} is empty`,
    },
  );
}

/** Most ids named by a `filesystem.stat` each: a listing of many unknown owners keeps their ids rather than a call per file. */
const STAT_NAMED_IDS = 8;

/** Names of the ids the account queries did not give, from one `filesystem.stat` per id (at most STAT_NAMED_IDS). */
async function namesFromStat(
  t: Transport,
  entries: readonly { path: string; uid: number; gid: number }[],
  names: OwnerNames,
) {
  const users = new Map<number, string>();
  const groups = new Map<number, string>();
  // One path per id not named yet; a path may stand for its owner and its group at once.
  const probes = new Set<string>();
  const wanted = new Set<string>();
  const want = (key: string, path: string) => {
    if (wanted.has(key)) return;
    wanted.add(key);
    probes.add(path);
  };
  for (const e of entries) {
    if (names.user(e.uid) === null) want(`u${e.uid}`, e.path);
    if (names.group(e.gid) === null) want(`g${e.gid}`, e.path);
  }
  await Promise.all(
    [...probes].slice(0, STAT_NAMED_IDS).map(async (path) => {
      // A file gone or unreadable since the listing keeps its id: a listing is not failed for a name.
      const st = await call(t, 'filesystem.stat', [path]).catch((err: unknown) =>
        err instanceof RpcError ? undefined : Promise.reject(err),
      );
      if (st?.user) users.set(st.uid, st.user);
      if (st?.group) groups.set(st.gid, st.group);
    }),
  );
  return { users, groups };
}

export const lsCommand = defineCommand({
  summary: 'list a directory on the appliance',
  effect: 'read',
  calls: ['filesystem.listdir', 'filesystem.stat', 'user.query', 'group.query'],
  fanOut: 'read',
  args: { path: arg.required('an absolute path, e.g. /mnt/tank/docs', 'remote-path') },
  examples: ['stor ls /mnt/tank', 'stor ls /mnt/tank/docs --json'],
  run: (ctx, { path }) => ls(ctx, path),
});
