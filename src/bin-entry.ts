import { readFileSync } from 'node:fs';

/**
 * What bin/stor.js runs: the only place the process's exit code is set. `--version` is answered
 * before the CLI loads, since scripts call it often and it needs nothing else.
 */
export async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    process.stdout.write(`${pkg.version}\n`);
    return;
  }
  const [{ run }, { processIO }] = await Promise.all([import('./cli.js'), import('./commands/shared/io.js')]);
  process.exitCode = await run(argv, processIO());
}
