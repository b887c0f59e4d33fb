import { call } from '../../core/contract/client.js';
import { RpcError, StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';
import type { Transport } from '../../core/transport/transport.js';
import { listDirectory, type RemoteEntry } from '../shared/remote-listing.js';

/** Remote directories' entries by name; a directory this run created is listed empty. */
export type Listings = Map<string, Map<string, RemoteEntry>>;

const parentOf = (path: string) => path.slice(0, path.lastIndexOf('/')) || '/';
const nameOf = (path: string) => path.slice(path.lastIndexOf('/') + 1);

async function typeOf(t: Transport, path: string): Promise<string | null> {
  try {
    return (await call(t, 'filesystem.stat', [path])).type;
  } catch (err) {
    if (err instanceof RpcError && err.errno === 2) return null;
    throw err;
  }
}

/**
 * Makes sure every directory in `dirs` exists on the appliance, parents first: filesystem.mkdir
 * makes one level (MW/plugins/filesystem.py mkdir), and creating them before the transfers keeps
 * parallel puts from racing to create the same parent. Whether a directory exists is read from
 * its parent's listing; each existing directory is listed once (its files' sizes serve
 * --skip-existing), a created one not at all.
 */
export async function ensureDirectories(t: Transport, dirs: readonly string[]): Promise<Listings> {
  const listings: Listings = new Map();
  const ensure = async (dir: string): Promise<void> => {
    if (listings.has(dir)) return;
    const parent = parentOf(dir);
    let type: string | null;
    if (dir === '/') type = 'DIRECTORY';
    else if (listings.has(parent)) type = listings.get(parent)!.get(nameOf(dir))?.type ?? null;
    else {
      type = await typeOf(t, dir);
      if (type === null) await ensure(parent);
    }
    if (type === 'DIRECTORY') {
      listings.set(dir, await listDirectory(t, dir));
      return;
    }
    if (type !== null) {
      throw new StorError(E.TARGET_NOT_A_DIRECTORY, `${dir} is on the appliance and is not a directory`, {
        hint: 'choose another target, or move that file away',
      });
    }
    try {
      await call(t, 'filesystem.mkdir', [{ path: dir }]);
    } catch (err) {
      // Someone else made it in the meantime: as good as ours.
      if (!(err instanceof RpcError && err.errno === 17 && (await typeOf(t, dir)) === 'DIRECTORY')) throw err;
    }
    listings.get(parent)?.set(nameOf(dir), { type: 'DIRECTORY', size: 0, mode: 0o40755 });
    listings.set(dir, new Map());
  };
  for (const dir of [...new Set(dirs)]) await ensure(dir.replace(/\/+$/, '') || '/');
  return listings;
}
