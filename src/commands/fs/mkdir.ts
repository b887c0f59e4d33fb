import { call } from '../../core/contract/client.js';
import { E } from '../../core/error-catalogue.js';
import { ERRNO, StorError } from '../../core/errors.js';
import { isErrno, isMissingPath, parentOf } from './missing-path.js';
import type { Transport } from '../../core/transport/transport.js';
import type { CommandContext } from '../framework/context.js';
import { arg, defineCommand, flag, value, type OptionValues } from '../framework/declare.js';
import { octal } from '../output/format.js';
import { parseMode } from '../shared/mode.js';
import { type CommandResult, tableResult } from '../output/render.js';

const options = {
  parents: flag('make missing parents too, and accept a directory that exists (as mkdir -p)', { short: 'p' }),
  mode: value('<bits>', 'permission bits of the new directory, decimal (493) or octal (0755); default 0755'),
};

type MkdirOptions = OptionValues<typeof options>;

/** One directory of `stor mkdir --json`. */
export interface MkdirEntry {
  path: string;
  /** False when `-p` found it there already (left as it is). */
  created: boolean;
  /** Permission bits, octal, e.g. `0755`. */
  mode: string;
}

/** `stor mkdir --json`: every directory named or made on the way, parents first. */
export interface MkdirResult {
  directories: MkdirEntry[];
}

/**
 * `mkdir -p` over `filesystem.mkdir`, which makes one directory whose parent exists: try it,
 * make the parent first when it is missing, and accept a directory that is there already
 * (also one another client made meanwhile). Parents get the appliance's default mode.
 */
async function makeWithParents(
  t: Transport,
  path: string,
  mode: string | undefined,
  made: MkdirEntry[],
  parentMade = false,
): Promise<void> {
  try {
    const entry = await call(t, 'filesystem.mkdir', [{ path, ...(mode ? { options: { mode } } : {}) }]);
    made.push({ path, created: true, mode: octal(entry.mode & 0o7777) });
    return;
  } catch (err) {
    const parent = parentOf(path);
    // Once the parent is there, a missing parent again (a pool that is not there) is the answer.
    if (isMissingPath(err) && !parentMade && parent !== '' && parent !== path) {
      await makeWithParents(t, parent, undefined, made);
      return makeWithParents(t, path, mode, made, true);
    }
    if (!isErrno(err, ERRNO.EEXIST)) throw err;
    const st = await call(t, 'filesystem.stat', [path]);
    if (st.type !== 'DIRECTORY') throw err;
    made.push({ path, created: false, mode: octal(st.mode & 0o7777) });
  }
}

/**
 * -p makes parents below a directory that is there; above every pool (`/mnt/other/x`, with no
 * pool `other`) there is none, and -p would fail too: then the hint says where directories go.
 */
async function missingParentHint(t: Transport, path: string): Promise<string> {
  let dir = parentOf(path.replace(/(.)\/+$/, '$1'));
  while (dir !== '' && dir !== '/mnt') {
    const st = await call(t, 'filesystem.stat', [dir]).catch(() => undefined);
    if (st)
      return st.type === 'DIRECTORY'
        ? `\`stor mkdir -p ${path}\` makes the missing parents too`
        : `${dir} is not a directory`;
    dir = parentOf(dir);
  }
  return `${path} is in no pool: directories go below a dataset's mountpoint (\`stor dataset list\` shows them)`;
}

/** `stor mkdir [-p] PATH…`: in order; the first failure stops it, as the appliance reported it. */
export async function mkdir(
  ctx: CommandContext,
  paths: string[],
  opts: MkdirOptions,
): Promise<CommandResult<MkdirResult>> {
  // filesystem.mkdir takes the mode as an octal string (UnixPerm).
  const mode = opts.mode === undefined ? undefined : parseMode(opts.mode).mode.toString(8);
  const t = await ctx.transport();
  const directories: MkdirEntry[] = [];
  for (const path of paths) {
    if (opts.parents) {
      await makeWithParents(t, path.replace(/(.)\/+$/, '$1'), mode, directories);
      continue;
    }
    const entry = await call(t, 'filesystem.mkdir', [{ path, ...(mode ? { options: { mode } } : {}) }]).catch(
      async (err: unknown) => {
        // The appliance names the directory it could not make (`[Errno 2] No such file or directory:
        // '/mnt/tank/projects/2025'`); what is missing is its parent, which -p would make.
        if (!isMissingPath(err)) throw err;
        const parent = parentOf(path.replace(/(.)\/+$/, '$1'));
        throw new StorError(E.NOT_FOUND, `cannot make ${path}: its parent ${parent} does not exist`, {
          hint: await missingParentHint(t, path),
        });
      },
    );
    directories.push({ path, created: true, mode: octal(entry.mode & 0o7777) });
  }
  const data: MkdirResult = { directories };
  return tableResult(data, {
    columns: ['path', 'created', 'mode'],
    rows: directories.map((d) => [d.path, d.created, d.mode]),
  });
}

export const mkdirCommand = defineCommand({
  summary: 'make directories on the appliance',
  effect: 'change',
  calls: ['filesystem.mkdir', 'filesystem.stat'],
  args: { paths: arg.variadic('absolute paths of the directories, e.g. /mnt/tank/docs', true, 'remote-path') },
  options,
  examples: ['stor mkdir /mnt/tank/docs', 'stor mkdir -p /mnt/tank/projects/2025/q3 --mode 0750'],
  notes: 'New directories are owned by root (the appliance makes them); `stor chown` changes that.',
  fanOut: 'change',
  run: (ctx, { paths }, opts) => mkdir(ctx, paths, opts),
});
