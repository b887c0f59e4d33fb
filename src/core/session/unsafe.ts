import { E } from '../error-catalogue.js';
import { StorError } from '../errors.js';

/** The one way a directory or socket that fails paths.ts's checks is reported. */
export function sessionDirUnsafe(problem: string): StorError {
  return new StorError(E.SESSION_DIR_UNSAFE, `the session agent's directory is not private: ${problem}`, {
    hint: 'remove it (it holds only the agent\'s socket) or make it yours with `chmod 700`; `STOR_SESSION=off` (or --no-session) runs without the agent',
  });
}
