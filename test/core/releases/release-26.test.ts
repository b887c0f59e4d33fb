/**
 * The 26.0 emulator over raw WebSocket frames: 26.0's entries where its models changed
 * (src/core/contract/v26_0_0/), 25.10.1's elsewhere, the release's version and roles.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../src/core/appliance/settings.js';
import { loggedInWs, startTestServer, type TestServer } from '../../helpers/server.js';

type Entry = Record<string, unknown>;

describe('stor serve --emulate truenas-26.0 (raw frames)', () => {
  it('user entries carry webshare (MW/api/v26_0_0/user.py:105-111) and user.create takes it; 25.10.1 refuses it as an extra input', async () => {
    const next = await startTestServer(EMULATIONS['truenas-26.0']);
    const client = await loggedInWs(next.rpcUrl, next.adminKey);
    const admins = await client.result<Entry[]>('user.query', [[['username', '=', 'truenas_admin']]]);
    expect(admins.map((u) => u['webshare'])).toEqual([false]);
    const created = await client.result<Entry>('user.create', [
      { username: 'web', full_name: 'Web', group_create: true, password_disabled: true, smb: false, webshare: true },
    ]);
    expect(created).toMatchObject({ username: 'web', webshare: false });
    const [root] = await client.result<Entry[]>('user.query', [[['username', '=', 'root']]]);
    const rootWebshare = await client.call('user.update', [root!['id'], { webshare: true }]);
    // stable/26 MW/plugins/account.py:1724-1729.
    expect(rootWebshare.error?.data?.['extra']).toEqual([
      ['user_update.webshare', 'The root user is not allowed access via webshare.', 22],
    ]);
    expect(await client.result('system.version_short')).toBe('26.0.0-RC.1');
    expect(await client.result('system.version')).toBe('TrueNAS-26.0.0-RC.1');
    const roles = await client.result<{ name: string; includes: string[] }[]>('privilege.roles');
    expect(roles).toHaveLength(146);
    expect(roles.find((r) => r.name === 'PRIVILEGE_WRITE')!.includes).toEqual(['PRIVILEGE_READ']);

    const old = await startTestServer(EMULATIONS['truenas-25.10.1']);
    const oldClient = await loggedInWs(old.rpcUrl, old.adminKey);
    const refused = await oldClient.call('user.create', [
      { username: 'web', full_name: 'Web', group_create: true, password_disabled: true, smb: false, webshare: true },
    ]);
    expect(refused.error?.data?.['extra']).toEqual([['user_create.webshare', 'Extra inputs are not permitted', 22]]);
    expect(
      (await oldClient.result<Entry[]>('user.query', [[['username', '=', 'truenas_admin']]]))[0],
    ).not.toHaveProperty('webshare');
  });

  it('pool.dataset.create: pbkdf2iters at least and by default 1,300,000 (MW/api/v26_0_0/pool.py:142-144), data discriminated by type (MW/api/v26_0_0/pool_dataset.py:663-676); 25.10.1 keeps 350,000 and its model-named errors', async () => {
    const next = await startTestServer(EMULATIONS['truenas-26.0']);
    const client = await loggedInWs(next.rpcUrl, next.adminKey);
    const encrypted = { encryption: true, inherit_encryption: false };
    const made = await client.result<Record<string, { value: string }>>('pool.dataset.create', [
      { name: 'tank/pass', ...encrypted, encryption_options: { passphrase: 'long enough' } },
    ]);
    expect(made['pbkdf2iters']!.value).toBe('1300000');
    expect(made).not.toHaveProperty('tier');
    const low = await client.call('pool.dataset.create', [
      { name: 'tank/low', ...encrypted, encryption_options: { passphrase: 'long enough', pbkdf2iters: 350000 } },
    ]);
    expect(low.error?.data?.['extra']).toEqual([
      ['data.FILESYSTEM.encryption_options.pbkdf2iters', 'Input should be greater than or equal to 1300000', 22],
    ]);
    const badName = await client.call('pool.dataset.create', [{ name: 'tank/b@c' }]);
    expect(badName.error?.data?.['extra']).toEqual([
      ['data.FILESYSTEM.name', 'Value error, Please provide a valid dataset name according to ZFS standards', 22],
    ]);
    const volume = await client.call('pool.dataset.create', [{ name: 'tank/v', type: 'VOLUME' }]);
    expect(volume.error?.data?.['extra']).toEqual([['data.VOLUME.volsize', 'Field required', 22]]);
    const badType = await client.call('pool.dataset.create', [{ name: 'tank/x', type: 'SNAPSHOT' }]);
    expect(badType.error?.data?.['extra']).toEqual([
      [
        'data',
        "Input tag 'SNAPSHOT' found using 'type' does not match any of the expected tags: 'FILESYSTEM', 'VOLUME'",
        22,
      ],
    ]);
    await client.result('pool.dataset.create', [{ name: 'tank/fs', type: 'FILESYSTEM' }]);
    // The release's contract is what core.get_methods describes: 26's SCRAM method among them.
    const methods = await client.result<Record<string, unknown>>('core.get_methods');
    expect(Object.keys(methods)).toEqual(
      expect.arrayContaining(['pool.dataset.create', 'pool.snapshot.create', 'api_key.convert_raw_key']),
    );

    const old = await startTestServer(EMULATIONS['truenas-25.10.1']);
    const oldClient = await loggedInWs(old.rpcUrl, old.adminKey);
    const oldMade = await oldClient.result<Record<string, { value: string }>>('pool.dataset.create', [
      { name: 'tank/pass', ...encrypted, encryption_options: { passphrase: 'long enough', pbkdf2iters: 350000 } },
    ]);
    expect(oldMade['pbkdf2iters']!.value).toBe('350000');
    const oldBadName = await oldClient.call('pool.dataset.create', [{ name: 'tank/b@c' }]);
    expect((oldBadName.error?.data?.['extra'] as unknown[])[0]).toEqual([
      'data.PoolDatasetCreateFilesystem.name',
      'Value error, Please provide a valid dataset name according to ZFS standards',
      22,
    ]);
  });

  it('pool.snapshot.create takes suspend_vms (MW/api/v26_0_0/pool_snapshot.py:116); 25.10.1 refuses it as an extra input', async () => {
    const next = await startTestServer(EMULATIONS['truenas-26.0']);
    const client = await loggedInWs(next.rpcUrl, next.adminKey);
    expect(
      await client.result('pool.snapshot.create', [{ dataset: 'tank', name: 's1', suspend_vms: true }]),
    ).toMatchObject({ id: 'tank@s1' });
    const old = await startTestServer(EMULATIONS['truenas-25.10.1']);
    const oldClient = await loggedInWs(old.rpcUrl, old.adminKey);
    const refused = await oldClient.call('pool.snapshot.create', [{ dataset: 'tank', name: 's1', suspend_vms: true }]);
    expect(refused.error?.data?.['extra']).toContainEqual([
      'data.PoolSnapshotCreateWithName.suspend_vms',
      'Extra inputs are not permitted',
      22,
    ]);
  });

  it('user.renew_2fa_secret takes an interval of 30 or 60 only (MW/api/v26_0_0/user.py:474-481) and answers webshare; 25.10.1 takes any interval from 5 (MW/api/v25_10_1/user.py:382)', async () => {
    const next = await startTestServer(EMULATIONS['truenas-26.0']);
    const client = await loggedInWs(next.rpcUrl, next.adminKey);
    const refused = await client.call('user.renew_2fa_secret', ['truenas_admin', { interval: 45 }]);
    expect(refused.error?.data?.['extra']).toEqual([['twofactor_options.interval', 'Input should be 30 or 60', 22]]);
    const renewed = await client.result<Entry>('user.renew_2fa_secret', ['truenas_admin', { interval: 60 }]);
    expect(renewed).toMatchObject({ webshare: false, twofactor_config: { interval: 60 } });
    const old = await startTestServer(EMULATIONS['truenas-25.10.1']);
    const oldClient = await loggedInWs(old.rpcUrl, old.adminKey);
    expect(await oldClient.result<Entry>('user.renew_2fa_secret', ['truenas_admin', { interval: 45 }])).toMatchObject({
      twofactor_config: { interval: 45 },
    });
  });

  it('statfs, put and get refuse a path through a symlink (openat2 RESOLVE_NO_SYMLINKS: stable/26 MW/plugins/filesystem.py:630-649, safe_open at :575, :610); 25.10.1 follows it', async () => {
    const links = (server: TestServer) => {
      const pool = join(server.stateDir, 'mnt', 'tank');
      mkdirSync(join(pool, 'dir'));
      writeFileSync(join(pool, 'dir', 'f.txt'), 'hello');
      symlinkSync('dir', join(pool, 'dirlink'));
      symlinkSync('dir/f.txt', join(pool, 'filelink'));
    };
    const upload = async (server: TestServer, path: string) => {
      const form = new FormData();
      form.append('data', JSON.stringify({ method: 'filesystem.put', params: [path, {}] }));
      form.append('file', new Blob(['new']), 'f');
      const res = await fetch(`${server.url}/_upload/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.adminKey}` },
        body: form,
      });
      return { status: res.status, text: await res.text() };
    };
    const next = await startTestServer(EMULATIONS['truenas-26.0']);
    links(next);
    const client = await loggedInWs(next.rpcUrl, next.adminKey);
    await client.result('core.set_options', [{ legacy_jobs: false }]);
    for (const path of ['/mnt/tank/dirlink', '/mnt/tank/dirlink/f.txt']) {
      const refused = await client.call('filesystem.statfs', [path]);
      expect(refused.error?.data, path).toMatchObject({
        error: 40,
        errname: 'ELOOP',
        reason: '[ELOOP] Symlinks are not permitted.',
        trace: { class: 'CallError' },
      });
    }
    expect(await client.result('filesystem.statfs', ['/mnt/tank/dir'])).toMatchObject({ dest: '/mnt/tank' });
    const [jobId] = await client.result<[number, string]>('core.download', [
      'filesystem.get',
      ['/mnt/tank/filelink'],
      'f.txt',
    ]);
    const failed = await client.call('core.job_wait', [jobId]);
    expect(failed.error?.data?.['reason']).toContain('Too many levels of symbolic links');
    const put = await upload(next, '/mnt/tank/filelink');
    const putJob = (JSON.parse(put.text) as { job_id: number }).job_id;
    expect((await client.call('core.job_wait', [putJob])).error?.data?.['reason']).toContain(
      'Too many levels of symbolic links',
    );

    const old = await startTestServer(EMULATIONS['truenas-25.10.1']);
    links(old);
    const oldClient = await loggedInWs(old.rpcUrl, old.adminKey);
    expect(await oldClient.result('filesystem.statfs', ['/mnt/tank/dirlink'])).toMatchObject({ dest: '/mnt/tank' });
    await oldClient.result('core.set_options', [{ legacy_jobs: false }]);
    const [, url] = await oldClient.result<[number, string]>('core.download', [
      'filesystem.get',
      ['/mnt/tank/filelink'],
      'f.txt',
    ]);
    expect(await (await fetch(`${old.url}${url}`)).text()).toBe('hello');
  });

  it("a bad email is EmailString's ValueError on 26 (MW/api/v26_0_0/user.py:272, MW/api/base/validators/base.py:40-75); 25.10.1 words it as pydantic's EmailStr", async () => {
    const make = (email: string): [string, unknown[]] => [
      'user.create',
      [{ username: 'mailtest', full_name: 'M', group_create: true, password_disabled: true, smb: false, email }],
    ];
    const next = await startTestServer(EMULATIONS['truenas-26.0']);
    const client = await loggedInWs(next.rpcUrl, next.adminKey);
    const texts = async (c: typeof client, email: string) => (await c.call(...make(email))).error?.data?.['extra'];
    expect(await texts(client, 'nobody')).toEqual([['user_create.email', "Value error, Missing '@' symbol.", 22]]);
    expect(await texts(client, '@example.com')).toEqual([
      ['user_create.email', "Value error, Missing local part of email string (part before the '@').", 22],
    ]);
    expect(await texts(client, 'bob@')).toEqual([
      ['user_create.email', "Value error, Missing domain part of email string (part after the '@').", 22],
    ]);
    expect(await texts(client, `${'a'.repeat(250)}@b.cd`)).toEqual([
      ['user_create.email', 'Value error, Maximum length is 254 characters.', 22],
    ]);
    // No period needed after the @ (EmailStr wants one).
    expect((await client.call(...make('bob@localhost'))).error).toBeUndefined();
    const old = await startTestServer(EMULATIONS['truenas-25.10.1']);
    const oldClient = await loggedInWs(old.rpcUrl, old.adminKey);
    expect(await texts(oldClient, 'nobody')).toEqual([
      ['user_create.email', 'value is not a valid email address: An email address must have an @-sign.', 22],
    ]);
  });

  it('user.set_password for a user that does not exist: ValidationErrors on 26 (stable/26 MW/plugins/account.py:1943-1948 checks at once); the TypeError before (TS-25.10.1 :1804-1843)', async () => {
    const next = await startTestServer(EMULATIONS['truenas-26.0']);
    const client = await loggedInWs(next.rpcUrl, next.adminKey);
    const missing = await client.call('user.set_password', [{ username: 'ghost', new_password: 'pw' }]);
    expect(missing.error?.data).toMatchObject({
      extra: [['user.set_password.username', 'ghost: user does not exist.', 22]],
      trace: { class: 'ValidationErrors' },
    });
    const old = await startTestServer(EMULATIONS['truenas-25.10.6']);
    const oldClient = await loggedInWs(old.rpcUrl, old.adminKey);
    expect(
      (await oldClient.call('user.set_password', [{ username: 'ghost', new_password: 'pw' }])).error?.data?.['trace'],
    ).toMatchObject({ class: 'TypeError' });
  });

  it("pool.query entries carry all_sed (false: pool.create's default, MW/api/v26_0_0/pool.py:40, :271) and a typed scan, null when no scan ever ran (MW/api/v26_0_0/pool.py:45, MW/plugins/zpool/query_impl.py:67-79); 25.10.1 has no all_sed and the untyped scan dict of nulls", async () => {
    const next = await startTestServer(EMULATIONS['truenas-26.0']);
    const client = await loggedInWs(next.rpcUrl, next.adminKey);
    const [tank] = await client.result<Entry[]>('pool.query', [[['name', '=', 'tank']]]);
    expect(tank).toMatchObject({ name: 'tank', all_sed: false, status: 'ONLINE', scan: null });
    expect(await client.result<Entry>('pool.get_instance', [tank!['id']])).toMatchObject({
      all_sed: false,
      scan: null,
    });
    const old = await startTestServer(EMULATIONS['truenas-25.10.1']);
    const oldClient = await loggedInWs(old.rpcUrl, old.adminKey);
    const [oldTank] = await oldClient.result<Entry[]>('pool.query', [[['name', '=', 'tank']]]);
    expect(oldTank).not.toHaveProperty('all_sed');
    expect(oldTank!['scan']).toMatchObject({ function: null, state: null, errors: null });
  });

  it('pool.dataset.create checks each user property key in order: managed by TrueNAS, not a valid ZFS user property name, specified more than once (stable/26 MW/plugins/pool_/dataset.py:351-366); 25.10.1 has no such check (TS-25.10.1 :357-378 checks update only)', async () => {
    const props = [
      { key: 'org.freenas:description', value: 'a' },
      { key: 'Upper:case', value: 'b' },
      { key: `a:${'x'.repeat(254)}`, value: 'c' },
      { key: 'org.truenas:managedby', value: 'd' },
      { key: 'mine:tag', value: 'e' },
      { key: 'mine:tag', value: 'f' },
    ];
    const next = await startTestServer(EMULATIONS['truenas-26.0']);
    const client = await loggedInWs(next.rpcUrl, next.adminKey);
    const refused = await client.call('pool.dataset.create', [{ name: 'tank/props', user_properties: props }]);
    expect(refused.error?.data?.['extra']).toEqual([
      [
        'pool_dataset_create.user_properties.0.key',
        "'org.freenas:description' is managed by TrueNAS, use the 'comments' field to set it.",
        22,
      ],
      ['pool_dataset_create.user_properties.1.key', "'Upper:case' is not a valid ZFS user property name.", 22],
      [
        'pool_dataset_create.user_properties.2.key',
        `'a:${'x'.repeat(254)}' is not a valid ZFS user property name.`,
        22,
      ],
      [
        'pool_dataset_create.user_properties.3.key',
        "'org.truenas:managedby' is managed by TrueNAS, use the 'managedby' field to set it.",
        22,
      ],
      ['pool_dataset_create.user_properties.5.key', "'mine:tag' is specified more than once.", 22],
    ]);
    const made = await client.result<Entry>('pool.dataset.create', [
      {
        name: 'tank/props',
        user_properties: [
          { key: 'mine:tag', value: 'e' },
          { key: `a:${'x'.repeat(253)}`, value: 'g' },
        ],
      },
    ]);
    expect(Object.keys(made['user_properties'] as Entry)).toEqual(expect.arrayContaining(['mine:tag']));
    // Update keeps the checks 25.10.1 already has (stable/26 :368-389, TS-25.10.1 :357-378).
    const both = await client.call('pool.dataset.update', [
      'tank/props',
      {
        user_properties: [{ key: 'mine:tag', value: 'x' }],
        user_properties_update: [{ key: 'mine:tag', remove: true }],
      },
    ]);
    expect(both.error?.data?.['extra']).toEqual([
      [
        'pool_dataset_update.user_properties_update',
        'Should not be specified when "user_properties" are explicitly specified',
        22,
      ],
    ]);

    const old = await startTestServer(EMULATIONS['truenas-25.10.1']);
    const oldClient = await loggedInWs(old.rpcUrl, old.adminKey);
    const oldMade = await oldClient.call('pool.dataset.create', [
      {
        name: 'tank/props',
        user_properties: [
          { key: 'mine:tag', value: 'e' },
          { key: 'mine:tag', value: 'f' },
        ],
      },
    ]);
    expect(oldMade.error).toBeUndefined();
  });
});
