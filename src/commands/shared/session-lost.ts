import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';
import { GLOBAL_VALUE_FLAGS } from '../index.js';
import { findCommandPath } from './program.js';

/** Verbs whose effect shows on a path: `stor stat` tells whether it happened. */
const PATH_VERBS = new Set(['upload', 'mkdir', 'chmod', 'chown', 'rm', 'download']);

/**
 * A command whose session agent ended while it ran, when it may have changed something
 * (docs/SESSIONS.md, "A lost agent"): it is never run again blindly, since it may have taken
 * effect. The hint names how to see whether it did.
 */
export function sessionLostError(argv: readonly string[]): StorError {
  const path = findCommandPath(argv, GLOBAL_VALUE_FLAGS);
  const words = [path.top, path.verb].filter((w) => w !== undefined).join(' ');
  const checks = ['`stor job list`'];
  // A noun's own listing (`stor dataset list` after `stor dataset create`), else the path it touched.
  if (path.top !== undefined && path.verb !== undefined && !PATH_VERBS.has(path.top)) {
    if (path.top !== 'job') checks.push(`\`stor ${path.top} list\``);
  } else checks.push('`stor stat PATH`');
  return new StorError(E.SESSION_LOST, `the session agent ended while \`stor ${words || '…'}\` ran: whether it changed anything is unknown`, {
    hint: `check before running it again: ${checks.join(', ')}`,
  });
}
