import { E } from '../error-catalogue.js';
import { StorError } from '../errors.js';

/** The one way a directory or socket that fails paths.ts's checks is reported. */
export function sessionDirUnsafe(problem: string): StorError {
  // chmod cannot fix another user's directory or socket: only its owner (or root) can remove it.
  const fix = / owned by uid \d+/.test(problem)
    ? 'it belongs to another user (a `sudo -E stor …` can leave one): have that user or root remove it, or set XDG_RUNTIME_DIR to a directory of your own'
    : "remove it (it holds only the agent's socket) or make it yours with `chmod 700`";
  return new StorError(E.SESSION_DIR_UNSAFE, `the session agent's directory is not private: ${problem}`, {
    hint: `${fix}; \`STOR_SESSION=off\` (or --no-session) runs without the agent`,
  });
}
