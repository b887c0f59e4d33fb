import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Appliance } from '../../../src/core/appliance/appliance.js';
import { expandRoles, release25101Catalogue } from '../../../src/core/roles/index.js';
import { storIn } from '../../helpers/run-stor.js';
import { makeUserWithPrivilege } from '../../helpers/runbook.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';

const BROKEN = ['FILESYSTEM_FULL_CONTROL', 'FILESYSTEM_DATA_WRITE', 'DATASET_WRITE'];
const expectedRoles = [...expandRoles(release25101Catalogue(), BROKEN)].sort();

/** Checks alice's failed login: exactly the RecursionError of seed §7.1, reported with exit 4. */
function expectRecursionError(r: { stderr: string }) {
  const error = JSON.parse(r.stderr).error;
  expect(error).toMatchObject({ code: 'LOGIN_BROKEN_BY_PRIVILEGE', kind: 'auth' });
  expect(error.message).toContain('maximum recursion depth exceeded');
}

// The commands run in-process (storIn: the same `run()` the binary calls); what these tests are about is the
// appliance's lockout and the runbook's answers, not the process; `stor serve` stays a process of its
// own, restarted on the same state.
describe('the recovery runbook of seed §5.6', () => {
  it('against stor serve --role-expansion as-reported: lockout, across a restart, check, fix, login', async () => {
    const state = tempDir();
    let server = await spawnServe(state, ['--role-expansion', 'as-reported']);
    const admin = {
      STOR_HOME: tempDir(),
      STOR_CONFIG_DIR: tempDir(),
      STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
    };
    const asAdmin = () => storIn({ ...admin, STOR_URL: server.baseUrl });
    const aliceKey = await makeUserWithPrivilege(asAdmin(), 'alice', 'ops', BROKEN);
    const asAlice = () =>
      storIn({ STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir(), STOR_URL: server.baseUrl, STOR_API_KEY: aliceKey });

    // The exact wire error: alice's own login over JSON-RPC.
    const wire = await asAlice()(['call', 'core.ping'], 4);
    expect(wire.stderr).toContain('maximum recursion depth exceeded');
    const raw = await fetch(`${server.url}/api/current`, {
      method: 'POST',
      headers: { authorization: `Bearer ${aliceKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'auth.me', params: [] }),
    });
    expect(((await raw.json()) as { error: unknown }).error).toMatchObject({
      code: -32001,
      message: 'Method call error',
      data: {
        error: 22,
        errname: 'EINVAL',
        reason: 'maximum recursion depth exceeded',
        trace: { class: 'RecursionError' },
      },
    });
    expectRecursionError(await asAlice()(['whoami', '--json'], 4));

    // Persisted: a restart on the same state keeps the privilege, the setting and the lockout.
    expect(await server.stop()).toBe(0);
    server = await spawnServe(state);
    expectRecursionError(await asAlice()(['whoami', '--json'], 4));

    const check = await asAdmin()(['privilege', 'check', '--json'], 6);
    const report = JSON.parse(check.stdout);
    expect(report.ok).toBe(false);
    expect(report.privileges.map((p: { name: string; locks_out: boolean }) => [p.name, p.locks_out])).toEqual([
      ['ops', true],
    ]);

    // Alice cannot repair it herself, and is told who can.
    const selfFix = await asAlice()(['privilege', 'fix', 'ops', '--yes'], 4);
    expect(selfFix.stderr).toContain('administrator who is not bound to that privilege');

    const fix = await asAdmin()(['privilege', 'fix', 'ops', '--yes', '--json']);
    expect(JSON.parse(fix.stdout).privileges[0]).toMatchObject({
      status: 'fixed',
      before: BROKEN,
      after: ['FILESYSTEM_FULL_CONTROL', 'DATASET_WRITE'],
      lost_roles: [],
      still_locks_out: false,
    });
    const me = JSON.parse((await asAlice()(['whoami', '--json'])).stdout);
    expect(me.roles).toEqual(expectedRoles);

    const again = await asAdmin()(['privilege', 'fix', 'ops', '--yes', '--json']);
    expect(JSON.parse(again.stdout).privileges[0]).toMatchObject({
      status: 'clean',
      after: ['FILESYSTEM_FULL_CONTROL', 'DATASET_WRITE'],
    });
    await asAdmin()(['privilege', 'check']);
  });

  it('against the embedded target: the same lockout, check, fix and login', async () => {
    const home = tempDir();
    Appliance.open({ stateDir: home, settings: { roleExpansion: 'as-reported' } }).close();
    const asAdmin = storIn({ STOR_HOME: home });
    const aliceKey = await makeUserWithPrivilege(asAdmin, 'alice', 'ops', BROKEN);
    const asAlice = storIn({ STOR_HOME: home, STOR_API_KEY: aliceKey });
    expectRecursionError(await asAlice(['whoami', '--json'], 4));
    const check = await asAdmin(['privilege', 'check'], 6);
    expect(check.stdout).toMatch(/^4\tops\tLOCKOUT\t/m);
    await asAdmin(['privilege', 'fix', 'ops'], 2); // not a terminal and no --yes: refused, nothing changed
    expectRecursionError(await asAlice(['whoami', '--json'], 4));
    await asAdmin(['privilege', 'fix', '4', '--yes']);
    expect(JSON.parse((await asAlice(['whoami', '--json'])).stdout).roles).toEqual(expectedRoles);
  });
});
