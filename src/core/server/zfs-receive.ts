import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Appliance } from '../appliance/appliance.js';
import { publicKeysIn, sshSign, sshVerify } from '../appliance/keychain/ssh-sign.js';
import { hostKeyOf } from '../appliance/replication/host-key.js';
import { ReplicationError } from '../appliance/replication/plan.js';
import { helloSigned, authSigned, type IncomingRecv } from '../appliance/replication/remote-protocol.js';
import { createParents, destroyTarget, receiveSnapshot } from '../appliance/replication/run.js';
import { ArchiveError, readArchive } from '../appliance/replication/stream-archive.js';
import { destroySnapshotsOf, listTarget, setTargetReadonly } from '../appliance/replication/target-side.js';
import { listUsers } from '../store/users.js';
import { serviceRecord } from '../appliance/services/records.js';
import type { Origin } from '../appliance/session/session.js';
import { isLoopbackHost } from '../net/loopback.js';
import { sendText } from './http-rpc.js';
import { liftBodyDeadline } from './body-deadline.js';
import { idleTimer } from './idle-timer.js';

// `/_stor/zfs/`: the other end of a replication rehearsed between two `stor serve` on loopback
// (docs/REPLICATION.md). Emulator only, in no release's contract: where the appliance would be
// reached over SSH and run `zfs recv`, the emulator's own HTTP carries it. SSH's checks are kept:
// the server proves its host key, the client a private key whose public key the user's sshpubkey
// (authorized_keys) holds. Bounded: small JSON bodies, a stream's total size and entries, an idle cutoff.

const PREFIX = '/_stor/zfs/';
const MAX_JSON = 64 * 1024;
const CHALLENGE_MS = 60_000;
const SESSION_MS = 60 * 60_000;
const MAX_PENDING = 64;
/** Names one `destroy-snapshots` takes: zettarepl destroys at most 100 a `zfs destroy` (zettarepl/snapshot/destroy.py:15). */
export const MAX_DESTROY_NAMES = 100;
/** A snapshot's stream: the emulator's datasets are small test trees. */
export const RECEIVE_LIMITS = { maxBytes: 4 * 1024 ** 3, maxEntries: 1_000_000 };

const DATASET = /^[A-Za-z0-9][A-Za-z0-9_.:-]*(\/[A-Za-z0-9_.:-]+)*$/;
const SNAPSHOT = /^[A-Za-z0-9_.:-]+$/;
const isDataset = (v: unknown): v is string =>
  typeof v === 'string' && v.length <= 200 && DATASET.test(v) && !v.split('/').some((p) => p === '.' || p === '..');

class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_JSON) throw new Refused(413, 'request body too large');
    chunks.push(chunk as Buffer);
  }
  try {
    const v: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new Refused(400, 'the body is not a JSON object');
}

/** Entries that expire, at most MAX_PENDING of them (the oldest goes first). */
class Expiring<T> {
  private readonly items = new Map<string, { value: T; until: number }>();
  constructor(private readonly ms: number) {}
  add(key: string, value: T): void {
    if (this.items.size >= MAX_PENDING) this.items.delete(this.items.keys().next().value!);
    this.items.set(key, { value, until: Date.now() + this.ms });
  }
  get(key: string, renew = false): T | undefined {
    const item = this.items.get(key);
    if (!item || item.until < Date.now()) {
      this.items.delete(key);
      return undefined;
    }
    if (renew) item.until = Date.now() + this.ms;
    return item.value;
  }
  take(key: string): T | undefined {
    const v = this.get(key);
    this.items.delete(key);
    return v;
  }
}

const b64 = (v: unknown) => (typeof v === 'string' ? Buffer.from(v, 'base64') : Buffer.alloc(0));

function checkIncoming(v: unknown): IncomingRecv {
  const x = v as IncomingRecv;
  const s = x?.snapshot;
  const ok =
    typeof x === 'object' &&
    x !== null &&
    isDataset(x.target) &&
    (x.base === null || (typeof x.base === 'string' && SNAPSHOT.test(x.base))) &&
    typeof s === 'object' &&
    s !== null &&
    isDataset(s.sourceDataset) &&
    typeof s.name === 'string' &&
    SNAPSHOT.test(s.name) &&
    Number.isFinite(s.referenced) &&
    typeof s.guid === 'string' &&
    Number.isFinite(s.created_at) &&
    typeof s.user_properties === 'object' &&
    s.user_properties !== null &&
    Object.values(s.user_properties).every((p) => typeof p === 'string') &&
    Array.isArray(s.owners) &&
    s.owners.every(
      (o) => Array.isArray(o) && typeof o[0] === 'string' && Number.isInteger(o[1]) && Number.isInteger(o[2]),
    ) &&
    typeof s.volume === 'object' &&
    s.volume !== null &&
    Object.keys(s.volume).every((k) => k === 'volsize' || k === 'volblocksize');
  if (!ok) throw new Refused(400, 'a malformed receive header');
  return x;
}

/** The request's chunks, each one proof of life; cut when none comes for `idleMs` while one is awaited. */
async function* watched(req: IncomingMessage, idleMs: number): AsyncGenerator<Buffer> {
  let waiting = false;
  const idle = idleTimer(
    idleMs,
    () => req.destroy(new Error('the stream stalled')),
    () => !waiting,
  );
  const it = req[Symbol.asyncIterator]();
  try {
    for (;;) {
      waiting = true;
      const r = await it.next();
      waiting = false;
      if (r.done) return;
      idle.touch();
      yield r.value as Buffer;
    }
  } finally {
    idle.stop();
  }
}

/** The route for startServer's list. */
export function zfsReceiveRoute(appliance: Appliance, idleMs: number, log: (line: string) => void) {
  const challenges = new Expiring<Buffer>(CHALLENGE_MS);
  const sessions = new Expiring<string>(SESSION_MS);
  const host = () => hostKeyOf(appliance.store.stateDir);

  const authorized = (req: IncomingMessage): string => {
    const m = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    const user = m ? sessions.get(m[1]!, true) : undefined;
    if (user === undefined) throw new Refused(401, 'Authentication failed.');
    return user;
  };

  const answer = async (path: string, req: IncomingMessage, res: ServerResponse): Promise<unknown> => {
    // No sshd listens while the SSH service is stopped (its state on a new appliance): a new
    // connection is refused as paramiko reports it. A login already made goes on, as an SSH session
    // outlives the service's stop.
    const sshRunning = appliance.store.read(() => serviceRecord(appliance, 'ssh')?.running === true);
    if (['host-key', 'hello', 'auth'].includes(path) && !sshRunning)
      throw new Refused(503, '[Errno 111] Connection refused');
    if (path === 'host-key' && req.method === 'GET') {
      req.resume();
      sendText(res, 200, `${host().publicLine}\n`);
      return undefined;
    }
    if (req.method !== 'POST') throw new Refused(405, '405: Method Not Allowed');
    if (path === 'hello') {
      const nonce = b64((await readJson(req)).nonce);
      if (nonce.length < 16 || nonce.length > 64) throw new Refused(400, 'a nonce of 16 to 64 bytes is needed');
      const key = host();
      const challenge = randomBytes(32);
      challenges.add(challenge.toString('base64'), nonce);
      return {
        host_key: key.publicLine,
        signature: sshSign(key.key, helloSigned(nonce)).toString('base64'),
        challenge: challenge.toString('base64'),
      };
    }
    if (path === 'auth') {
      const body = await readJson(req);
      const nonce = typeof body.challenge === 'string' ? challenges.take(body.challenge) : undefined;
      const username = typeof body.username === 'string' ? body.username : '';
      const type = typeof body.key_type === 'string' ? body.key_type : '';
      const blob = b64(body.key_blob);
      const user = appliance.store.read(() => listUsers(appliance.store.db)).find((u) => u.username === username);
      const holds = publicKeysIn(user?.sshpubkey ?? '').some((k) => k.type === type && k.blob.equals(blob));
      const signed =
        nonce !== undefined &&
        sshVerify(type, blob, authSigned(b64(body.challenge), nonce, username), b64(body.signature));
      // sshd's answer is the same whatever failed: paramiko says "Authentication failed.".
      if (!user || user.locked || !holds || !signed) {
        log(`/_stor/zfs: refused a replication login as ${JSON.stringify(username.slice(0, 64))}`);
        throw new Refused(401, 'Authentication failed.');
      }
      const token = randomBytes(32).toString('base64url');
      sessions.add(token, username);
      return { token };
    }
    authorized(req);
    if (path === 'recv') {
      const header = req.headers['x-stor-recv'];
      let incoming: IncomingRecv;
      try {
        incoming = checkIncoming(JSON.parse(Buffer.from(String(header ?? ''), 'base64url').toString('utf8')));
      } catch (err) {
        if (err instanceof Refused) throw err;
        throw new Refused(400, 'a malformed receive header');
      }
      liftBodyDeadline(req);
      const id = await receiveSnapshot(appliance, incoming.snapshot, incoming.target, incoming.base, (dir) =>
        readArchive(watched(req, idleMs), dir, RECEIVE_LIMITS),
      );
      return { id };
    }
    const body = await readJson(req);
    if (path === 'list') {
      if (!isDataset(body.target)) throw new Refused(400, 'a dataset name is needed');
      return listTarget(appliance, body.target);
    }
    if (path === 'destroy') {
      if (!isDataset(body.dataset)) throw new Refused(400, 'a dataset name is needed');
      // zfs destroy's words for a pool's root dataset (libzfs: "operation does not apply to pools").
      if (!body.dataset.includes('/'))
        throw new ReplicationError(`cannot destroy '${body.dataset}': operation does not apply to pools`);
      await destroyTarget(appliance, body.dataset);
      return {};
    }
    if (path === 'destroy-snapshots') {
      // `zfs destroy DATASET@a,b,…` as retention runs it (zettarepl/snapshot/destroy.py:18-61): a
      // held snapshot is skipped, one already gone is no error; the answer names what went.
      const names = body.names;
      if (!isDataset(body.dataset)) throw new Refused(400, 'a dataset name is needed');
      if (
        !Array.isArray(names) ||
        names.length === 0 ||
        names.length > MAX_DESTROY_NAMES ||
        !names.every((n) => typeof n === 'string' && n.length <= 255 && SNAPSHOT.test(n))
      )
        throw new Refused(400, `1 to ${MAX_DESTROY_NAMES} snapshot names are needed`);
      return { destroyed: await destroySnapshotsOf(appliance, body.dataset, names as string[]) };
    }
    if (path === 'create') {
      if (!isDataset(body.parent)) throw new Refused(400, 'a dataset name is needed');
      createParents(appliance, body.parent);
      return {};
    }
    if (path === 'readonly') {
      if (!isDataset(body.dataset) || typeof body.on !== 'boolean')
        throw new Refused(400, 'a dataset and on are needed');
      setTargetReadonly(appliance, body.dataset, body.on);
      return {};
    }
    throw new Refused(404, '404: Not Found');
  };

  return async (req: IncomingMessage, res: ServerResponse, origin: Origin): Promise<boolean> => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (!path.startsWith(PREFIX)) return false;
    try {
      // A rehearsal stays on this machine: a server listening on a network answers no one else here.
      if (!isLoopbackHost(origin.address)) throw new Refused(403, 'replication is served to loopback peers only');
      const result = await answer(path.slice(PREFIX.length), req, res);
      if (result !== undefined) sendText(res, 200, JSON.stringify(result), 'application/json');
    } catch (err) {
      const [status, message, kind] =
        err instanceof Refused
          ? [err.status, err.message, 'refused']
          : err instanceof ReplicationError
            ? [409, err.message, 'replication']
            : err instanceof ArchiveError
              ? [400, `a malformed stream: ${err.message}`, 'refused']
              : [500, err instanceof Error ? err.message : String(err), 'internal'];
      if (kind === 'internal') log(`/_stor/zfs/${path}: ${message}`);
      if (res.headersSent || req.socket.destroyed) res.destroy();
      else {
        // What was not read of the body is not waited for: the connection closes after the answer.
        res.setHeader('connection', 'close');
        sendText(res, status, JSON.stringify({ error: message, kind }), 'application/json');
        if (!req.complete) res.once('finish', () => req.socket.destroy());
      }
    }
    return true;
  };
}
