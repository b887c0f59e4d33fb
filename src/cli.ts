import { CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { RpcError, RPC_CODE, StorError, classifyRpcError } from './core/errors.js';
import { buildProgram } from './commands/index.js';
import type { CommandContext } from './commands/shared/context.js';
import { EXIT, EXIT_FOR_KIND } from './commands/shared/exit-codes.js';
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

/** The error as stderr shows it, and the exit code it maps to: the only place errors become codes. */
function describeError(err: unknown): { code: number; kind: string; errorCode: string; message: string; hint?: string; details?: string[] } {
  if (err instanceof StorError) {
    return { code: EXIT_FOR_KIND[err.kind], kind: err.kind, errorCode: err.code, message: err.message, ...(err.hint ? { hint: err.hint } : {}) };
  }
  if (err instanceof RpcError) {
    const kind = classifyRpcError(err);
    const details = err.code === RPC_CODE.INVALID_PARAMS ? err.triples.map(([attr, msg]) => `* ${attr ?? 'ALL'}: ${msg}`) : undefined;
    const message = err.code === RPC_CODE.INVALID_PARAMS ? 'the appliance rejected the parameters' : err.reason.trim();
    return {
      code: EXIT_FOR_KIND[kind],
      kind,
      errorCode: err.errname ?? String(err.code),
      message,
      ...(kind === 'denied' ? { hint: 'the identity in use lacks a role this call needs; `stor whoami` lists its roles' } : {}),
      ...(details ? { details } : {}),
    };
  }
  if (err instanceof Error && err.name === 'ExitPromptError') {
    // Ctrl-C at a prompt: nothing was changed.
    return { code: EXIT.INTERRUPTED, kind: 'interrupted', errorCode: 'INTERRUPTED', message: 'interrupted; nothing was changed' };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { code: EXIT.FAILED, kind: 'internal', errorCode: 'INTERNAL', message, hint: 'this is a bug in stor; please report it with the command you ran' };
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
    if (result) io.stdout.write(await render(result, renderMode(io, ctx?.globals.json ?? false)));
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
