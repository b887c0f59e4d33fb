import { CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { buildProgram } from './commands/index.js';
import type { CommandContext } from './commands/shared/context.js';
import { describeError } from './commands/shared/describe-error.js';
import { EXIT } from './commands/shared/exit-codes.js';
import { escapeControls, escapeJson } from './commands/shared/escape.js';
import type { IO } from './commands/shared/io.js';
import { render, renderMode, type CommandResult } from './commands/shared/render.js';

export type { IO } from './commands/shared/io.js';

/** stor's own package.json: one level up from dist/ (or src/), two from the bundle in dist/bundle/. */
function packageVersion(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'stor' && pkg.version) return pkg.version;
    } catch {
      // not here; try further up
    }
  }
  return 'unknown';
}

/**
 * Runs one stor command line and returns its exit code. Never exits the process and never
 * writes outside `io`, so tests run it in-process; `bin/stor.js` is the only caller that exits.
 */
export async function run(argv: readonly string[], io: IO): Promise<number> {
  let ctx: CommandContext | undefined;
  let result: CommandResult | undefined;
  const wantsMethodHelp = argv.includes('call') && (argv.includes('--help') || argv.includes('-h'));
  const methodHelp = wantsMethodHelp ? (await import('./commands/method-help.js')).methodHelp : undefined;
  const program = buildProgram(io, {
    version: packageVersion(),
    onContext: (c) => (ctx = c),
    onResult: (r) => (result = r),
    ...(methodHelp ? { methodHelp } : {}),
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    if (result) io.stdout.write(render(result, renderMode(io, ctx?.globals.json ?? false)));
    return result?.exitCode ?? EXIT.OK;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander has already printed help, the version or the usage error.
      const done = ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(err.code);
      return done ? EXIT.OK : EXIT.USAGE;
    }
    const d = describeError(err);
    if (ctx?.globals.json) {
      io.stderr.write(`${escapeJson(JSON.stringify({ error: { code: d.errorCode, kind: d.kind, message: d.message, ...(d.hint ? { hint: d.hint } : {}), ...(d.details ? { details: d.details } : {}) } }))}\n`);
    } else {
      // Messages carry the appliance's own texts (reasons, names, paths): never raw controls.
      io.stderr.write(`stor: ${escapeControls(d.message)}\n`);
      for (const line of d.details ?? []) io.stderr.write(`  ${escapeControls(line)}\n`);
      if (d.hint) io.stderr.write(`hint: ${escapeControls(d.hint)}\n`);
    }
    return d.code;
  } finally {
    await ctx?.close();
  }
}
