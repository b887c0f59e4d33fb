import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import { COMMANDS } from '../index.js';
import { verbAt } from '../framework/declare.js';
import type { CommandLine } from '../framework/command-line.js';

/** Verbs whose effect shows on a path: `stor stat` tells whether it happened. */
const PATH_VERBS = new Set(['upload', 'mkdir', 'chmod', 'chown', 'rm', 'download']);

/** How to see whether the command took effect: the jobs, and what it changed. */
function checksFor(top: string | undefined, second: string | undefined, isNoun: boolean): string[] {
  const checks = ['`stor job list`'];
  if (isNoun && second !== undefined) {
    // A noun's own listing (`stor dataset list` after `stor dataset create`).
    if (top !== 'job') checks.push(`\`stor ${top} list\``);
  } else if (top === 'call' && second !== undefined && /^[\w.]+\.\w+$/.test(second)) {
    // The method's namespace, queried (`stor call group.query` after `stor call group.create`).
    checks.push(`\`stor call ${second.replace(/\.\w+$/, '')}.query\``);
  } else if (top === undefined || PATH_VERBS.has(top) || top === 'call') {
    checks.push('`stor stat PATH`');
  }
  return checks;
}

/**
 * A command whose session agent ended while it ran, when it may have changed something
 * (docs/SESSIONS.md, "A lost agent"): it is never run again blindly, since it may have taken
 * effect. The hint names how to see whether it did.
 */
export function sessionLostError(path: CommandLine): StorError {
  const entry = path.top !== undefined ? COMMANDS[path.top] : undefined;
  const isNoun = entry?.kind === 'noun';
  // A verb under a sub-noun takes more than one word (`share nfs create`).
  const verb = isNoun ? (verbAt(entry.noun, path.words.slice(1))?.name ?? path.verb) : undefined;
  const words = isNoun ? `${path.top} ${verb ?? ''}`.trim() : (path.top ?? '…');
  return new StorError(
    E.SESSION_LOST,
    `the session agent ended while \`stor ${words}\` ran: whether it changed anything is unknown`,
    {
      hint: `check before running it again: ${checksFor(path.top, path.verb, isNoun).join(', ')}`,
    },
  );
}
