/**
 * The small account, session and dataset helpers clients call, as `stor serve --emulate
 * truenas-25.10.1` answers them over raw frames: `user.get_next_uid`, `group.get_next_gid`,
 * `user.shell_choices`, `auth.terminate_session`, `auth.terminate_other_sessions`,
 * `pool.dataset.checksum_choices` (models: MW/api/v25_10_1/{user,group,auth,pool_dataset}.py).
 */
import { describe, expect, it } from 'vitest';
import { loggedInWs } from '../../../helpers/server.js';
import { adminSession, conforming } from '../../../conformance/harness.js';

type Entry = Record<string, any>;

describe('user.get_next_uid / group.get_next_gid (MW/plugins/account.py:1253-1276, 2190-2211)', () => {
  it('answer the lowest free id from 3000, local non-built-in accounts counted, and hold it for the caller (ReservedXid, MW/utils/reserved_ids.py)', async () => {
    const { ws } = await adminSession();
    expect(await conforming(ws, 'user.get_next_uid')).toBe(3000);
    // The answer is reserved for an hour: the next call, and user.create without a uid, pass it over.
    expect(await conforming(ws, 'user.get_next_uid')).toBe(3001);
    const made = await ws.result<Entry>('user.create', [
      { username: 'nextuid', full_name: 'N', group_create: true, password_disabled: true, smb: false },
    ]);
    expect(made.uid).toBe(3002);
    // A user created with a reserved uid frees it (MW/plugins/account.py:731-732).
    await ws.result('user.create', [
      { username: 'given', full_name: 'G', uid: 3000, group_create: true, password_disabled: true, smb: false },
    ]);
    expect(await conforming(ws, 'user.get_next_uid')).toBe(3003);

    // Groups 3000.. went to the users' own groups (group_create); gids used by privileges count too.
    const gids = (
      await ws.result<Entry[]>('group.query', [
        [
          ['gid', '>=', 3000],
          ['builtin', '=', false],
        ],
      ])
    ).map((g) => g.gid);
    const next = await conforming<number>(ws, 'group.get_next_gid');
    expect(gids).not.toContain(next);
    expect(next).toBe(Math.max(...gids) + 1);
    expect(await conforming(ws, 'group.get_next_gid')).toBe(next + 1);
  });
});

describe('user.shell_choices (MW/plugins/account.py:1112-1144)', () => {
  it('nologin and the /usr/bin shells; the TrueNAS CLI shells too for groups a privilege names', async () => {
    const { ws } = await adminSession();
    const shells = {
      '/usr/bin/bash': 'bash',
      '/usr/bin/rbash': 'rbash',
      '/usr/bin/dash': 'dash',
      '/usr/bin/sh': 'sh',
      '/usr/bin/zsh': 'zsh',
      '/usr/bin/tmux': 'tmux',
    };
    expect(await conforming(ws, 'user.shell_choices')).toEqual({ '/usr/sbin/nologin': 'nologin', ...shells });
    const admins = (await ws.result<Entry[]>('group.query', [[['name', '=', 'builtin_administrators']]]))[0]!.id;
    const withCli = await conforming(ws, 'user.shell_choices', [[admins]]);
    expect(withCli).toEqual({
      '/usr/sbin/nologin': 'nologin',
      '/usr/bin/cli': 'TrueNAS CLI',
      '/usr/bin/cli_console': 'TrueNAS Console',
      ...shells,
    });
    expect(Object.keys(withCli)).toEqual([
      '/usr/sbin/nologin',
      '/usr/bin/cli',
      '/usr/bin/cli_console',
      ...Object.keys(shells),
    ]);
  });
});

describe('auth.terminate_session / auth.terminate_other_sessions (MW/plugins/auth.py:302-336)', () => {
  it('terminate_session closes that connection and answers true; an unknown id answers false', async () => {
    const { server, ws } = await adminSession();
    const ids = async () => (await ws.result<Entry[]>('auth.sessions')).map((s) => s.id as string);
    const before = await ids();
    const other = await loggedInWs(server.rpcUrl, server.adminKey);
    const added = (await ids()).filter((id) => !before.includes(id));
    expect(added).toHaveLength(1);
    expect(await conforming(ws, 'auth.terminate_session', [added[0]])).toBe(true);
    // aiohttp's `ws.close()`: code 1000 (WSCloseCode.OK).
    expect((await other.closed).code).toBe(1000);
    expect(await conforming(ws, 'auth.terminate_session', ['no-such-session'])).toBe(false);
    expect(await ids()).toEqual(before);
  });

  it("terminate_other_sessions closes every other connection and keeps the caller's", async () => {
    const { server, ws } = await adminSession();
    const a = await loggedInWs(server.rpcUrl, server.adminKey);
    const b = await loggedInWs(server.rpcUrl, server.adminKey);
    expect(await conforming(ws, 'auth.terminate_other_sessions')).toBe(true);
    await Promise.all([a.closed, b.closed]);
    expect((await ws.result<Entry[]>('auth.sessions')).map((s) => s.current)).toEqual([true]);
  });
});

describe('pool.dataset.checksum_choices (MW/plugins/pool_/dataset_info.py:18-23)', () => {
  it('every ZFS checksum but OFF, each its own name (ZFS_CHECKSUM_CHOICES, MW/plugins/pool_/utils.py:19)', async () => {
    const { ws } = await adminSession();
    const choices = await conforming(ws, 'pool.dataset.checksum_choices');
    expect(Object.entries(choices)).toEqual(
      ['ON', 'FLETCHER2', 'FLETCHER4', 'SHA256', 'SHA512', 'SKEIN', 'EDONR', 'BLAKE3'].map((c) => [c, c]),
    );
  });
});
