import { E } from '../../core/error-catalogue.js';
import { ERRNO, RpcError, StorError } from '../../core/errors.js';

export const isErrno = (err: unknown, errno: number) => err instanceof RpcError && err.errno === errno;

/** ENOENT, or os.mkdir's FileNotFoundError, which reaches the client as an exception named by its trace's class. */
export const isMissingPath = (err: unknown) =>
  isErrno(err, ERRNO.ENOENT) || (err instanceof RpcError && err.data?.trace?.class === 'FileNotFoundError');

/** The directory above `path` (`/mnt/tank` for `/mnt/tank/a/`), or '' at the top. */
export const parentOf = (path: string) => path.replace(/\/+[^/]+\/*$/, '');

/** "No such path", said as stor says it of anything missing (NOT_FOUND, exit 1), the appliance's words as a detail. */
export function noSuchPath(path: string, err: RpcError): StorError {
  const dir = parentOf(path) || '/mnt';
  return new StorError(E.NOT_FOUND, `no file or directory ${path}`, {
    hint: `\`stor ls ${dir}\` shows what is there`,
    details: [err.reason.trim()],
  });
}

/** A read of `path` whose ENOENT is NOT_FOUND: `stat`, `ls`. */
export async function readingPath<T>(path: string, read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (err) {
    throw isMissingPath(err) ? noSuchPath(path, err as RpcError) : err;
  }
}
