import { existsSync, linkSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loggedInWs, startTestServer, type RpcReply, type WsClient } from '../../../helpers/server.js';

const DIRS = 20;
const FILES_PER_DIR = 1000;
const FILE_BYTES = 10;

/**
 * Pings from `pinger`, one after another, until `work` is answered (at most 20,000 times): how many
 * were answered before it. Server and client share this process's event loop, so each answered
 * ping is a turn the walk gave up to another client: a count of turns, not a clock.
 */
async function pingsWhile(pinger: WsClient, work: Promise<RpcReply>): Promise<{ reply: RpcReply; before: number }> {
  let answered = false;
  const done = work.then((reply) => {
    answered = true;
    return reply;
  });
  let before = 0;
  for (let i = 0; i < 20_000 && !answered; i++) {
    expect((await pinger.call('core.ping')).result).toBe('pong');
    if (!answered) before++;
  }
  return { reply: await done, before };
}

describe('a walk over a large tree does not block the other clients', () => {
  it('pool.dataset.query and a recursive pool.dataset.delete over 20,000 files: pings are answered meanwhile', async () => {
    const server = await startTestServer();
    const t = server.testAppliance;
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/big' });
    const root = join(server.stateDir, 'mnt/tank/big');
    // One file outside the dataset, and 20,000 names for it inside: the walks visit names, and a
    // hard link costs one system call where a new file on a loaded disk costs 15-30 times that
    // (20,000 files took most of a minute to make while another suite ran).
    const content = join(server.stateDir, 'content');
    writeFileSync(content, 'x'.repeat(FILE_BYTES));
    for (let d = 0; d < DIRS; d++) {
      mkdirSync(join(root, `d${d}`));
      for (let f = 0; f < FILES_PER_DIR; f++) linkSync(content, join(root, `d${d}`, `f${f}`));
    }
    const caller = await loggedInWs(server.rpcUrl, server.adminKey);
    const bystander = await loggedInWs(server.rpcUrl, server.adminKey);

    // Every file is counted, and the bystander was answered all along: at least ten times per
    // directory of 1,000 files (a walk that held the event loop is answered once at most, one that
    // gave it up once per directory about once per directory; this one, over a thousand times in
    // all). How long a ping waits is measured by bench/run.mjs (guards), against the walk's length.
    const listed = await pingsWhile(
      bystander,
      caller.call('pool.dataset.query', [[['id', '=', 'tank/big']], { get: true }]),
    );
    expect((listed.reply.result as { used: { parsed: number } }).used.parsed).toBe(DIRS * FILES_PER_DIR * FILE_BYTES);
    expect(listed.before).toBeGreaterThanOrEqual(10 * DIRS);

    const deleted = await pingsWhile(bystander, caller.call('pool.dataset.delete', ['tank/big', { recursive: true }]));
    expect(deleted.reply.error).toBeUndefined();
    expect(existsSync(root)).toBe(false);
    expect(deleted.before).toBeGreaterThanOrEqual(10 * DIRS);
  });
});
