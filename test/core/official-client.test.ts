/**
 * core.get_methods through the official client: `midclt` (`truenas_api_client:main`, truenas/api_client
 * at TS-25.10.1) against `stor serve --emulate truenas-25.10.1`. The client decodes every message
 * with its EJSON object hook (truenas_api_client/ejson.py:64-93), which turns any object whose one
 * key is `$date`, `$set`, … into a Python value, and stops the call at one it cannot: a schema
 * shaped as EJSON hangs midclt until its timeout, or comes back altered.
 *
 * Needs STOR_TEST_API_CLIENT: a PYTHONPATH (colon-separated) under which `import truenas_api_client`
 * gives the TS-25.10.1 client and `import websocket` a websocket-client ≥ 1.3.2 (docs/NODE.md "SQLite, CI and
 * other majors"). Without it the test is skipped, saying why.
 */
import { describe, expect, it } from 'vitest';
import { loggedInWs } from '../helpers/server.js';
import { EMULATIONS } from '../../src/core/appliance/settings.js';
import { startTestServer } from '../helpers/server.js';
import { server25 } from '../conformance/harness.js';
import { clientFor, findClient, midclt } from '../conformance/official-client.js';

const client = findClient();

describe('core.get_methods through the official client (truenas_api_client at TS-25.10.1)', () => {
  it('`midclt call core.get_methods` completes and decodes to what the server sent (truenas_api_client/ejson.py:64-93, MW/api/base/jsonschema.py:10-15)', async (ctx) => {
    if ('reason' in client) return ctx.skip(client.reason);
    const server = await server25();
    const raw = await (
      await loggedInWs(server.rpcUrl, server.adminKey)
    ).result<Record<string, unknown>>('core.get_methods');
    const r = await midclt(client.env, ['-u', server.rpcUrl, '-K', server.adminKey, 'call', 'core.get_methods']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const decoded = JSON.parse(r.stdout) as Record<string, Record<string, unknown>>;
    // Decoded and printed again, nothing changed: no schema was read as a datetime or a set.
    expect(decoded).toEqual(raw);
    expect(Object.keys(decoded)).toContain('core.get_methods');
    expect(decoded['api_key.create']).toMatchObject({ pass_application: true, require_websocket: false });
  });

  it("against `--emulate truenas-26.0` too: `midclt call core.get_methods` completes and decodes, user.query shows 26's webshare", async (ctx) => {
    if ('reason' in client) return ctx.skip(client.reason);
    // The TS-25.10.1 client logs in with the plain key, which 26 still takes (it removes
    // auth.login_with_api_key only in v27: MW/api/v26_0_0/auth.py at stable/26).
    const server = await startTestServer(EMULATIONS['truenas-26.0']);
    const raw = await (
      await loggedInWs(server.rpcUrl, server.adminKey)
    ).result<Record<string, unknown>>('core.get_methods');
    const r = await midclt(client.env, ['-u', server.rpcUrl, '-K', server.adminKey, 'call', 'core.get_methods']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(raw);
    const version = await midclt(client.env, [
      '-u',
      server.rpcUrl,
      '-K',
      server.adminKey,
      'call',
      'system.version_short',
    ]);
    expect(version.stdout.trim()).toBe('26.0.0-RC.1');
    const users = await midclt(client.env, [
      '-u',
      server.rpcUrl,
      '-K',
      server.adminKey,
      'call',
      'user.query',
      '[["username", "=", "truenas_admin"]]',
    ]);
    expect((JSON.parse(users.stdout) as Record<string, unknown>[])[0]).toHaveProperty('webshare');
    const bad = await midclt(client.env, [
      '-u',
      server.rpcUrl,
      '-K',
      server.adminKey,
      'call',
      'user.query',
      '"not a list"',
    ]);
    expect(bad.code).toBe(1);
  });

  it("`midclt call` prints an entry's keys in its result model's order, as the middleware dumps it (MW/api/base/handler/result.py:13-17 at TS-25.10.1; midclt prints json.dumps of the answer, truenas_api_client/__init__.py:1082)", async (ctx) => {
    if ('reason' in client) return ctx.skip(client.reason);
    const server25 = await startTestServer(EMULATIONS['truenas-25.10.1']);
    const call = (server: { rpcUrl: string; adminKey: string }, ...args: string[]) =>
      midclt(client.env, ['-u', server.rpcUrl, '-K', server.adminKey, 'call', ...args]);
    // PoolDatasetEntry (MW/api/v25_10_1/pool_dataset.py:62-83): the dataset's own fields first, mountpoint last.
    const dataset = await call(server25, 'pool.dataset.query', '[["id", "=", "tank"]]', '{"get": true}');
    expect(dataset.stderr).toBe('');
    const dk = Object.keys(JSON.parse(dataset.stdout) as object);
    expect(dk.slice(0, 10)).toEqual([
      'id',
      'type',
      'name',
      'pool',
      'encrypted',
      'encryption_root',
      'key_loaded',
      'children',
      'user_properties',
      'locked',
    ]);
    expect(dk.at(-1)).toBe('mountpoint');
    // 26.0's UserEntry declares `webshare` after `smb` (MW/api/v26_0_0/user.py:105-111 at TS-26.0.0-BETA.3).
    const server26 = await startTestServer(EMULATIONS['truenas-26.0']);
    const users = await call(server26, 'user.query', '[["username", "=", "truenas_admin"]]');
    const uk = Object.keys((JSON.parse(users.stdout) as object[])[0]!);
    expect(uk.slice(uk.indexOf('smb'), uk.indexOf('smb') + 3)).toEqual(['smb', 'webshare', 'userns_idmap']);
  });

  it("`midclt call` of the methods operators start with (system, pool, filesystem, snapshot holds): each decodes with a valid argument and fails with the server's reason with an invalid one", async (ctx) => {
    if ('reason' in client) return ctx.skip(client.reason);
    const server = await server25();
    const call = (...args: string[]) =>
      midclt(client.env, ['-u', server.rpcUrl, '-K', server.adminKey, 'call', ...args]);
    const info = await call('system.info');
    expect(info.stderr).toBe('');
    // EJSON datetimes come back through the decoder and out as JSON again (truenas_api_client/ejson.py).
    expect(Object.keys(JSON.parse(info.stdout) as object)).toContain('boottime');
    const pools = await call('pool.query', '[["name", "=", "tank"]]');
    expect(pools.code).toBe(0);
    expect((JSON.parse(pools.stdout) as { status: string }[])[0]!.status).toBe('ONLINE');
    const statfs = await call('filesystem.statfs', '/mnt/tank');
    expect(JSON.parse(statfs.stdout)).toMatchObject({ source: 'tank', fstype: 'zfs' });
    const refused = await call('filesystem.statfs', '/etc');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Path must start with "/mnt/"');
    const badHold = await call('pool.snapshot.hold', 'tank@nope');
    expect(badHold.code).toBe(1);
    expect(badHold.stderr).toContain('Failed to hold snapshot: Snapshot tank@nope not found');
  });
});

describe('pool.dataset.query extra and pool.snapshot.query retention through midclt (MW/plugins/pool_/dataset_query_utils.py, MW/plugins/zfs_/snapshot.py:104-106)', () => {
  it('`extra.flat: false` gives the pools nested; `extra.retention` without id or limit is the EINVAL CallError', async (ctx) => {
    if ('reason' in client) return ctx.skip(client.reason);
    const server = await server25();
    const ws = await loggedInWs(server.rpcUrl, server.adminKey);
    await ws.result('pool.dataset.create', [{ name: 'tank/a' }]);
    const tree = await midclt(client.env, [
      '-u',
      server.rpcUrl,
      '-K',
      server.adminKey,
      'call',
      'pool.dataset.query',
      '[]',
      '{"extra": {"flat": false, "properties": []}}',
    ]);
    expect(tree.stderr).toBe('');
    const roots = JSON.parse(tree.stdout) as { id: string; children: { id: string }[] }[];
    expect([roots.map((r) => r.id), roots[0]!.children.map((c) => c.id)]).toEqual([['tank'], ['tank/a']]);
    const refused = await midclt(client.env, [
      '-u',
      server.rpcUrl,
      '-K',
      server.adminKey,
      'call',
      'pool.snapshot.query',
      '[]',
      '{"extra": {"retention": true}}',
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('`id` or `limit` is required if `retention` is requested');
  });
});

describe("26.0's snapshot properties through midclt (MW/plugins/pool_/snapshot.py:106-115 at TS-26.0.0-BETA.3)", () => {
  it('a ratio arrives as the float 1.0 and a guid as its exact 64-bit integer, as truenas_api_client decodes what 26 sends', async (ctx) => {
    const client26 = clientFor('26.0');
    if ('reason' in client26) return ctx.skip(client26.reason);
    const server = await startTestServer(EMULATIONS['truenas-26.0']);
    const ws = await loggedInWs(server.rpcUrl, server.adminKey);
    await ws.result('pool.snapshot.create', [{ dataset: 'tank', name: 'one' }]);
    const r = await midclt(client26.env, [
      '-u',
      server.rpcUrl,
      ...client26.keyLogin(server.adminKey),
      'call',
      'pool.snapshot.get_instance',
      'tank@one',
      '{"extra": {"properties": ["compressratio", "guid"]}}',
    ]);
    expect(r.stderr).toBe('');
    // midclt prints what json.loads made of the answer with json.dumps: a float stays `1.0`.
    expect(r.stdout).toContain('"parsed": 1.0}');
    const guid = /"guid": \{"value": "(\d+)"/.exec(r.stdout)?.[1];
    expect(guid).toMatch(/^\d{1,20}$/);
    expect(r.stdout).toContain(`"parsed": ${guid}}`);
  });
});
