import { E } from '../../core/error-catalogue.js';
import { StorError } from '../../core/errors.js';

/**
 * Standard input is read once, so what a verb reads from it (a password, a file's bytes) could
 * reach only the first of several targets: with `--targets`, refuse before any target is asked.
 */
export function refuseStdinForTargets(what: string): never {
  throw new StorError(
    E.BAD_TARGETS,
    `${what} reads standard input, which can go to one target only, not to each of --targets`,
    {
      hint: 'run it a profile at a time with --profile',
    },
  );
}
