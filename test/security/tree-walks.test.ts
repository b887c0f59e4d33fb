import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { loggedInWs, startTestServer, type RpcReply, type WsClient } from '../helpers/server.js';

const DIRS = 20;
const FILES_PER_DIR = 1000;
const FILE_BYTES = 10;
// Availability, not speed: generous.
const PING_BOUND_MS = 500;

/** Pings from `pinger` until `work` is answered (at most 20,000 times); how many were answered before it, and the slowest. */
async function pingsWhile(pinger: WsClient, work: Promise<RpcReply>): Promise<{ reply: RpcReply; before: number; slowest: number }> {
  let answered = false;
  const done = work.then((reply) => {
    answered = true;
    return reply;
  });
  let before = 0;
  let slowest = 0;
  for (let i = 0; i < 20_000 && !answered; i++) {
    const t0 = performance.now();
    expect((await pinger.call('core.ping')).result).toBe('pong');
    slowest = Math.max(slowest, performance.now() - t0);
    if (!answered) before++;
  }
  return { reply: await done, before, slowest };
}

describe('a walk over a large tree does not block the other clients', () => {
  it('pool.dataset.query and a recursive pool.dataset.delete over 20,000 files: pings are answered meanwhile', async () => {
    const server = await startTestServer();
    const t = server.testAppliance;
    await t.call(t.admin, 'pool.dataset.create', { name: 'tank/big' });
    const root = join(server.stateDir, 'mnt/tank/big');
    for (let d = 0; d < DIRS; d++) {
      mkdirSync(join(root, `d${d}`));
      for (let f = 0; f < FILES_PER_DIR; f++) writeFileSync(join(root, `d${d}`, `f${f}`), 'x'.repeat(FILE_BYTES));
    }
    const caller = await loggedInWs(server.rpcUrl, server.adminKey);
    const bystander = await loggedInWs(server.rpcUrl, server.adminKey);

    const listed = await pingsWhile(bystander, caller.call('pool.dataset.query', [[['id', '=', 'tank/big']], { get: true }]));
    // Behaviour kept: every file is counted.
    expect((listed.reply.result as { used: { parsed: number } }).used.parsed).toBe(DIRS * FILES_PER_DIR * FILE_BYTES);
    expect(listed.before).toBeGreaterThan(0);
    expect(listed.slowest).toBeLessThan(PING_BOUND_MS);

    const deleted = await pingsWhile(bystander, caller.call('pool.dataset.delete', ['tank/big', { recursive: true }]));
    expect(deleted.reply.error).toBeUndefined();
    expect(existsSync(root)).toBe(false);
    expect(deleted.before).toBeGreaterThan(0);
    expect(deleted.slowest).toBeLessThan(PING_BOUND_MS);
  });
});
