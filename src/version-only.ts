import { readFileSync } from 'node:fs';
import type { CommandLine } from './commands/framework/command-line.js';

/** `stor --version` alone: answered before the CLI loads, since scripts call it often and it needs nothing else. */
export function asksOnlyVersion(line: CommandLine): boolean {
  return line.argv.length === 1 && line.asksVersion;
}

/** Writes stor's version, from the package.json two levels above `moduleUrl` (a file in dist/bundle/). */
export function writeVersion(moduleUrl: string): void {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', moduleUrl), 'utf8')) as { version: string };
  process.stdout.write(`${pkg.version}\n`);
}
