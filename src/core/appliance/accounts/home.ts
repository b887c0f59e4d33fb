import { join } from 'node:path';
import { ERRNO, RpcError, rpcErrors } from '../../errors.js';
import type { Appliance } from '../appliance.js';
import { makeDirectory } from '../files/mkdir.js';
import { setPermissions } from '../files/perm.js';
import { statEntry } from '../files/stat.js';
import { DEFAULT_HOME_PATH } from './checks.js';

/** Where `user.create` puts the home: `<home>/<username>` with `home_create` (MW/plugins/account.py:568-569, 688-695). */
export function homeOf(data: { home: string; home_create: boolean; username: string }): string {
  if (!data.home || data.home === DEFAULT_HOME_PATH || !data.home_create) return data.home;
  return join(data.home, data.username);
}

/**
 * `setup_homedir` (MW/plugins/account.py:565-610): with `home_create`, `filesystem.mkdir` of the
 * home (a directory already there is kept, anything else refused); then, created or not,
 * `filesystem.setperm` of it with `home_mode`, the user's uid and the primary group's gid. Nothing
 * is done for the default home, `/var/empty` (:687).
 */
export async function setUpHome(
  appliance: Appliance,
  home: string,
  create: boolean,
  mode: string,
  uid: number,
  gid: number,
): Promise<void> {
  if (!home || home === DEFAULT_HOME_PATH) return;
  if (create) {
    try {
      await makeDirectory(appliance, { path: home, options: { mode, raise_chmod_error: false } });
    } catch (err) {
      if (!(err instanceof RpcError && err.errno === ERRNO.EEXIST)) throw err;
      let type: string | null = null;
      try {
        type = statEntry(appliance, home).type;
      } catch {
        // gone again: refused as not a directory
      }
      if (type !== 'DIRECTORY')
        throw rpcErrors.call(ERRNO.EEXIST, 'Path for home directory already exists and is not a directory');
    }
  }
  // setup_homedir waits for the setperm job; here it runs in the call, reporting progress to no one.
  const job = { id: 0, progress: () => undefined };
  await setPermissions(appliance, job, {
    path: home,
    mode,
    uid,
    gid,
    user: null,
    group: null,
    options: { recursive: false, traverse: false, stripacl: true },
  });
}
