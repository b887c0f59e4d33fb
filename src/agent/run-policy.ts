import { COMMANDS } from '../commands/index.js';
import { verbAt, type CommandSpec } from '../commands/framework/declare.js';
import type { CommandLine } from '../commands/framework/command-line.js';
import { DECLINED_COMMANDS, type TerminalFacts } from '../core/session/protocol.js';

/** What the agent does with a handed-over command line: decline it (with why), or run it. */
export type RunDecision = { declined: string } | { changes: boolean };

/** The declaration the command line runs, or undefined for a command line commander will refuse or answer with help. */
async function specFor(path: CommandLine): Promise<{ words: string; spec?: CommandSpec<any, any, any> }> {
  const entry = path.top !== undefined ? COMMANDS[path.top] : undefined;
  if (entry?.kind === 'verb') return { words: path.top!, spec: await entry.load() };
  // Of a noun, the verb is named by as many words as it takes (`share nfs create`).
  const verb = entry?.kind === 'noun' ? verbAt(entry.noun, path.words.slice(1)) : undefined;
  const words = [path.top, verb?.name ?? path.verb].filter((w) => w !== undefined).join(' ');
  return { words, ...(verb ? { spec: await verb.load() } : {}) };
}

/**
 * Whether the agent runs the command line `path` for a first stage whose terminal is `tty`, and if so whether it may
 * change anything (so that a lost agent means an unknown outcome). Declined, and so run in the
 * command's own process: no command words, help and the version, `serve`, `login`, `session` and
 * `completion`, and at a terminal any verb that may ask a question (its `asks`, or a `--targets`
 * change, which asks once for all targets) unless `--yes` answers it. A command line commander
 * will refuse is run: its usage error is the same wherever it is printed.
 */
export async function decideRun(path: CommandLine, tty: TerminalFacts): Promise<RunDecision> {
  const { options } = path;
  if (path.helpTopic !== undefined) return { declined: 'help is answered in-process' };
  if (path.asksHelp || path.asksVersion) return { declined: 'help and the version are answered in-process' };
  if (path.top === undefined) return { declined: 'no command words' };
  if (DECLINED_COMMANDS.includes(path.top)) return { declined: `\`stor ${path.top}\` runs in its own process` };
  const { words, spec } = await specFor(path);
  if (!spec) return { changes: false };
  const targets = path.globals.targets !== undefined;
  const asks = spec.asks === true || (targets && spec.fanOut === 'change');
  // `-y` inside a cluster (`-qy`) is not recognised: declined, the command still runs, in-process.
  const answered = options.includes('--yes') || options.includes('-y');
  if (asks && !answered && tty.stdin) return { declined: `\`stor ${words}\` may ask a question at the terminal` };
  // A dry run only reads, whatever the verb; `stor call auth.me` reads, though `call` may change.
  if (spec.effect === 'read' || options.includes('--dry-run')) return { changes: false };
  // Of a top-level verb, the second word is its first argument.
  const first = COMMANDS[path.top]?.kind === 'verb' ? path.verb : undefined;
  return { changes: !(spec.readsWith && first !== undefined && (await spec.readsWith(first))) };
}
