// A push replication to ANOTHER appliance, rehearsed offline (docs/REPLICATION.md): the source's
// engine plans as zettarepl does (plan.ts) over its own datasets and the target's listing, and
// applies each step on the other `stor serve` through its /_stor/zfs/ endpoints
// (server/zfs-receive.ts) where zettarepl's SSH transport would run `zfs recv` on the other box.
// A documented deviation from SSH: the emulator's own HTTP carries it, on loopback only, with
// SSH's checks kept — the host key named by the credentials, the user's authorized key.

import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { listDatasets } from '../../store/datasets.js';
import type { Appliance } from '../appliance.js';
import { snapshotCopyDir } from '../datasets/snapshot-copies.js';
import { publicBlobOf, publicKeysIn, sshPrivateKey, sshSign, sshVerify } from '../keychain/ssh-sign.js';
import { isLoopbackHost } from '../../net/loopback.js';
import type { SnapshotRef } from '../snapshot-tasks/retention.js';
import {
  checkTarget,
  planReplicationPart,
  readonlyAfterPlan,
  ReplicationError,
  type LocalReplicationSpec,
  type ReplicationWorld,
} from './plan.js';
import { authSigned, helloSigned, type IncomingRecv } from './remote-protocol.js';
import { incomingOf, loadWorld, type ReplicationProgress, type ReplicationResult } from './run.js';
import { replicationRetention, retentionBeforePart } from './retention.js';
import { archiveOf } from './stream-archive.js';
import type { TargetListing } from './target-side.js';

export { ReplicationError } from './plan.js';

/** An SSH_CREDENTIALS entry with its key pair's private key (MW/plugins/keychain_/ssh_credentials.py's attributes). */
export interface RemoteEndpoint {
  /** The other `stor serve`'s HTTP address: loopback only. */
  readonly host: string;
  readonly port: number;
  /** A user on the target whose `sshpubkey` holds the key pair's public key. */
  readonly username: string;
  /** The SSH_KEY_PAIR's `private_key`. */
  readonly privateKey: string;
  /** `remote_host_key`: known_hosts-style lines, as remote_ssh_host_key_scan answers. */
  readonly remoteHostKey: string;
  /** `connect_timeout`, in seconds. */
  readonly connectTimeout: number;
}

/** After the connection is up, how long the other end may stay silent (a receive restoring a large tree). */
const IDLE_MS = 5 * 60_000;
/** Names one destroy request carries: zettarepl's batch (zettarepl/snapshot/destroy.py:15), the target's bound. */
const MAX_DESTROY_NAMES = 100;
/** The most a JSON answer may hold (a target's listing). */
const MAX_ANSWER = 64 * 1024 * 1024;

/** Python's socket errors, as zettarepl's error text would show them. */
function connectionError(err: NodeJS.ErrnoException): ReplicationError {
  if (err.code === 'ECONNREFUSED') return new ReplicationError('[Errno 111] Connection refused');
  if (err.code === 'ETIMEDOUT') return new ReplicationError('timed out');
  return new ReplicationError('[Errno 104] Connection reset by peer');
}

class RemoteTarget {
  private token = '';
  constructor(private readonly remote: RemoteEndpoint) {}

  private send(path: string, body: Buffer | Readable, headers: Record<string, string> = {}): Promise<unknown> {
    const { host, port, connectTimeout } = this.remote;
    // Loaded at a replication's first request, not by every command that opens the embedded
    // appliance (keychain/host-key-scan.ts says why).
    const { request } = process.getBuiltinModule('node:http');
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host,
          port,
          path: `/_stor/zfs/${path}`,
          method: 'POST',
          agent: false,
          headers: {
            'content-type': Buffer.isBuffer(body) ? 'application/json' : 'application/octet-stream',
            ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
            ...headers,
          },
        },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_ANSWER) res.destroy(new Error('the answer is too large'));
            else chunks.push(c);
          });
          res.on('error', (err: NodeJS.ErrnoException) => reject(connectionError(err)));
          res.on('end', () => {
            let parsed: { error?: string } = {};
            try {
              parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error?: string };
            } catch {
              // answered by status below
            }
            if (res.statusCode === 200) resolve(parsed);
            else if (res.statusCode === 401) reject(new ReplicationError('Authentication failed.'));
            else reject(new ReplicationError(parsed.error ?? `the target answered HTTP ${res.statusCode}`));
          });
        },
      );
      req.setTimeout(connectTimeout * 1000, () =>
        req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })),
      );
      req.once('socket', (socket) => socket.once('connect', () => req.setTimeout(IDLE_MS)));
      req.on('error', (err: NodeJS.ErrnoException) => reject(connectionError(err)));
      if (Buffer.isBuffer(body)) req.end(body);
      else {
        body.on('error', (err) => req.destroy(err));
        body.pipe(req);
      }
    });
  }

  json<T>(path: string, body: object): Promise<T> {
    return this.send(path, Buffer.from(JSON.stringify(body))) as Promise<T>;
  }

  /** The SSH handshake's two proofs: the server's host key, then the client's key for the user. */
  async login(): Promise<void> {
    const { username, privateKey, remoteHostKey } = this.remote;
    const nonce = randomBytes(32);
    const hello = await this.json<{ host_key?: string; signature?: string; challenge?: string }>('hello', {
      nonce: nonce.toString('base64'),
    });
    const [offered] = publicKeysIn(hello.host_key ?? '');
    const known = publicKeysIn(remoteHostKey);
    const trusted =
      offered !== undefined &&
      known.some((k) => k.type === offered.type && k.blob.equals(offered.blob)) &&
      sshVerify(offered.type, offered.blob, helloSigned(nonce), Buffer.from(hello.signature ?? '', 'base64'));
    // OpenSSH's words when StrictHostKeyChecking meets a key it was not told of.
    if (!trusted) throw new ReplicationError('Host key verification failed.');
    let key;
    try {
      key = sshPrivateKey(privateKey);
    } catch {
      throw new ReplicationError('Authentication failed.');
    }
    const challenge = Buffer.from(hello.challenge ?? '', 'base64');
    const { token } = await this.json<{ token: string }>('auth', {
      username,
      key_type: key.type,
      key_blob: publicBlobOf(key).toString('base64'),
      challenge: hello.challenge,
      signature: sshSign(key, authSigned(challenge, nonce, username)).toString('base64'),
    });
    this.token = token;
  }

  /** Retention's destroys, a dataset's names sorted in batches (zettarepl/snapshot/destroy.py:18-37); what went, `DATASET@NAME`. */
  async destroySnapshots(doomed: readonly SnapshotRef[]): Promise<string[]> {
    const gone: string[] = [];
    const byDataset = new Map<string, string[]>();
    for (const s of doomed) byDataset.set(s.dataset, [...(byDataset.get(s.dataset) ?? []), s.name]);
    for (const [dataset, names] of [...byDataset].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const sorted = [...names].sort();
      for (let i = 0; i < sorted.length; i += MAX_DESTROY_NAMES) {
        const batch = sorted.slice(i, i + MAX_DESTROY_NAMES);
        const { destroyed } = await this.json<{ destroyed: string[] }>('destroy-snapshots', { dataset, names: batch });
        gone.push(...destroyed);
      }
    }
    return gone;
  }

  recv(incoming: IncomingRecv, dir: string): Promise<{ id: string }> {
    const header = Buffer.from(JSON.stringify(incoming)).toString('base64url');
    return this.send('recv', Readable.from(archiveOf(dir)), { 'x-stor-recv': header }) as Promise<{ id: string }>;
  }
}

/**
 * The target's datasets inside the plan's world under a name no source dataset can have, so a
 * source and a target of the same name (tank/data → tank/data on the other box) stay apart.
 */
const THERE = '@target/';
const there = (id: string) => `${THERE}${id}`;
const here = (id: string) => id.slice(THERE.length);

/** A refusal planned over the merged world, naming the target's datasets by their own names. */
const unplanned = (err: ReplicationError) => new ReplicationError(err.message.replaceAll(THERE, ''));

function mergedWorld(local: ReplicationWorld, target: TargetListing): ReplicationWorld {
  return {
    datasets: [...local.datasets, ...target.datasets.map((d) => ({ ...d, id: there(d.id) }))],
    snapshots: [
      ...local.snapshots,
      ...target.snapshots.map((s) => ({ dataset: there(s.dataset), name: s.name, txg: s.txg })),
    ],
    listing: (id) => (id.startsWith(THERE) ? (target.listings[here(id)] ?? []) : local.listing(id)),
    parse: local.parse,
  };
}

/**
 * Runs the replication once to the appliance `remote` names, each source dataset in name order
 * (run.py:234-248), as runLocalReplication does on one appliance: the same plan, the same
 * progress, each snapshot received in one transaction on the target — a run cut midway leaves
 * the target with what it received, and the next run goes on from there. The task's retention
 * runs on the target as a LOCAL run's does (retention.ts's selection; the target destroys): before
 * each part's sends, less its incremental base (pre_retention.py:20-63), and after the run, ended
 * or failed (zettarepl.py:438-476).
 */
export async function runRemoteReplication(
  appliance: Appliance,
  spec: LocalReplicationSpec,
  remote: RemoteEndpoint,
  progress: ReplicationProgress,
): Promise<ReplicationResult> {
  if (!isLoopbackHost(remote.host))
    throw new ReplicationError(
      `stor's emulator replicates only to another stor serve on loopback (127.0.0.1, ::1, localhost), not to ${remote.host}`,
    );
  const target = new RemoteTarget(remote);
  await target.login();
  const planned: LocalReplicationSpec = { ...spec, targetDataset: there(spec.targetDataset) };
  const received: string[] = [];
  const destroyed: string[] = [];
  let sent = 0;
  let total = 0;
  try {
    for (const part of [...spec.sourceDatasets].sort()) {
      const local = await loadWorld(appliance, spec);
      let listing = await target.json<TargetListing>('list', { target: spec.targetDataset });
      let world = mergedWorld(local, listing);
      let plan;
      try {
        checkTarget(planned, world, part);
        const doomed = retentionBeforePart(spec, local.snapshots, listing.snapshots, part, appliance.now());
        if (doomed.length > 0) {
          destroyed.push(...(await target.destroySnapshots(doomed)));
          listing = await target.json<TargetListing>('list', { target: spec.targetDataset });
          world = mergedWorld(local, listing);
        }
        plan = planReplicationPart(planned, world, part);
      } catch (err) {
        throw err instanceof ReplicationError ? unplanned(err) : err;
      }
      for (const t of plan.destroy) await target.json('destroy', { dataset: here(t) });
      if (plan.error) throw unplanned(plan.error);
      if (plan.createParent !== null) await target.json('create', { parent: here(plan.createParent) });
      total += plan.steps.reduce((n, s) => n + s.sends.length, 0);
      const known = readonlyAfterPlan(world, plan);
      // handle_readonly (run.py:837-869), as run.ts's, each change sent to the target.
      const readonly = async (step: { target: string }) => {
        if (spec.readonly === 'IGNORE') return;
        const parent = step.target.slice(0, step.target.lastIndexOf('/'));
        const inherit = known.has(parent) && known.get(step.target) === false;
        known.set(step.target, true);
        if (!(known.get(parent) ?? false)) await target.json('readonly', { dataset: here(step.target), on: true });
        else if (inherit) await target.json('readonly', { dataset: here(step.target), on: false });
      };
      const datasets = appliance.store.read(() => listDatasets(appliance.store.db));
      for (const step of plan.steps) {
        let base = step.incrementalBase;
        for (const send of step.sends) {
          progress((100 * sent) / total, `Sending ${sent + 1} of ${total}: ${step.source}@${send.snapshot}`);
          for (const name of send.receives) {
            const source = local.records.find((s) => s.id === `${step.source}@${name}`)!;
            const incoming = incomingOf(
              source,
              datasets.find((d) => d.id === source.dataset),
            );
            const { id } = await target.recv(
              { snapshot: incoming, target: here(step.target), base },
              snapshotCopyDir(appliance, source.copy),
            );
            received.push(id);
            if (base === null) await readonly(step);
            base = name;
          }
          sent++;
        }
        await readonly(step);
      }
    }
  } catch (err) {
    if (err instanceof ReplicationError) destroyed.push(...(await remoteRetention(appliance, spec, target)));
    throw err;
  }
  destroyed.push(...(await remoteRetention(appliance, spec, target)));
  return { received, destroyed };
}

/**
 * `_run_remote_retention` (zettarepl/zettarepl.py:438-476) of this task: list the target, select as
 * a LOCAL run does, ask the target to destroy. zettarepl logs a failed listing or destroy and goes
 * on, the run's outcome unchanged: so does this, destroying nothing.
 */
async function remoteRetention(
  appliance: Appliance,
  spec: LocalReplicationSpec,
  target: RemoteTarget,
): Promise<string[]> {
  try {
    const listing = await target.json<TargetListing>('list', { target: spec.targetDataset });
    const local = await loadWorld(appliance, spec);
    return await target.destroySnapshots(
      replicationRetention(spec, local.snapshots, listing.snapshots, appliance.now()),
    );
  } catch (err) {
    if (err instanceof ReplicationError) return [];
    throw err;
  }
}
