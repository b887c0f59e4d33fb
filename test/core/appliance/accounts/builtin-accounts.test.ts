/**
 * The Debian system users and groups a fresh 25.10.1 lists as built-in rows: `user.sync_builtin`
 * copies them from the image's /conf/base/etc/passwd and group into the database
 * (MW/plugins/account_/sync_builtin.py:23-317); the image's files are scale-build's reference
 * files at TS-25.10.1 (conf/reference-files/etc/{passwd,group}, checked against the built image by
 * scale_build/update_image.py:40-75). A state made before the emulator seeded them gets them too.
 */
import { openDatabase } from '../../../../src/core/store/sqlite.js';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Appliance } from '../../../../src/core/appliance/appliance.js';
import { tempDir } from '../../../helpers/temp-dir.js';
import { adminSession, conforming } from '../../../conformance/harness.js';

type Entry = Record<string, any>;

describe('built-in system accounts (MW/plugins/account_/sync_builtin.py)', () => {
  it("user.query finds news and group.query operator, built in, as the image's passwd and group give them", async () => {
    const { ws } = await adminSession();
    const [news] = await conforming<Entry[]>(ws, 'user.query', [[['username', '=', 'news']]]);
    expect(news).toMatchObject({
      uid: 9,
      username: 'news',
      home: '/var/spool/news',
      shell: '/usr/sbin/nologin',
      full_name: 'news',
      builtin: true,
      smb: false,
      password_disabled: false,
      locked: false,
      local: true,
      immutable: true,
      userns_idmap: null,
    });
    expect(news!.group).toMatchObject({ bsdgrp_gid: 9, bsdgrp_group: 'news', bsdgrp_builtin: true });
    const [operator] = await conforming<Entry[]>(ws, 'group.query', [[['group', '=', 'operator']]]);
    expect(operator).toMatchObject({
      gid: 37,
      name: 'operator',
      group: 'operator',
      builtin: true,
      smb: false,
      local: true,
    });
    // full_name is the GECOS field up to its first comma (sync_builtin.py:271).
    const [timesync] = await ws.result<Entry[]>('user.query', [[['username', '=', 'systemd-timesync']]]);
    expect(timesync).toMatchObject({ uid: 101, full_name: 'systemd Time Synchronization', home: '/run/systemd' });
    // apps (568) maps DIRECT into user namespaces (sync_builtin.py:11-12, 275).
    const [apps] = await ws.result<Entry[]>('user.query', [[['username', '=', 'apps']]]);
    expect(apps).toMatchObject({
      uid: 568,
      userns_idmap: 'DIRECT',
      group: { bsdgrp_gid: 568, bsdgrp_userns_idmap: -1 },
    }); // the raw row: -1 is DIRECT
    // Memberships from the group file's member lists (sync_builtin.py:131-132, 287-306).
    const [adm] = await ws.result<Entry[]>('group.query', [[['group', '=', 'adm']]]);
    const [netdata] = await ws.result<Entry[]>('user.query', [[['username', '=', 'netdata']]]);
    expect(adm!.users).toEqual([netdata!.id]);
    // A primary gid two groups share is the first one's: nobody's 65534 is nogroup.
    const [nobody] = await ws.result<Entry[]>('user.query', [[['username', '=', 'nobody']]]);
    expect(nobody!.group).toMatchObject({ bsdgrp_gid: 65534, bsdgrp_group: 'nogroup' });
  });

  it("a built-in account is no one's to delete, and user.get_next_uid still starts at 3000", async () => {
    const { ws } = await adminSession();
    const [news] = await ws.result<Entry[]>('user.query', [[['username', '=', 'news']]]);
    expect((await ws.call('user.delete', [news!.id])).error?.data?.reason).toBe(
      '[EINVAL] Cannot delete a built-in user',
    );
    expect(await ws.result('user.get_next_uid')).toBe(3000);
  });

  it('a state seeded before gets them when opened, its own accounts kept; a name, uid or gid of its own is never taken over', async () => {
    const stateDir = tempDir();
    Appliance.open({ stateDir }).close();
    // As an older stor left it: schema 9, no system accounts, and a user of its own named news.
    const db = openDatabase(join(stateDir, 'stor.db'));
    const root = db.prepare("SELECT id FROM users WHERE username = 'root'").get() as { id: number };
    db.prepare(
      "DELETE FROM user_groups WHERE user_id IN (SELECT id FROM users WHERE builtin = 1 AND username != 'root')",
    ).run();
    db.prepare('DELETE FROM users WHERE builtin = 1 AND id != ?').run(root.id);
    db.prepare('DELETE FROM groups WHERE builtin = 1 AND gid NOT IN (544, 545, 546, 951, 952)').run();
    const group = Number(db.prepare("INSERT INTO groups (gid, name) VALUES (3000, 'mine')").run().lastInsertRowid);
    db.prepare(
      "INSERT INTO users (uid, username, full_name, home, shell, group_id) VALUES (3000, 'news', 'Mine', '/var/empty', '/usr/bin/zsh', ?)",
    ).run(group);
    db.pragma('user_version = 9');
    db.close();

    const appliance = Appliance.open({ stateDir });
    try {
      const users = appliance.accounts().users;
      const news = users.filter((u) => u.username === 'news');
      expect(news).toEqual([expect.objectContaining({ uid: 3000, full_name: 'Mine', builtin: false })]);
      expect(users.find((u) => u.username === 'operator')).toBeUndefined(); // not in 25.10.1's passwd
      expect(users.find((u) => u.username === 'www-data')).toMatchObject({ uid: 33, builtin: true });
      expect([...appliance.accounts().groupByGid.values()].find((g) => g.name === 'operator')).toMatchObject({
        gid: 37,
        builtin: true,
      });
    } finally {
      appliance.close();
    }
  });
});
