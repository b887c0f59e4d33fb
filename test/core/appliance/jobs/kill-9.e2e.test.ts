import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { sweepStrayUploads } from '../../../../src/core/appliance/jobs/stray-uploads.js';
import { spawnStor } from '../../../helpers/bin.js';
import { spawnServe, type ServeProcess } from '../../../helpers/serve-process.js';
import { SAFETY_MS, loggedInWs, type Message } from '../../../helpers/server.js';
import { tempDir } from '../../../helpers/temp-dir.js';
import { integrity } from '../../../helpers/database.js';

/*
 * `kill -9` of the built `stor serve` in the middle of writing, then a restart on the same state:
 * the database opens and is intact, an interrupted upload leaves nothing behind, and an
 * interrupted privilege update is either wholly there or not at all.
 */

const BOUNDARY = 'kill-9-boundary-81d3';

/** `stor call` against `server` as its administrator, from a client machine of its own. */
async function call(server: ServeProcess, ...args: string[]) {
  const env = {
    STOR_HOME: tempDir('stor-rel-client-'),
    STOR_CONFIG_DIR: tempDir('stor-rel-config-'),
    STOR_URL: server.baseUrl,
    STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
  };
  return spawnStor(args, { env });
}

/** Files below `dir` whose name is an upload's temporary file. */
function strayTemps(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .map(String)
    .filter((p) => /(^|\/)\.stor-put-[^/]*\.part$/.test(p));
}

async function killNine(server: ServeProcess): Promise<void> {
  const code = await server.stop('SIGKILL');
  expect(code).toBeNull();
  expect(server.child.signalCode).toBe('SIGKILL');
}

describe('kill -9 of stor serve, then a restart on the same state', () => {
  it('during an upload: the database opens, no target, and the temporary file is swept at start-up', async () => {
    const state = tempDir('stor-rel-kill-upload-');
    const server = await spawnServe(state);
    const key = readFileSync(server.adminKeyFile, 'utf8').trim();
    const dir = join(state, 'mnt/tank/killed');
    const target = join(dir, 'big.bin');

    // A 64 MiB upload over a raw socket, of which only the first few MiB are ever sent.
    const total = 64 * 1024 * 1024;
    const head = Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="data"\r\n\r\n` +
        `${JSON.stringify({ method: 'filesystem.put', params: ['/mnt/tank/killed/big.bin', { mode: 420 }] })}\r\n` +
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    onTestFinished(() => void socket.destroy());
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST /_upload/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${head.length + total + tail.length}\r\n\r\n`,
    );
    socket.write(head);
    const chunk = Buffer.alloc(256 * 1024, 0x5a);
    const send = async (bytes: number) => {
      for (let sent = 0; sent < bytes; sent += chunk.length) {
        if (!socket.write(chunk)) await new Promise((resolve) => socket.once('drain', resolve));
      }
    };

    // Slowly: 1 MiB, then wait for the temporary file; 1 MiB more, then wait until bytes reached it.
    await send(1024 * 1024);
    await vi.waitFor(() => expect(existsSync(dir) && strayTemps(dir).length).toBe(1), {
      timeout: SAFETY_MS,
      interval: 10,
    });
    const [temp] = strayTemps(dir);
    expect(temp).toMatch(new RegExp(`^\\.stor-put-${server.child.pid}-[0-9a-f-]{36}\\.part$`));
    await send(1024 * 1024);
    await vi.waitFor(() => expect(statSync(join(dir, temp!)).size).toBeGreaterThan(0), {
      timeout: SAFETY_MS,
      interval: 10,
    });

    await killNine(server);
    socket.destroy();
    // What the killed process left: a partial temporary file, and no target.
    expect(strayTemps(dir)).toEqual([temp]);
    expect(existsSync(target)).toBe(false);

    const restarted = await spawnServe(state);
    // The sweep runs before the server listens: nothing is left by the time it answers.
    expect(strayTemps(join(state, 'mnt'))).toEqual([]);
    expect(existsSync(target)).toBe(false);
    expect(restarted.stderr()).toContain('removed 1 temporary file(s) of interrupted uploads');

    const ping = await call(restarted, 'call', 'core.ping');
    expect(ping.stderr).toBe('');
    expect(ping.code).toBe(0);
    expect(JSON.parse(ping.stdout)).toBe('pong');
    const privileges = await call(restarted, 'call', 'privilege.query', '[]', '{"select":["id","name"]}');
    expect(privileges.code).toBe(0);
    expect(JSON.parse(privileges.stdout)).toEqual([
      { id: 1, name: 'Local Administrator' },
      { id: 2, name: 'Read-Only Administrator' },
      { id: 3, name: 'Sharing Administrator' },
    ]);
    const stat = await call(restarted, 'call', 'filesystem.stat', '/mnt/tank/killed/big.bin');
    expect(stat.code).toBe(1);
    expect(stat.stderr).toContain('[ENOENT] Path /mnt/tank/killed/big.bin not found');
    expect(integrity(state)).toBe('ok');
    expect(await restarted.stop()).toBe(0);
  });

  it('while a client hammers privilege.update: the privilege is wholly one update, never a mix', async () => {
    const state = tempDir('stor-rel-kill-privilege-');
    const server = await spawnServe(state);
    const LISTS = [['READONLY_ADMIN'], ['SHARING_ADMIN', 'FILESYSTEM_DATA_READ', 'DATASET_READ']];
    // Update i sets every field from i: name, roles and web_shell all say which update it was.
    const update = (i: number) => ({ name: `hammered-${i}`, roles: LISTS[i % 2], web_shell: i % 2 === 0 });

    const created = await call(server, 'call', 'privilege.create', JSON.stringify({ ...update(0), local_groups: [] }));
    expect(created.code).toBe(0);
    const id = JSON.parse(created.stdout).id as number;

    const client = await loggedInWs(server.rpcUrl, readFileSync(server.adminKeyFile, 'utf8').trim());
    const MAX = 5000;
    const WINDOW = 10; // under the 20-calls-in-flight limit: every update is a real write
    let sent = 0;
    const acknowledged: number[] = [];
    let failed: Message | undefined;
    const sendNext = () => {
      if (sent >= MAX) return;
      sent++;
      client.send({ jsonrpc: '2.0', id: sent, method: 'privilege.update', params: [id, update(sent)] });
    };
    client.ws.on('message', (data) => {
      const msg = JSON.parse(data.toString()) as Message;
      if (typeof msg.id !== 'number') return;
      if (msg.error) failed ??= msg;
      else acknowledged.push(msg.id);
      sendNext();
    });
    for (let i = 0; i < WINDOW; i++) sendNext();

    // Kill it mid-stream, with updates in flight, once a good number were acknowledged.
    await vi.waitFor(() => expect(acknowledged.length).toBeGreaterThanOrEqual(200), {
      timeout: SAFETY_MS * 2,
      interval: 5,
    });
    await killNine(server);
    expect(failed).toBeUndefined();
    const lastAcknowledged = Math.max(...acknowledged);
    expect(sent).toBeLessThan(MAX);
    expect(sent).toBeGreaterThan(lastAcknowledged);

    const restarted = await spawnServe(state);
    const [after] = JSON.parse(
      (await call(restarted, 'call', 'privilege.query', JSON.stringify([['id', '=', id]]))).stdout,
    ) as {
      name: string;
      roles: string[];
      web_shell: boolean;
    }[];
    const k = Number(/^hammered-(\d+)$/.exec(after!.name)?.[1]);
    // An acknowledged update survives; nothing newer than what was sent appears; every field is from update k.
    expect(k).toBeGreaterThanOrEqual(lastAcknowledged);
    expect(k).toBeLessThanOrEqual(sent);
    expect({ name: after!.name, roles: after!.roles, web_shell: after!.web_shell }).toEqual(update(k));

    const list = await call(restarted, '--json', 'privilege', 'list');
    expect(list.stderr).toBe('');
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).map((p: { id: number; name: string }) => [p.id, p.name])).toEqual([
      [1, 'Local Administrator'],
      [2, 'Read-Only Administrator'],
      [3, 'Sharing Administrator'],
      [id, `hammered-${k}`],
    ]);
    expect(integrity(state)).toBe('ok');
    expect(await restarted.stop()).toBe(0);
  });

  it('the start-up sweep removes only temporary files of dead processes, and follows no symlink', () => {
    const mnt = join(tempDir('stor-rel-sweep-'), 'mnt');
    const outside = tempDir('stor-rel-sweep-outside-');
    mkdirSync(join(mnt, 'tank/deep/er'), { recursive: true });
    // A process id that has just ended.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const name = (pid?: number) => `.stor-put-${pid === undefined ? '' : `${pid}-`}${randomUUID()}.part`;
    const deadHere = join(mnt, 'tank/deep/er', name(dead));
    const deadTop = join(mnt, 'tank', name(dead));
    const live = join(mnt, 'tank/deep', name(process.pid));
    const untaggedFresh = join(mnt, 'tank', name());
    const lookalike = join(mnt, 'tank', `.stor-put-${dead}-not-a-uuid.part`);
    const beyondLink = join(outside, name(dead));
    for (const f of [deadHere, deadTop, live, untaggedFresh, lookalike, beyondLink]) writeFileSync(f, 'partial');
    symlinkSync(outside, join(mnt, 'tank/link-out'));
    symlinkSync('/', join(mnt, 'tank/link-root'));
    symlinkSync('../..', join(mnt, 'tank/deep/loop'));

    expect(sweepStrayUploads(mnt).sort()).toEqual([deadHere, deadTop].sort());
    for (const kept of [live, untaggedFresh, lookalike, beyondLink]) expect(existsSync(kept), kept).toBe(true);
    // An untagged file (an older version's) goes once it has been idle for an hour.
    expect(sweepStrayUploads(mnt, Date.now() + 2 * 60 * 60 * 1000)).toEqual([untaggedFresh]);
  });
});
