import * as nodeModule from 'node:module';
import { join } from 'node:path';
import { endWhenOutputFails } from './output-errors.js';
import type { CommandLine } from './commands/framework/command-line.js';

type CompileCache = { enableCompileCache?: (dir: string) => unknown };

/**
 * How long the CLI's loading waits for a head start's login to be written: a connect, an upgrade
 * and one call take three round trips, well within this on any LAN or WAN link. Past it (a host
 * that does not answer) the CLI loads as if it had not waited.
 */
const LOGIN_WAIT_CAP_MS = 500;

/**
 * What bin/stor.js runs (through start.ts) when the command runs in this process: the one place
 * run()'s exit code becomes the process's (`process.exitCode`; a command handed to the agent gets
 * its code from src/first-stage.ts instead). The process then ends when its work is done;
 * `process.exit()` below only cuts short a wait for work the command abandoned, with that code.
 * Besides, output-errors.ts ends it when stdout or stderr fails (docs/ARCHITECTURE.md, "Who ends
 * the process"). `--version` alone was answered before this bundle loaded (start.ts). `line`: the
 * command line as the first stage read it (command-line.ts), the one reading of it in this process.
 */
export async function main(line: CommandLine): Promise<void> {
  // The CLI itself runs from the code-cached bundle (start.ts); Node ≥ 22.1 also keeps the compiled
  // code of what it loads from outside it (better-sqlite3's JavaScript). Node 20 has no such cache.
  // A cache that cannot be written is skipped by Node, not an error.
  const { enableCompileCache } = nodeModule as CompileCache;
  if (enableCompileCache) {
    const { cacheDirFrom, madeInOthersDir, othersInHome } = await import('./core/config/paths.js');
    const compileCache = join(cacheDirFrom(process.env), 'compile-cache');
    // Not in another user's home (root with their HOME), nor made in another user's directory:
    // Node would make it there, ours. A path that cannot be looked at (a directory on the way this
    // user may not search: lstat's EACCES) has no cache either, as one Node could not write.
    let ours = false;
    try {
      ours = othersInHome(compileCache, process.env) === undefined && !madeInOthersDir(compileCache);
    } catch {
      // not ours to write
    }
    if (ours) enableCompileCache(compileCache);
  }
  const io = (await import('./commands/output/io.js')).processIO();
  // Connecting and logging in (the key's slow hash check) overlap with loading the CLI.
  const headStart = await (await import('./commands/startup/early-target.js')).startEarlyTarget(line, io);
  // Loading the CLI holds the event loop (~30 ms of CPU, during which no answer is read): started
  // at the connect, it held the upgrade's answer, `auth.mechanism_choices` and the login with it,
  // and the process then sat idle through the appliance's key check (bench/HISTORY.md, "where a
  // cold remote whoami waits"). It loads once the login is written, during that check.
  await headStart?.loginUnderWay(LOGIN_WAIT_CAP_MS);
  // Node makes process.stdout and process.stderr when first used (a pipe's ~2 ms of CPU): after the
  // login frame, as nothing is written before it (processIO).
  endWhenOutputFails(process.stdout, 'stdout');
  endWhenOutputFails(process.stderr, 'stderr');
  const { run } = await import('./cli.js');
  process.exitCode = await run(line, io, headStart ? { headStart } : {});
  // The session agent this command asked for (spawn.ts), now that its work is done.
  (await import('./core/session/spawn.js')).startQueuedAgent();
  // A head start still connecting (a host that does not answer) is of no use to anyone now:
  // waiting for its timeout would only hold the exit.
  const { workWasAbandoned } = await import('./commands/startup/abandoned-work.js');
  const dropped = headStart ? await headStart.drop() : true;
  if (!dropped || workWasAbandoned()) process.exit();
}

/**
 * For the first stage (src/first-stage.ts) when the session agent running a command that may
 * change something ended before its exit: SESSION_LOST, printed as `run()` prints any error
 * (print-error.ts; as JSON under `--json`), and its exit code. It loads the CLI's error modules,
 * which the first stage must not: this is the rare path.
 */
export async function reportSessionLost(line: CommandLine): Promise<number> {
  const [{ sessionLostError }, { describeError }, { writeError }] = await Promise.all([
    import('./commands/startup/session-lost.js'),
    import('./commands/output/describe-error.js'),
    import('./commands/output/print-error.js'),
  ]);
  const d = describeError(sessionLostError(line));
  writeError(process.stderr, d, line.globals.json === true || line.globals.jsonLines === true);
  return d.code;
}
