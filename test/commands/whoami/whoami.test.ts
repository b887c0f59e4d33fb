import { describe, expect, it } from 'vitest';
import { Appliance } from '../../../src/core/appliance/appliance.js';
import { runStor } from '../../helpers/run-stor.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { createUserWithKey, openTestAppliance } from '../../helpers/appliance.js';
import { startStandinAppliance } from '../../helpers/standin-appliance.js';

describe('stor whoami', () => {
  it('reports the seeded administrator on a fresh embedded state (--json)', async () => {
    const home = tempDir();
    const { code, stdout, stderr } = await runStor(['whoami', '--json'], { env: { STOR_HOME: home } });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const me = JSON.parse(stdout);
    expect(me).toMatchObject({
      username: 'truenas_admin',
      uid: 950,
      account_attributes: ['LOCAL', 'API_KEY', 'SYS_ADMIN'],
      role_count: 141,
      target: { kind: 'embedded', stateDir: home },
    });
    expect(me.roles).toHaveLength(141);
  });

  it('prints aligned fields on a terminal and tab-separated fields when piped', async () => {
    const env = { STOR_HOME: tempDir() };
    // --roles: the whole list flows after the fields (without it, the count).
    const tty = await runStor(['whoami', '--roles'], { env, tty: true, color: 0 });
    expect(tty.stdout).not.toContain('\x1b[');
    expect(tty.stdout).toMatch(/^username:\s+truenas_admin$/m);
    expect(tty.stdout).toMatch(/^account attributes:\s+LOCAL, API_KEY, SYS_ADMIN$/m);
    expect(tty.stdout).toMatch(/^roles:\s+141: ACCOUNT_READ, ACCOUNT_WRITE,/m);
    expect(tty.stdout).toMatch(/\bFULL_ADMIN,/);
    const coloured = await runStor(['whoami'], { env, tty: true });
    expect(coloured.stdout).toContain('\x1b[1musername:');
    const piped = await runStor(['whoami'], { env });
    expect(piped.stdout).not.toContain('\x1b[');
    expect(piped.stdout.split('\n')).toContain('account attributes\tLOCAL,API_KEY,SYS_ADMIN');
    expect(piped.stdout.split('\n')).toContain('effective roles\t141');
  });

  it('explains a login broken by a privilege and exits 4', async () => {
    const home = tempDir();
    const t = await openTestAppliance({ roleExpansion: 'as-reported' }, home);
    const { key } = await createUserWithKey(t, 'alice', {
      group: 'ops',
      privilegeRoles: ['FILESYSTEM_FULL_CONTROL', 'FILESYSTEM_DATA_WRITE'],
    });
    t.appliance.close();
    const { code, stdout, stderr } = await runStor(['whoami'], { env: { STOR_HOME: home, STOR_API_KEY: key } });
    expect(code).toBe(4);
    expect(stdout).toBe('');
    expect(stderr).toContain('maximum recursion depth exceeded');
    expect(stderr).toContain('an administrator who is not bound to that privilege must repair it');
    expect(stderr).not.toContain(key.split('-')[1]);
  });

  it('exits 4 for a key the target rejects, without echoing it', async () => {
    const home = tempDir();
    Appliance.open({ stateDir: home }).close();
    const key = `1-${'Z'.repeat(64)}`;
    const { code, stderr } = await runStor(['whoami', '--json'], { env: { STOR_HOME: home, STOR_API_KEY: key } });
    expect(code).toBe(4);
    expect(JSON.parse(stderr)).toMatchObject({ error: { code: 'KEY_REJECTED', kind: 'auth' } });
    expect(stderr).not.toContain('Z'.repeat(64));
  });
});

describe('whoami on a terminal', () => {
  it('shows the role count and the smallest list that grants them; --roles, piped and --json list every role', async () => {
    const env = { STOR_HOME: tempDir() };
    const tty = await runStor(['whoami'], { env, tty: true, color: 0, columns: 80 });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(/^effective roles: +141, from FULL_ADMIN \(--roles lists them\)$/m);
    expect(tty.stdout).not.toContain('ACCOUNT_READ');
    expect(tty.stdout.trim().split('\n').length).toBeLessThan(12);
    const all = await runStor(['whoami', '--roles'], { env, tty: true, color: 0, columns: 80 });
    expect(all.stdout).toContain('ACCOUNT_READ');
    expect((await runStor(['whoami'], { env })).stdout).toMatch(/^roles\t.*ACCOUNT_READ/m);
    expect(JSON.parse((await runStor(['whoami', '--json'], { env })).stdout).roles).toHaveLength(141);
  });

  it("sorts the roles of an appliance that sends them in its set's order, and keeps an emulator's sorted list", async () => {
    const t = await openTestAppliance();
    const me = await t.call<{ privilege: { roles: { $set: string[] } } }>(t.admin, 'auth.me');
    const sorted = me.privilege.roles.$set;
    // A real appliance's `$set` is a Python set's order: here the sorted list turned about and split.
    const shuffled = [...sorted.slice(70).reverse(), ...sorted.slice(0, 70)];
    const nas = await startStandinAppliance({
      'auth.login_with_api_key': { result: true },
      'auth.me': { result: { ...me, privilege: { ...me.privilege, roles: { $set: shuffled } } } },
      'system.version_short': { result: '25.10.1' },
    });
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir(), STOR_API_KEY: `1-${'A'.repeat(64)}` };
    const r = await runStor(['--url', nas.baseUrl, 'whoami', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).roles).toEqual(sorted);
    expect(JSON.parse((await runStor(['whoami', '--json'], { env: { STOR_HOME: t.stateDir } })).stdout).roles).toEqual(
      sorted,
    );
  });
});
