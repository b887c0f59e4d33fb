import { constants } from 'node:os';
import { getSystemErrorMap } from 'node:util';
import { RpcError, rpcErrors } from '../../errors.js';

/** glibc's strerror() texts, which Python puts in an OSError; libuv words some of them differently. */
const STRERROR: Record<string, string> = {
  EPERM: 'Operation not permitted',
  ENOENT: 'No such file or directory',
  EIO: 'Input/output error',
  EBADF: 'Bad file descriptor',
  EAGAIN: 'Resource temporarily unavailable',
  ENOMEM: 'Cannot allocate memory',
  EACCES: 'Permission denied',
  EBUSY: 'Device or resource busy',
  EEXIST: 'File exists',
  EXDEV: 'Invalid cross-device link',
  ENOTDIR: 'Not a directory',
  EISDIR: 'Is a directory',
  EINVAL: 'Invalid argument',
  EMFILE: 'Too many open files',
  ENOSPC: 'No space left on device',
  EROFS: 'Read-only file system',
  EMLINK: 'Too many links',
  ENAMETOOLONG: 'File name too long',
  ENOTEMPTY: 'Directory not empty',
  ELOOP: 'Too many levels of symbolic links',
  EDQUOT: 'Disk quota exceeded',
};

/** The OSError subclass Python raises for an errno (PEP 3151). */
const PYTHON_CLASS: Record<string, string> = {
  ENOENT: 'FileNotFoundError',
  EEXIST: 'FileExistsError',
  ENOTDIR: 'NotADirectoryError',
  EISDIR: 'IsADirectoryError',
  EACCES: 'PermissionError',
  EPERM: 'PermissionError',
  EAGAIN: 'BlockingIOError',
};

function strerror(code: string, errno: number): string {
  const known = STRERROR[code];
  if (known) return known;
  const libuv = getSystemErrorMap().get(-errno)?.[1];
  return libuv ? libuv[0]!.toUpperCase() + libuv.slice(1) : `Unknown error ${errno}`;
}

/**
 * The error an appliance method fails with when the operating system refuses: Python's
 * `IsADirectoryError: [Errno 21] Is a directory: '/mnt/tank/x'`. `path` is an appliance path;
 * a host path never goes in.
 */
export function osError(code: string, path: string | null): RpcError {
  const errno = (constants.errno as Record<string, number>)[code] ?? 0;
  const text = strerror(code, errno);
  const cls = PYTHON_CLASS[code] ?? 'OSError';
  return rpcErrors.exception(
    cls,
    `[Errno ${errno}] ${text}${path === null ? '' : `: '${path}'`}`,
    `${cls}(${errno}, '${text}')`,
  );
}

/** A Node file-system error (it names the syscall and, in its message, the host path). */
export function isSystemError(err: unknown): err is NodeJS.ErrnoException & { code: string } {
  return (
    err instanceof Error &&
    typeof (err as NodeJS.ErrnoException).code === 'string' &&
    typeof (err as NodeJS.ErrnoException).syscall === 'string'
  );
}
