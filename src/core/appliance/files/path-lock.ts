import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ERRNO, rpcErrors } from '../../errors.js';

/*
 * A lock on one path between the processes that share a state directory. The embedded appliance
 * is opened by every `stor` invocation, so two `stor upload --append` to one file are two
 * processes: the in-process turns (keyed-queue.ts) cannot order them, and the later rename dropped
 * the other's append while both exited 0. 25.10.1 has one middlewared per appliance and appends in
 * place (MW/plugins/filesystem.py:559-566), so it needs none.
 *
 * The lock is a file made with O_EXCL holding its maker's pid: atomic on a local file system, and
 * one a killed process left behind is taken over once that pid is gone.
 */
const LOCKS = 'path-locks';
/** How long a put waits for another process's turn on its path before it gives up (EBUSY). */
const WAIT_MS = 60_000;
const POLL_MS = 10;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, it is someone else's.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Made with the state (Appliance.open), so that its tree does not change shape with the first put. */
export function preparePathLocks(stateDir: string): void {
  try {
    mkdirSync(join(stateDir, LOCKS), { recursive: true, mode: 0o700 });
  } catch {
    // A read-only state still opens for reading; a put then fails on the lock with the system's error.
  }
}

/** Runs `fn` holding the lock on `key` (a host path) among the processes using `stateDir`. */
export async function withPathLock<T>(stateDir: string, key: string, shown: string, fn: () => Promise<T>): Promise<T> {
  const dir = join(stateDir, LOCKS);
  // Made at open already; again here in case it was removed since (a no-op when it is there).
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, createHash('sha256').update(key).digest('hex').slice(0, 40));
  const deadline = performance.now() + WAIT_MS;
  for (;;) {
    try {
      await writeFile(file, String(process.pid), { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = Number(await readFile(file, 'utf8').catch(() => ''));
    // Left by a process that is gone (killed mid-put): take it over. An empty file is one being
    // written this instant; it is waited for like any other.
    // (Read again right before: another waiter may have taken it over meanwhile. A window of one
    // read remains between two waiters taking over the same dead lock, after a crash only.)
    if (Number.isInteger(holder) && holder > 0 && !alive(holder)) {
      if (Number(await readFile(file, 'utf8').catch(() => '')) === holder) await unlink(file).catch(() => undefined);
      continue;
    }
    if (performance.now() > deadline)
      throw rpcErrors.call(ERRNO.EBUSY, `${shown}: another process has been writing it for ${WAIT_MS / 1000} s`);
    // The global timer, not node:timers/promises: that module would load at every start.
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  try {
    return await fn();
  } finally {
    await unlink(file).catch(() => undefined);
  }
}
