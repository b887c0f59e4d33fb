/**
 * Work a command gave up on before it settled (a completion past its deadline, still connecting
 * or waiting for an answer). The command has its answer without it; the process need not stay up
 * for it to time out on its own, so the entry point ends the process once the output is written.
 */
let abandoned = false;

export function abandonWork(): void {
  abandoned = true;
}

export function workWasAbandoned(): boolean {
  return abandoned;
}
