/**
 * `--targets`: each target logs in with its own profile's key and user, and a method name that is
 * an Object.prototype property is refused, not an internal error. Each test failed before its fix.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { ALICE_PASSWORD as PASSWORD, stateWithAlice } from '../../helpers/appliance.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { EMBEDDED_MEANT } from '../../helpers/embedded-meant.js';

describe('stor call --targets with a method name that is an Object.prototype property', () => {
  it('toString, constructor, __proto__: refused as methods stor cannot tell (BAD_TARGETS, exit 2), not an internal error', async () => {
    const env: Record<string, string> = { ...clientEnv(), STOR_SESSION: 'off', ...EMBEDDED_MEANT };
    for (const method of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      const run = await spawnStor(['--targets', 'a,b', 'call', method, '--json'], { env });
      expect([method, run.code, JSON.parse(run.stderr).error.code]).toEqual([method, 2, 'BAD_TARGETS']);
    }
  });
});

describe("--targets: each target logs in as its own profile's key user, whatever STOR_USER says", () => {
  it("STOR_USER set for other work does not name the user of every target's key (SCRAM on 26 would refuse all but one)", async () => {
    const server = await spawnServe(await stateWithAlice(), ['--emulate', 'truenas-26.0']);
    const env: Record<string, string> = { ...clientEnv(), STOR_SESSION: 'off', ...EMBEDDED_MEANT };
    const alice = await spawnStor(
      ['login', '--url', server.baseUrl, '--profile', 'as-alice', '--username', 'alice', '--password-stdin'],
      { env, stdin: `${PASSWORD}\n` },
    );
    expect(alice.code, alice.stderr).toBe(0);
    const admin = await spawnStor(['login', '--url', server.baseUrl, '--profile', 'as-admin', '--api-key-stdin'], {
      env: { ...env, STOR_USER: 'truenas_admin' },
      stdin: readFileSync(server.adminKeyFile, 'utf8'),
    });
    expect(admin.code, admin.stderr).toBe(0);
    const run = await spawnStor(['--targets', 'as-alice,as-admin', 'whoami', '--json'], {
      env: { ...env, STOR_USER: 'truenas_admin' },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(
      JSON.parse(run.stdout).map((o: { target: string; data: { username: string } }) => [o.target, o.data.username]),
    ).toEqual([
      ['as-alice', 'alice'],
      ['as-admin', 'truenas_admin'],
    ]);
  });
});
