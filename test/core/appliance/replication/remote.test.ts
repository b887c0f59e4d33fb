/**
 * A replication to ANOTHER appliance, rehearsed offline: two real servers on loopback, the source's
 * engine (`runRemoteReplication`) talking to the target's `/_stor/zfs/` endpoints as zettarepl's
 * SSH transport would talk to the other box's `zfs recv` (docs/REPLICATION.md). The credentials are
 * what a keychaincredential SSH_CREDENTIALS entry holds: host:port, a user on the target whose
 * sshpubkey has the key pair's public key, the target's host key.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  ReplicationError,
  runRemoteReplication,
  type RemoteEndpoint,
} from '../../../../src/core/appliance/replication/remote.js';
import { generateRsaKeyPair } from '../../../../src/core/appliance/keychain/ssh-keys.js';
import { publicBlobOf, sshPrivateKey, sshSign } from '../../../../src/core/appliance/keychain/ssh-sign.js';
import { authSigned } from '../../../../src/core/appliance/replication/remote-protocol.js';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { startServer } from '../../../../src/core/server/server.js';
import { listSnapshots } from '../../../../src/core/store/snapshots.js';
import { replicationSpec, REPLICATION_SCHEMA, failureOf } from '../../../helpers/replication-spec.js';
import { startTestServer, type TestServer } from '../../../helpers/server.js';
import { ED25519_PRIVATE, ED25519_PUBLIC, OTHER_PUBLIC } from '../../../helpers/ssh-key-fixtures.js';

const la = (hour: number) => Date.UTC(2024, 0, 5, hour + 8, 0, 0);
const name = (hour: number) => `auto-2024-01-05_${String(hour).padStart(2, '0')}-00`;
const settings = { ...EMULATIONS['truenas-25.10.1'], keyLogin: 'plain' as const };

async function snap(s: TestServer, hour: number): Promise<void> {
  s.appliance.now = () => la(hour);
  await s.testAppliance.call(s.testAppliance.admin, 'pool.snapshot.create', {
    dataset: 'tank/src',
    naming_schema: REPLICATION_SCHEMA,
  });
}

const names = (s: TestServer, dataset: string) =>
  listSnapshots(s.appliance.store.db)
    .filter((x) => x.dataset === dataset)
    .map((x) => x.id.slice(x.id.indexOf('@') + 1));
const file = (s: TestServer, path: string) => join(s.stateDir, 'mnt', path);

/** What `GET /_stor/zfs/host-key` answers: the target's host key, as ssh-keyscan would print it. */
async function hostKey(target: TestServer): Promise<string> {
  const res = await fetch(`${target.url}/_stor/zfs/host-key`);
  expect(res.status).toBe(200);
  return res.text();
}

/** The server's SSH service started (stopped on a new appliance), its job's end awaited. */
async function startSsh(s: TestServer): Promise<void> {
  const t = s.testAppliance;
  await t.call(t.admin, 'core.set_options', { legacy_jobs: false });
  await t.call(t.admin, 'service.control', 'START', 'ssh');
}

/** Two servers: the source with tank/src and two snapshots of a file, the target with root holding the key. */
async function pair(): Promise<{ source: TestServer; target: TestServer; remote: RemoteEndpoint }> {
  const source = await startTestServer(settings);
  const target = await startTestServer(settings);
  await source.testAppliance.call(source.testAppliance.admin, 'pool.dataset.create', { name: 'tank/src' });
  writeFileSync(file(source, 'tank/src/a.txt'), 'one');
  await snap(source, 9);
  writeFileSync(file(source, 'tank/src/a.txt'), 'two');
  await snap(source, 10);
  const t = target.testAppliance;
  const [root] = await t.call<{ id: number }[]>(t.admin, 'user.query', [['username', '=', 'root']]);
  await t.call(t.admin, 'user.update', root!.id, { sshpubkey: ED25519_PUBLIC });
  await startSsh(target);
  const remote: RemoteEndpoint = {
    host: '127.0.0.1',
    port: target.port,
    username: 'root',
    privateKey: ED25519_PRIVATE,
    remoteHostKey: await hostKey(target),
    connectTimeout: 10,
  };
  return { source, target, remote };
}

/**
 * A loopback TCP relay to `port` that cuts a connection (both ends) once more than `cutAfter` bytes
 * went from the client to the server: a transfer dying midway, whatever the machine's speed.
 */
async function cuttingRelay(port: number, cutAfter: number): Promise<{ port: number; cuts: () => number }> {
  let cuts = 0;
  const sockets = new Set<Socket>();
  const relay = createServer((client) => {
    const server = connect(port, '127.0.0.1');
    sockets.add(client).add(server);
    let sent = 0;
    const cut = () => {
      client.destroy();
      server.destroy();
    };
    client.on('data', (chunk: Buffer) => {
      sent += chunk.length;
      if (sent > cutAfter) {
        cuts++;
        cut();
      } else server.write(chunk);
    });
    server.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('close', cut).on('error', cut);
    server.on('close', cut).on('error', cut);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => relay.close(resolve));
  });
  return { port: (relay.address() as { port: number }).port, cuts: () => cuts };
}

const failure = (p: Promise<unknown>) => failureOf(p, ReplicationError);

/** The login RemoteTarget makes, by hand: the host's challenge signed with the user's key; the session token. */
async function loginAs(target: TestServer, username: string, privateKey: string): Promise<string> {
  const post = async (path: string, body: object) =>
    (await (
      await fetch(`${target.url}/_stor/zfs/${path}`, { method: 'POST', body: JSON.stringify(body) })
    ).json()) as Record<string, string>;
  const nonce = randomBytes(32);
  const hello = await post('hello', { nonce: nonce.toString('base64') });
  const key = sshPrivateKey(privateKey);
  const challenge = Buffer.from(hello.challenge!, 'base64');
  const { token } = await post('auth', {
    username,
    key_type: key.type,
    key_blob: publicBlobOf(key).toString('base64'),
    challenge: hello.challenge,
    signature: sshSign(key, authSigned(challenge, nonce, username)).toString('base64'),
  });
  return token!;
}

describe('a replication to another stor serve on loopback', () => {
  it('sends every snapshot with its files to the other server, then only the new ones', async () => {
    const { source, target, remote } = await pair();
    const progress: string[] = [];
    const result = await runRemoteReplication(source.appliance, replicationSpec(), remote, (_p, text) =>
      progress.push(text),
    );
    expect(result.received).toEqual([`tank/dst@${name(9)}`, `tank/dst@${name(10)}`]);
    expect(names(target, 'tank/dst')).toEqual([name(9), name(10)]);
    expect(readFileSync(file(target, 'tank/dst/a.txt'), 'utf8')).toBe('two');
    expect(progress).toEqual([`Sending 1 of 2: tank/src@${name(9)}`, `Sending 2 of 2: tank/src@${name(10)}`]);
    const guid = (s: TestServer, id: string) => listSnapshots(s.appliance.store.db).find((x) => x.id === id)?.guid;
    expect(guid(target, `tank/dst@${name(9)}`)).toBe(guid(source, `tank/src@${name(9)}`));
    // Nothing of the source's own datasets appears on the target.
    expect(names(source, 'tank/dst')).toEqual([]);

    writeFileSync(file(source, 'tank/src/a.txt'), 'three');
    await snap(source, 11);
    const again = await runRemoteReplication(source.appliance, replicationSpec(), remote, () => {});
    expect(again.received).toEqual([`tank/dst@${name(11)}`]);
    expect(names(target, 'tank/dst')).toEqual([name(9), name(10), name(11)]);
    expect(readFileSync(file(target, 'tank/dst/a.txt'), 'utf8')).toBe('three');
  });

  it('refuses a target that has data and no common snapshot, in zettarepl words, over the wire', async () => {
    const { source, target, remote } = await pair();
    await target.testAppliance.call(target.testAppliance.admin, 'pool.dataset.create', { name: 'tank/dst' });
    writeFileSync(file(target, 'tank/dst/mine.txt'), 'keep');
    const err = await failure(runRemoteReplication(source.appliance, replicationSpec(), remote, () => {}));
    expect(err.message).toMatch(/^Target dataset 'tank\/dst' does not have matching snapshots but has data/);
    expect(readFileSync(file(target, 'tank/dst/mine.txt'), 'utf8')).toBe('keep');
  });

  it('logs in with the RSA key pair keychaincredential.generate_ssh_key_pair makes', async () => {
    const { source, target, remote } = await pair();
    const pairOf = generateRsaKeyPair('root@source');
    const t = target.testAppliance;
    const [root] = await t.call<{ id: number }[]>(t.admin, 'user.query', [['username', '=', 'root']]);
    await t.call(t.admin, 'user.update', root!.id, { sshpubkey: pairOf.public_key });
    const result = await runRemoteReplication(
      source.appliance,
      replicationSpec(),
      { ...remote, privateKey: pairOf.private_key },
      () => {},
    );
    expect(result.received).toEqual([`tank/dst@${name(9)}`, `tank/dst@${name(10)}`]);
  });

  it('is refused while the other server’s SSH service is stopped, as a connection to no sshd is refused', async () => {
    const { source, target, remote } = await pair();
    const t = target.testAppliance;
    await t.call(t.admin, 'service.control', 'STOP', 'ssh');
    const err = await failure(runRemoteReplication(source.appliance, replicationSpec(), remote, () => {}));
    expect(err.message).toBe('[Errno 111] Connection refused');
    expect(names(target, 'tank/dst')).toEqual([]);
    // ssh-keyscan finds no key to print either.
    expect((await fetch(`${target.url}/_stor/zfs/host-key`)).status).toBe(503);
  });

  it('a target below a volume of the other server fails in ZFS’s words, never with that server’s paths', async () => {
    const { source, target, remote } = await pair();
    const t = target.testAppliance;
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/vol', type: 'VOLUME', volsize: 16 * 1024 * 1024 });
    const err = await failure(
      runRemoteReplication(source.appliance, replicationSpec({ targetDataset: 'tank/vol/dst' }), remote, () => {}),
    );
    expect(err.message).toBe('cannot receive new filesystem stream: invalid parent dataset');
    expect(err.message).not.toContain(target.stateDir);
  });

  it('is refused when the target user does not hold the key pair, as SSH refuses the login', async () => {
    const { source, target, remote } = await pair();
    const t = target.testAppliance;
    const [root] = await t.call<{ id: number }[]>(t.admin, 'user.query', [['username', '=', 'root']]);
    await t.call(t.admin, 'user.update', root!.id, { sshpubkey: OTHER_PUBLIC });
    const err = await failure(runRemoteReplication(source.appliance, replicationSpec(), remote, () => {}));
    expect(err.message).toBe('Authentication failed.');
    expect(names(target, 'tank/dst')).toEqual([]);
  });

  it('is refused when the server does not hold the host key the credentials name', async () => {
    const { source, target, remote } = await pair();
    const other = await startTestServer(settings);
    await startSsh(other);
    const err = await failure(
      runRemoteReplication(
        source.appliance,
        replicationSpec(),
        { ...remote, remoteHostKey: await hostKey(other) },
        () => {},
      ),
    );
    expect(err.message).toBe('Host key verification failed.');
    expect(names(target, 'tank/dst')).toEqual([]);
  });

  it('receives nothing without a login: the endpoints answer 401', async () => {
    const { target } = await pair();
    for (const path of ['recv', 'list', 'destroy', 'destroy-snapshots']) {
      const res = await fetch(`${target.url}/_stor/zfs/${path}`, {
        method: 'POST',
        headers: { authorization: 'Bearer forged' },
        body: JSON.stringify({ target: 'tank/dst', dataset: 'tank' }),
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: 'Authentication failed.', kind: 'refused' });
    }
    expect(names(target, 'tank/dst')).toEqual([]);
  });

  it('destroys for retention only a bounded list of well-formed names, skipping a held snapshot (destroy.py:15, 53-61)', async () => {
    const { source, target, remote } = await pair();
    await runRemoteReplication(source.appliance, replicationSpec(), remote, () => {});
    const t = target.testAppliance;
    await t.call(t.admin, 'pool.snapshot.hold', `tank/dst@${name(9)}`);
    const token = await loginAs(target, 'root', ED25519_PRIVATE);
    const destroy = (body: object) =>
      fetch(`${target.url}/_stor/zfs/destroy-snapshots`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
    const tooMany = Array.from({ length: 101 }, (_, i) => `s${i}`);
    for (const body of [
      { dataset: 'tank/dst', names: tooMany },
      { dataset: 'tank/dst', names: [] },
      { dataset: 'tank/dst', names: ['a/../b'] },
      { dataset: '../etc', names: [name(9)] },
    ]) {
      const res = await destroy(body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { kind: string }).kind).toBe('refused');
    }
    const res = await destroy({ dataset: 'tank/dst', names: [name(9), name(10), 'gone'] });
    expect(await res.json()).toEqual({ destroyed: [`tank/dst@${name(10)}`] });
    expect(names(target, 'tank/dst')).toEqual([name(9)]);
  });

  it('never sends to a host that is not loopback', async () => {
    const { source, remote } = await pair();
    const err = await failure(
      runRemoteReplication(source.appliance, replicationSpec(), { ...remote, host: '192.0.2.1' }, () => {}),
    );
    expect(err.message).toMatch(/only to another stor serve on loopback/);
  });

  it('keeps a host key of its own in the state directory, private to its owner', async () => {
    const { target } = await pair();
    const line = await hostKey(target);
    expect(line).toMatch(/^ssh-ed25519 [A-Za-z0-9+/]+=*\n$/);
    expect(await hostKey(target)).toBe(line);
    const { statSync } = await import('node:fs');
    expect(statSync(join(target.stateDir, 'ssh_host_ed25519_key')).mode & 0o777).toBe(0o600);
  });

  it('resumes after the target server went away mid-run: the target ends with exactly the source snapshots', async () => {
    const { source, target, remote } = await pair();
    // The target server is closed as the second snapshot is about to go: the first is in, the run fails.
    const err = await failure(
      runRemoteReplication(source.appliance, replicationSpec(), remote, (_p, text) => {
        if (text.startsWith('Sending 2')) void target.close(0);
      }),
    );
    expect(err.message).toMatch(/Connection refused|Connection reset|closed/);
    expect(names(target, 'tank/dst')).toEqual([name(9)]);
    // The same appliance served again (as `stor serve` restarted on its state directory).
    const again = await startServer({
      appliance: target.appliance,
      host: '127.0.0.1',
      port: 0,
      minuteTimer: () => ({ stop: () => undefined }),
    });
    try {
      const result = await runRemoteReplication(
        source.appliance,
        replicationSpec(),
        { ...remote, port: again.port },
        () => {},
      );
      expect(result.received).toEqual([`tank/dst@${name(10)}`]);
      expect(names(target, 'tank/dst')).toEqual(names(source, 'tank/src'));
      expect(readFileSync(file(target, 'tank/dst/a.txt'), 'utf8')).toBe('two');
    } finally {
      await again.close(100);
    }
  });

  it('a transfer cut midway leaves the target without that snapshot or its partial files, and the next run completes it', async () => {
    const { source, target, remote } = await pair();
    // A third snapshot with 4 MiB in it: its stream is cut after 1 MiB.
    writeFileSync(file(source, 'tank/src/big.bin'), Buffer.alloc(4 * 1024 * 1024, 7));
    await snap(source, 11);
    const relay = await cuttingRelay(target.port, 1024 * 1024);
    const err = await failure(
      runRemoteReplication(source.appliance, replicationSpec(), { ...remote, port: relay.port }, () => {}),
    );
    expect(relay.cuts()).toBe(1);
    expect(err.message).toMatch(/Connection reset/);
    expect(names(target, 'tank/dst')).toEqual([name(9), name(10)]);

    const result = await runRemoteReplication(source.appliance, replicationSpec(), remote, () => {});
    expect(result.received).toEqual([`tank/dst@${name(11)}`]);
    expect(names(target, 'tank/dst')).toEqual(names(source, 'tank/src'));
    expect(readFileSync(file(target, 'tank/dst/big.bin')).equals(Buffer.alloc(4 * 1024 * 1024, 7))).toBe(true);
    // Nothing half-received stayed (the cut receive cleaned up before the pool let the next one
    // in): each snapshot has its copy, and there is no other.
    const copies = readdirSync(join(target.stateDir, 'snapshots')).filter((n) => !n.startsWith('.'));
    expect(copies.sort()).toEqual(
      listSnapshots(target.appliance.store.db)
        .map((x) => x.copy)
        .sort(),
    );
  });
});
