import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stor } from '../../helpers/runbook.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** As helpers/server.ts's: only there to end a wait for a note that never comes. */
const SAFETY_MS = 120_000;

/**
 * stor serve writes its notes to stderr just after the line spawnServe waits for. Waited for up to
 * a safety bound, not a count of polls: a hundred polls of 50 ms are 5 s, which a loaded machine
 * can spend between the two writes.
 */
async function stderrOf(server: Awaited<ReturnType<typeof spawnServe>>, text: string): Promise<string> {
  const deadline = Date.now() + SAFETY_MS;
  while (!server.stderr().includes(text) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return server.stderr();
}

describe('stor serve --emulate truenas-25.10.1 (the built binary)', () => {
  it('stores every setting with the state, refuses POST /api/current with 405, and says what it emulates', async () => {
    const state = tempDir();
    let server = await spawnServe(state, ['--emulate', 'truenas-25.10.1']);
    expect(await stderrOf(server, 'emulating')).toContain('emulating truenas-25.10.1');
    const post = await fetch(`${server.url}/api/current`, { method: 'POST', body: '{}' });
    expect([post.status, post.headers.get('allow'), await post.text()]).toEqual([
      405,
      'GET',
      '405: Method Not Allowed',
    ]);

    const run = stor({
      STOR_HOME: tempDir(),
      STOR_CONFIG_DIR: tempDir(),
      STOR_URL: server.baseUrl,
      STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
    });
    const emulation = JSON.parse((await run(['call', 'stor.emulation'])).stdout);
    expect(emulation).toMatchObject({ emulate: 'truenas-25.10.1', lockout_rule: 'self-including' });
    // uid 950 keeps SYS_ADMIN under 25.10.1's rule (MW/utils/account/authenticator.py:253-256).
    expect(JSON.parse((await run(['whoami', '--json'])).stdout).account_attributes).toEqual([
      'LOCAL',
      'API_KEY',
      'SYS_ADMIN',
    ]);
    // --rpc http has nothing to talk to on a GET-only route.
    await run(['--rpc', 'http', 'whoami'], 3);

    // A restart without flags keeps the emulation (stored with the state); one flag changes one thing.
    await server.stop();
    server = await spawnServe(state, ['--http-rpc', 'served']);
    expect(await stderrOf(server, 'emulating')).toContain('emulating custom');
    expect((await fetch(`${server.url}/api/current`, { method: 'POST', body: '{}' })).status).not.toBe(405);
  });
});
