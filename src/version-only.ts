/** `stor --version` alone: answered before the CLI loads, since scripts call it often and it needs nothing else. */
export function asksOnlyVersion(argv: readonly string[]): boolean {
  return argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V');
}
