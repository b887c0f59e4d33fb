/**
 * Tokens live in the server's memory, so what one user can make of them is
 * bounded. 25.10.1 keeps every token until it expires or is used, with no limit on their number
 * or on `attrs` (MW/plugins/auth.py:51-66, MW/api/v25_10_1/auth.py:213-221 "XXX should we have
 * some actual validation here?"); the emulator bounds both and forgets expired tokens.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import {
  MAX_TOKEN_ATTRS_BYTES,
  MAX_TOKENS_PER_SESSION,
  MAX_TOKENS_PER_USER,
} from '../../../../src/core/appliance/session/tokens.js';
import { createUserWithKey } from '../../../helpers/appliance.js';
import { connectWs, loggedInWs, startTestServer, type WsClient } from '../../../helpers/server.js';

const BIG_ATTRS = { blob: 'x'.repeat(60_000) };
const FOREVER = 1_000_000_000;

async function makeTokens(client: WsClient, count: number, ttl = FOREVER): Promise<string[]> {
  const made: string[] = [];
  for (let i = 0; i < count; i++)
    made.push(await client.result<string>('auth.generate_token', [ttl, {}, true, i % 2 === 0]));
  return made;
}

describe('tokens one user can make are bounded in number and size, and expired ones are forgotten', () => {
  it('a token with 60 kB of attrs is refused with a clear error and nothing is kept', async () => {
    const server = await startTestServer();
    const { key } = await createUserWithKey(server.testAppliance, 'low', { privilegeRoles: ['READONLY_ADMIN'] });
    const low = await loggedInWs(server.rpcUrl, key);
    const reply = await low.call('auth.generate_token', [FOREVER, BIG_ATTRS, true, false]);
    expect(reply.error).toMatchObject({
      code: -32602,
      data: { errname: 'EINVAL', extra: [['attrs', expect.stringContaining(`at most ${MAX_TOKEN_ATTRS_BYTES}`), 22]] },
    });
    expect(server.testAppliance.appliance.tokens.size).toBe(0);
    // Attrs just under the bound are still accepted.
    expect(
      await low.result('auth.generate_token', [FOREVER, { blob: 'x'.repeat(MAX_TOKEN_ATTRS_BYTES - 20) }]),
    ).toMatch(/^[\w-]{64}$/);
  });

  it('one session holds at most MAX_TOKENS_PER_SESSION live tokens; using a single-use one makes room', async () => {
    const server = await startTestServer();
    const { key } = await createUserWithKey(server.testAppliance, 'low', { privilegeRoles: ['READONLY_ADMIN'] });
    const low = await loggedInWs(server.rpcUrl, key);
    const made = await makeTokens(low, MAX_TOKENS_PER_SESSION);
    const refused = await low.call('auth.generate_token', [FOREVER, {}]);
    expect(refused.error).toMatchObject({
      code: -32001,
      data: { errname: 'EAGAIN', reason: expect.stringContaining(`${MAX_TOKENS_PER_SESSION} live tokens`) },
    });
    // made[0] is single-use: logging in with it spends it, which frees a place.
    expect(await (await connectWs(server.rpcUrl)).result('auth.login_with_token', [made[0]])).toBe(true);
    expect(await low.result('auth.generate_token', [FOREVER, {}])).toMatch(/^[\w-]{64}$/);
  });

  it('one user holds at most MAX_TOKENS_PER_USER live tokens across sessions', async () => {
    const server = await startTestServer();
    const { key } = await createUserWithKey(server.testAppliance, 'low', { privilegeRoles: ['READONLY_ADMIN'] });
    const sessions = Math.ceil(MAX_TOKENS_PER_USER / MAX_TOKENS_PER_SESSION);
    for (let s = 0; s < sessions; s++) {
      const client = await loggedInWs(server.rpcUrl, key);
      await makeTokens(client, Math.min(MAX_TOKENS_PER_SESSION, MAX_TOKENS_PER_USER - s * MAX_TOKENS_PER_SESSION));
      client.close();
    }
    const fresh = await loggedInWs(server.rpcUrl, key);
    const refused = await fresh.call('auth.generate_token', [FOREVER, {}]);
    expect(refused.error).toMatchObject({
      code: -32001,
      data: { errname: 'EAGAIN', reason: expect.stringContaining(`${MAX_TOKENS_PER_USER} live tokens`) },
    });
    expect(server.testAppliance.appliance.tokens.size).toBe(MAX_TOKENS_PER_USER);
    // Another user is not held back by this one.
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    expect(await admin.result('auth.generate_token', [FOREVER, {}])).toMatch(/^[\w-]{64}$/);
  });

  it('expired tokens are forgotten: making many short-lived ones never fills the table', async () => {
    const server = await startTestServer();
    const { key } = await createUserWithKey(server.testAppliance, 'low', { privilegeRoles: ['READONLY_ADMIN'] });
    const low = await loggedInWs(server.rpcUrl, key);
    // ttl 0 has expired as soon as it is made, so none of these counts against the bound or stays.
    await makeTokens(low, MAX_TOKENS_PER_SESSION * 2, 0);
    expect(server.testAppliance.appliance.tokens.size).toBeLessThanOrEqual(1);
  });

  it('a download refused its token (a file name too long for attrs) leaves no job waiting forever for a reader', async () => {
    const server = await startTestServer(EMULATIONS['truenas-25.10.1']);
    writeFileSync(join(server.stateDir, 'mnt', 'tank', 'a.txt'), 'a');
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    await admin.result('core.set_options', [{ legacy_jobs: false }]);
    const reply = await admin.call('core.download', [
      'filesystem.get',
      ['/mnt/tank/a.txt'],
      'n'.repeat(MAX_TOKEN_ATTRS_BYTES),
    ]);
    expect(reply.error).toMatchObject({
      code: -32602,
      data: { extra: [['attrs', expect.stringContaining(`at most ${MAX_TOKEN_ATTRS_BYTES}`), 22]] },
    });
    const [job] = await admin.result<{ id: number; method: string }[]>('core.get_jobs', [
      [['method', '=', 'filesystem.get']],
    ]);
    // The job ends by itself (its pipe was closed); without that, this wait never returns.
    const waited = await admin.call('core.job_wait', [job!.id]);
    expect(waited.error?.data?.reason).toContain('Broken pipe');
    expect(server.testAppliance.appliance.tokens.size).toBe(0);
  });
});
