import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { tempDir } from '../../helpers/temp-dir.js';

const transportModule = fileURLToPath(new URL('../../../dist/core/transport/embedded.js', import.meta.url));

/** A separate process that creates `count` users through the built embedded transport. */
function writer(home: string, prefix: string, count: number): Promise<number | null> {
  const script = `
    const { EmbeddedTransport } = await import(${JSON.stringify(transportModule)});
    const t = await EmbeddedTransport.open({ stateDir: process.env.STOR_HOME, timeoutSeconds: 30 });
    const gid = (await t.call('group.query', [[['gid', '=', 545]], { get: true }])).id;
    for (let i = 0; i < ${count}; i++) {
      await t.call('user.create', [{ username: '${prefix}' + i, full_name: 'u', group: gid, password_disabled: true, smb: false }]);
    }
    await t.close();`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, STOR_HOME: home },
      stdio: 'inherit',
    });
    child.on('error', reject);
    child.on('close', resolve);
  });
}

describe('several processes on one state directory', () => {
  it('lose no user when two processes create users at once, from a fresh directory', async () => {
    const home = tempDir();
    const codes = await Promise.all([writer(home, 'a', 40), writer(home, 'b', 40)]);
    expect(codes).toEqual([0, 0]);
    // truenas_admin is not built-in on 25.10.1 (truenas-set-authentication-method.py:48); created users start at uid 3000.
    const { stdout, code } = await spawnStor(
      ['call', 'user.query', '[["builtin","=",false],["uid",">=",3000]]', '{"select":["username","uid"]}'],
      {
        env: { STOR_HOME: home },
      },
    );
    expect(code).toBe(0);
    const users = JSON.parse(stdout) as { username: string; uid: number }[];
    expect(users).toHaveLength(80);
    expect(new Set(users.map((u) => u.uid)).size).toBe(80);
    expect(users.map((u) => u.username).sort()).toEqual(
      [...Array.from({ length: 40 }, (_, i) => `a${i}`), ...Array.from({ length: 40 }, (_, i) => `b${i}`)].sort(),
    );
    // Both processes raced the first-use seed too: exactly one seed happened.
    const privileges = await spawnStor(['call', 'privilege.query', '[]', '{"count":true}'], {
      env: { STOR_HOME: home },
    });
    expect(privileges.stdout.trim()).toBe('3');
  });

  it('lose nothing when two stor binaries create users at the same time', async () => {
    const home = tempDir();
    await spawnStor(['whoami'], { env: { STOR_HOME: home } });
    const create = (name: string) =>
      spawnStor(
        [
          'call',
          'user.create',
          JSON.stringify({ username: name, full_name: name, group_create: true, password_disabled: true, smb: false }),
        ],
        {
          env: { STOR_HOME: home },
        },
      );
    const results = await Promise.all(['p1', 'p2', 'p3', 'p4', 'p5', 'p6'].map(create));
    expect(results.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0]);
    const uids = results.map((r) => JSON.parse(r.stdout).uid as number).sort();
    expect(uids).toEqual([3000, 3001, 3002, 3003, 3004, 3005]);
  });
});
