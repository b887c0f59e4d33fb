import { CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { E } from './core/error-catalogue.js';
import { buildProgram } from './commands/index.js';
import type { CommandContext, CommandSetting } from './commands/framework/context.js';
import type { CommandLine } from './commands/framework/command-line.js';
import { describeError } from './commands/output/describe-error.js';
import { EXIT } from './commands/output/exit-codes.js';
import type { IO } from './commands/output/io.js';
import { writeError } from './commands/output/print-error.js';
import { knownCommandWords, usageHint, type StorCommand } from './commands/framework/program.js';
import { columnNames, render, renderMode, unknownColumns, type CommandResult } from './commands/output/render.js';
import { StorError } from './core/errors.js';

export type { IO } from './commands/output/io.js';

/**
 * stor's own version, from its package.json: found by walking up from this module, which sits
 * in dist/ (tsc), in dist/bundle/ or dist/bundle/chunks/ (the bundle), or in src/ (tests). Read
 * once per process: the session agent runs many commands, all with the code it loaded at its start,
 * whose version this is even if the package is replaced meanwhile.
 */
let version: string | undefined;
const packageVersion = (): string => (version ??= readPackageVersion());

function readPackageVersion(): string {
  for (const rel of ['../package.json', '../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'stor-cli' && pkg.version) return pkg.version;
    } catch {
      // not here; try further up
    }
  }
  return 'unknown';
}

/**
 * Runs one stor command line and returns its exit code. Never exits the process and never
 * writes outside `io`, so tests and the session agent run it in-process; its callers turn the code
 * into an exit (src/bin-entry.ts for a process of its own, src/agent/ through the first stage).
 * `setting`: where it runs (the session agent's pool) and what began before this module loaded
 * (the head start, early-target.ts).
 */
export async function run(line: CommandLine, io: IO, setting: CommandSetting = {}): Promise<number> {
  let ctx: CommandContext | undefined;
  let result: CommandResult | undefined;
  let usageError: string | undefined;
  // Known before parsing, so that even a usage error answers in JSON.
  const json = line.globals.json === true || line.globals.jsonLines === true;
  let program: StorCommand | undefined;
  try {
    program = await buildProgram(line, io, {
      version: packageVersion(),
      onContext: (c) => (ctx = c),
      onResult: (r) => (result = r),
      onUsageError: (message) => (usageError = message),
      setting,
    });
    await program.parseAsync([...line.argv], { from: 'user' });
    if (result) {
      const globals = ctx?.globals;
      const layout = {
        ...(globals?.wide ? { wide: true } : {}),
        ...(globals?.columns !== undefined ? { columns: globals.columns } : {}),
      };
      const lines = globals ? globals.jsonLines : line.globals.jsonLines === true;
      const mode = renderMode(io, lines ? 'lines' : (globals?.json ?? json), 'stdout', layout);
      // A column the table does not have is told, not fatal: the command has run (it may have changed something).
      const unknown = mode.columns && !mode.json ? unknownColumns(result.view, mode.columns) : [];
      if (unknown.length > 0)
        ctx?.warn(
          `stor: warning: --columns: no column ${unknown.join(', ')} here; its columns: ${columnNames(result.view).join(', ')}`,
        );
      io.stdout.write(await render(result, mode));
      ctx?.flushAfterOutput();
    }
    if (result?.error) writeError(io.stderr, result.error, ctx?.globals.json ?? json);
    return result?.exitCode ?? EXIT.OK;
  } catch (err) {
    if (err instanceof CommanderError && usageError === undefined) {
      // Commander has printed help or the version.
      return err.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    }
    // A usage error points at the help of the command that failed (unknown option, bad value,
    // missing argument), unless its raiser said something more specific.
    const hint = usageHint(program ? knownCommandWords(program, line) : []);
    const d =
      err instanceof CommanderError
        ? { code: EXIT.USAGE, kind: 'usage', errorCode: E.USAGE.code, message: usageError!, hint }
        : err instanceof StorError && err.code === E.USAGE.code && !err.hint
          ? { ...describeError(err), hint }
          : describeError(err);
    ctx?.flushAfterOutput();
    writeError(io.stderr, d, ctx?.globals.json ?? json);
    return d.code;
  } finally {
    await ctx?.close();
  }
}
