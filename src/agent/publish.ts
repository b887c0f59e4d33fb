import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, lstatSync, rmSync, unlinkSync } from 'node:fs';
import { connect, type Server } from 'node:net';
import { join } from 'node:path';
import { readLines } from '../core/session/lines.js';

/** How long an agent already published may take to answer a ping before it is taken as alive anyway. */
const PING_MS = 2000;

/** What the agent at `path` is: answering, refusing connections (its process died), or unknown. */
export function probe(path: string): Promise<'alive' | 'stale' | 'unknown'> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const done = (what: 'alive' | 'stale' | 'unknown') => {
      clearTimeout(timer);
      socket.destroy();
      resolve(what);
    };
    const timer = setTimeout(() => done('unknown'), PING_MS);
    socket.on('error', (err: NodeJS.ErrnoException) =>
      done(err.code === 'ECONNREFUSED' || err.code === 'ENOENT' ? 'stale' : 'unknown'),
    );
    socket.on('connect', () => socket.write(`${JSON.stringify({ op: 'ping' })}\n`));
    socket.on('close', () => done('unknown'));
    readLines(socket, (line) => {
      done(line.includes('"pong"') ? 'alive' : 'unknown');
      return false;
    });
  });
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Binds `server` and publishes it at `published` so that no one ever sees a socket of the wrong
 * mode, and two agents never both serve: it binds under a private temporary name with umask 077,
 * chmods the socket 0600, then link()s it to the published name, which fails (EEXIST) when another
 * agent got there first. That one is pinged: alive, this one gives way ('taken'); refusing
 * connections (stale, its process died), its name is removed and the link tried once more.
 * Resolves with the published socket's inode, which the agent watches.
 */
export async function publishSocket(
  server: Server,
  dir: string,
  published: string,
): Promise<{ ino: number } | 'taken'> {
  const temporary = join(dir, `.agent-${process.pid}-${randomBytes(6).toString('hex')}.sock`);
  const umask = process.umask(0o077);
  try {
    await listen(server, temporary);
  } finally {
    process.umask(umask);
  }
  try {
    chmodSync(temporary, 0o600);
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(temporary, published);
        return { ino: lstatSync(published).ino };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        // Another agent published between our removal of a stale socket and this link: it serves.
        if (attempt > 0) return 'taken';
      }
      if ((await probe(published)) !== 'stale') return 'taken';
      try {
        unlinkSync(published);
      } catch {
        // Removed by another agent doing the same: the next link decides.
      }
    }
  } finally {
    rmSync(temporary, { force: true });
  }
}
