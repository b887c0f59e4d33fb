/**
 * Hostile review of `--ignore-not-found`: it forgives only NOT_FOUND, never a refusal for
 * want of a role nor a lost connection.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createUserWithKey } from '../../helpers/appliance.js';
import { spawnStor } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { startTestServer } from '../../helpers/server.js';

describe('--ignore-not-found hides nothing but a missing thing', () => {
  it('a caller without the read role: every delete fails (exit not 0), none says "nothing to delete"', async () => {
    const server = await startTestServer();
    const { key } = await createUserWithKey(server.testAppliance, 'nora', { privilegeRoles: ['SHARING_READ'] });
    const env = { ...clientEnv(), STOR_URL: server.url, STOR_API_KEY: key };
    for (const argv of [
      ['user', 'delete', 'ghost'],
      ['group', 'delete', 'ghost'],
      ['dataset', 'delete', 'tank/ghost'],
      ['snapshot', 'delete', 'tank@ghost'],
      ['privilege', 'delete', 'ghost'],
    ]) {
      const run = await spawnStor([...argv, '--yes', '--ignore-not-found', '--json'], { env });
      expect([argv.join(' '), run.code === 0, run.stdout.includes('"found":false')]).toEqual([
        argv.join(' '),
        false,
        false,
      ]);
    }
  });

  it('a target that is not there (connection refused, or dropped at once): not forgiven', async () => {
    const dead = createServer((s) => s.destroy());
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const port = (dead.address() as { port: number }).port;
    const env = { ...clientEnv(), STOR_URL: `http://127.0.0.1:${port}`, STOR_API_KEY: `1-${'k'.repeat(64)}` };
    const run = await spawnStor(['user', 'delete', 'ghost', '--yes', '--ignore-not-found'], { env });
    dead.close();
    expect(run.code).not.toBe(0);
    expect(run.stderr).not.toContain('nothing to delete');
  });
});
