import { fileURLToPath } from 'node:url';
import { loadWithCodeCache } from './code-cache.js';
import { endWhenOutputFails } from './output-errors.js';
import { asksOnlyVersion, writeVersion } from './version-only.js';
import type { CommandLine } from './commands/framework/command-line.js';

type Main = (line: CommandLine) => Promise<void>;

/**
 * What bin/stor.js runs: the CLI's `main` (bin-entry.ts), from the single CommonJS bundle with
 * V8's code cache (code-cache.ts), on every Node major. Node ≥ 22.1's compile cache for the ES
 * module bundle was slower: it still resolves and links ~40 chunks at every start (same-run A/B,
 * bench/HISTORY.md 2026-11-26). `--version` is answered here, before the bundle loads. `line`: the
 * command line as the first stage read it (command-line.ts), handed down rather than read again.
 */
export async function start(line: CommandLine): Promise<void> {
  if (asksOnlyVersion(line)) {
    endWhenOutputFails(process.stdout, 'stdout');
    writeVersion(import.meta.url);
    return;
  }
  // Help (`--help`, `stor help …`, no command at all) runs none of a command's code: its code cache
  // is replaced by the first command's (code-cache.ts).
  const helpOnly = line.asksHelp || line.top === undefined;
  const main: Main = loadWithCodeCache(fileURLToPath(new URL('./stor.cjs', import.meta.url)), process.env, helpOnly);
  await main(line);
}
