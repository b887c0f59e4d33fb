import type { Command } from 'commander';
import { readCommandLine } from '../../src/commands/framework/command-line.js';
import { buildProgram } from '../../src/commands/index.js';

function leafPaths(cmd: Command, path: string[] = []): string[][] {
  if (cmd.commands.length === 0) return [path];
  return cmd.commands.flatMap((c) => leafPaths(c, [...path, c.name()]));
}

/** The program `stor …argv` builds, with an IO that writes nowhere: what its tree holds, not what it prints. */
export async function programFor(argv: readonly string[]): Promise<Command> {
  const io = {
    stdout: { write: () => true },
    stderr: { write: () => true },
    stdin: process.stdin,
    env: {},
    cwd: '/',
    color: { stdout: 0 as const, stderr: 0 as const },
  };
  const hooks = { version: '0', onContext: () => undefined, onResult: () => undefined, onUsageError: () => undefined };
  return buildProgram(readCommandLine([...argv]), io, hooks);
}

/** Every command's words (`['dataset', 'list']`, …), `help` aside: the program built with no command words declares every verb, as for `stor --help`. */
export async function commandPaths(): Promise<string[][]> {
  return leafPaths(await programFor([])).filter((p) => p[0] !== 'help');
}
