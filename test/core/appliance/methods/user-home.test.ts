/**
 * What `user.create` does to the home directory it is given, as 25.10.1's `setup_homedir` does
 * (MW/plugins/account.py:565-610, called at :686-695 before the user is saved): `filesystem.setperm`
 * of the directory with `home_mode` (default `700`, MW/api/v25_10_1/user.py), the new uid and the
 * primary group's gid; with `home_create`, first `filesystem.mkdir` of `<home>/<username>`, which
 * becomes the user's home.
 */
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adminSession } from '../../../conformance/harness.js';

type Entry = Record<string, any>;

describe('user.create and its home directory (MW/plugins/account.py:565-610, 686-695)', () => {
  it('an existing home directory gets home_mode, the new uid and the primary group, without home_create', async () => {
    const { server, ws } = await adminSession();
    const dir = join(server.stateDir, 'mnt', 'tank', 'homes-770');
    mkdirSync(dir, { mode: 0o755 });
    const user = await ws.result<Entry>('user.create', [
      {
        username: 'homed',
        full_name: 'Homed',
        group_create: true,
        password_disabled: true,
        smb: false,
        home: '/mnt/tank/homes-770',
        home_mode: '770',
      },
    ]);
    expect(user.home).toBe('/mnt/tank/homes-770');
    expect(statSync(dir).mode & 0o777).toBe(0o770);
    const stat = await ws.result<Entry>('filesystem.stat', ['/mnt/tank/homes-770']);
    expect([stat.uid, stat.gid, stat.mode & 0o777]).toEqual([user.uid, user.group.bsdgrp_gid, 0o770]);
  });

  it("without home_mode the directory gets 700, the field's default (MW/api/v25_10_1/user.py UserCreate)", async () => {
    const { server, ws } = await adminSession();
    const dir = join(server.stateDir, 'mnt', 'tank', 'homes-default');
    mkdirSync(dir, { mode: 0o755 });
    await ws.result('user.create', [
      {
        username: 'homed7',
        full_name: 'Homed',
        group_create: true,
        password_disabled: true,
        smb: false,
        home: '/mnt/tank/homes-default',
      },
    ]);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('with home_create the home is <home>/<username>, made with home_mode and owned by the user', async () => {
    const { server, ws } = await adminSession();
    mkdirSync(join(server.stateDir, 'mnt', 'tank', 'homes'), { mode: 0o755 });
    const user = await ws.result<Entry>('user.create', [
      {
        username: 'made',
        full_name: 'Made',
        group_create: true,
        password_disabled: true,
        smb: false,
        home: '/mnt/tank/homes',
        home_create: true,
        home_mode: '750',
      },
    ]);
    expect(user.home).toBe('/mnt/tank/homes/made');
    expect(statSync(join(server.stateDir, 'mnt', 'tank', 'homes', 'made')).mode & 0o777).toBe(0o750);
    const stat = await ws.result<Entry>('filesystem.stat', ['/mnt/tank/homes/made']);
    expect([stat.uid, stat.gid]).toEqual([user.uid, user.group.bsdgrp_gid]);
  });
});
