/**
 * sharing.smb.* and smb.config/update of `stor serve --emulate truenas-25.10.1` and `truenas-26.0`,
 * driven with raw JSON-RPC frames: answers against the release's contract (MW/api/v25_10_1/smb.py,
 * MW/api/v26_0_0/smb.py at stable/26) and errors against the words of MW/plugins/smb.py
 * (SharingSMBService) at TS-25.10.1.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { contractViolations } from '../../../../src/core/contract/conformance.js';
import { contractFor } from '../../../../src/core/releases/index.js';
import { createUserWithKey } from '../../../helpers/appliance.js';
import { loggedInWs, startTestServer, type Message, type WsClient } from '../../../helpers/server.js';
import { errorOf, validation } from '../../../conformance/harness.js';

type Entry = Record<string, any>;
const RELEASES = ['25.10.1', '26.0'] as const;
type Release = (typeof RELEASES)[number];

async function session(release: Release = '25.10.1') {
  const settings =
    release === '26.0' ? { ...EMULATIONS['truenas-26.0'], keyLogin: 'plain' as const } : EMULATIONS['truenas-25.10.1'];
  const server = await startTestServer(settings);
  const ws = await loggedInWs(server.rpcUrl, server.adminKey);
  // A call that must succeed, its answer held to the release's own result schema.
  const ok = async <T = any>(method: string, params: unknown[] = []): Promise<T> => {
    const reply = await ws.call(method, params);
    expect(reply.error, `${method} ${JSON.stringify(params)}`).toBeUndefined();
    expect(contractViolations(contractFor(release, 'plain').get(method)!.result, reply.result)).toEqual([]);
    return reply.result as T;
  };
  await ok('pool.dataset.create', [{ name: 'tank/docs' }]);
  return { server, ws, ok };
}

const DEFAULT_OPTIONS = { aapl_name_mangling: false, hostsallow: [], hostsdeny: [] };

describe.each(RELEASES)(
  'sharing.smb create → get_instance → update → delete on %s (MW/plugins/smb.py:727-1017)',
  (release) => {
    it('answers the share entry with the purpose defaults, then the update, then true and not-found', async () => {
      const { ws, ok } = await session(release);
      const created = await ok<Entry>('sharing.smb.create', [{ name: 'docs', path: '/mnt/tank/docs' }]);
      const extra26 = release === '26.0' ? { dataset: 'tank/docs', relative_path: '', tier: null } : {};
      // SmbShareCreate's defaults and DefaultOpt's (MW/api/v25_10_1/smb.py:279-300, 598-702, 788-821).
      expect(created).toEqual({
        id: 1,
        purpose: 'DEFAULT_SHARE',
        name: 'docs',
        path: '/mnt/tank/docs',
        enabled: true,
        comment: '',
        readonly: false,
        browsable: true,
        access_based_share_enumeration: false,
        locked: false,
        audit: { enable: false, watch_list: [], ignore_list: [] },
        options: DEFAULT_OPTIONS,
        ...extra26,
      });
      expect(await ok('sharing.smb.get_instance', [1])).toEqual(created);
      // sharing_task_extend_context: a `select` without `locked` leaves it unworked (MW/service/sharing_service.py:23-43).
      expect(await ok('sharing.smb.query', [[['name', 'C=', 'DOCS']], { select: ['name', 'locked'] }])).toEqual([
        { name: 'docs', locked: false },
      ]);
      const updated = await ok<Entry>('sharing.smb.update', [
        1,
        { comment: 'team', purpose: 'MULTIPROTOCOL_SHARE', options: { hostsallow: ['10.0.0.0/8'] } },
      ]);
      expect(updated).toMatchObject({
        comment: 'team',
        purpose: 'MULTIPROTOCOL_SHARE',
        options: { aapl_name_mangling: false, hostsallow: ['10.0.0.0/8'], hostsdeny: [] },
      });
      expect(await ok('sharing.smb.delete', [1])).toBe(true);
      expect(errorOf(await ws.call('sharing.smb.get_instance', [1]))).toMatchObject({
        data: { reason: '[ENOENT] None: SharingSMB 1 does not exist' },
        traceClass: 'InstanceNotFound',
      });
    });

    it('26.0 names the dataset and the path below its mountpoint; 25.10.1 has no such fields', async () => {
      const { ok, server } = await session(release);
      mkdirSync(join(server.stateDir, 'mnt', 'tank', 'docs', 'sub'));
      const share = await ok<Entry>('sharing.smb.create', [{ name: 'sub', path: '/mnt/tank/docs/sub' }]);
      if (release === '26.0') expect(share).toMatchObject({ dataset: 'tank/docs', relative_path: 'sub', tier: null });
      else expect(share).not.toHaveProperty('dataset');
    });
  },
);

describe('sharing.smb.create validation on 25.10.1, in the source order and words', () => {
  it('refuses reserved names, names over 80 characters and illegal characters (SmbShareName, MW/utils/smb.py:114-136)', async () => {
    const { ws } = await session();
    const create = (name: string) => ws.call('sharing.smb.create', [{ name, path: '/mnt/tank/docs' }]);
    expect(errorOf(await create('HOMES'))).toEqual(
      validation(['data.name', 'Value error, HOMES: share name is reserved.']),
    );
    const long = 'x'.repeat(300);
    expect(errorOf(await create(long))).toEqual(
      validation(['data.name', `Value error, ${long}: share name must not exceed 80 characters in length`]),
    );
    expect(errorOf(await create('a/b'))).toEqual(
      validation(['data.name', 'Value error, a/b: share name contains the following invalid characters: /']),
    );
  });

  it('refuses a name that differs from another share only in case (MW/plugins/smb.py:1253-1254)', async () => {
    const { ws, ok } = await session();
    await ok('sharing.smb.create', [{ name: 'Docs', path: '/mnt/tank/docs' }]);
    expect(errorOf(await ws.call('sharing.smb.create', [{ name: 'DOCS', path: '/mnt/tank/docs' }]))).toEqual(
      validation(['sharingsmb_create.name', 'Share names are case-insensitive and must be unique']),
    );
  });

  it("once a share is named 'name', every other create is refused: validate_share_name is handed the field's name (MW/plugins/smb.py:1288-1289)", async () => {
    const { ws, ok } = await session();
    await ok('sharing.smb.create', [{ name: 'name', path: '/mnt/tank/docs' }]);
    const err = errorOf(await ws.call('sharing.smb.create', [{ name: 'other', path: '/mnt/tank/docs' }]));
    expect(err.data.extra).toEqual([['sharingsmb_create.name', 'Share with this name already exists.', 17]]);
  });

  it('refuses /mnt, which lies in no pool, and a symbolic link (MW/validators.py:189-193, MW/plugins/smb.py:1173-1176)', async () => {
    const { ws, server } = await session();
    expect(errorOf(await ws.call('sharing.smb.create', [{ name: 'm', path: '/mnt' }]))).toEqual(
      validation(['sharingsmb_create.path', 'The path must reside within a pool mount point']),
    );
    symlinkSync(join(server.stateDir, 'mnt', 'tank', 'docs'), join(server.stateDir, 'mnt', 'tank', 'link'));
    expect(errorOf(await ws.call('sharing.smb.create', [{ name: 'l', path: '/mnt/tank/link' }]))).toEqual(
      validation(['sharingsmb_create.path', '/mnt/tank/link: is symbolic link.']),
    );
  });

  it('a path that does not exist ends the call with filesystem.stat’s CallError, which validate() does not catch (MW/plugins/smb.py:1266)', async () => {
    const { ws } = await session();
    expect(errorOf(await ws.call('sharing.smb.create', [{ name: 'gone', path: '/mnt/tank/gone' }]))).toMatchObject({
      code: -32001,
      data: { error: 2, errname: 'ENOENT', reason: '[ENOENT] Path /mnt/tank/gone not found' },
    });
  });

  it('accepts the pool root: 25.10.1 does not refuse it for SMB (MW/plugins/smb.py:1212-1228)', async () => {
    const { ok } = await session();
    expect(await ok<Entry>('sharing.smb.create', [{ name: 'root', path: '/mnt/tank' }])).toMatchObject({
      path: '/mnt/tank',
    });
  });

  it('refuses an external path for a local purpose, and a local path for an external share (MW/plugins/smb.py:1207-1210, 1259-1264; MW/api/v25_10_1/smb.py:784-786)', async () => {
    const { ws } = await session();
    expect(errorOf(await ws.call('sharing.smb.create', [{ name: 'e', path: 'EXTERNAL:srv\\s' }]))).toEqual(
      validation(
        ['sharingsmb_create.path', 'EXTERNAL:srv\\s: Path must be set to "EXTERNAL"'],
        ['sharingsmb_create.path', 'External paths may only be set for shares with an EXTERNAL_SHARE purpose'],
      ),
    );
    const external = {
      name: 'e',
      path: '/mnt/tank/docs',
      purpose: 'EXTERNAL_SHARE',
      options: { remote_path: ['srv\\s'] },
    };
    expect(errorOf(await ws.call('sharing.smb.create', [external]))).toEqual(
      validation(['data', 'Value error, You must set `path` to "EXTERNAL" for external shares.']),
    );
  });

  it.each(RELEASES)(
    'on %s options need a purpose; a purpose takes only its own options, and FCP_SHARE locks aapl_name_mangling (MW/api/v25_10_1/smb.py:549-595, 750-770; MW/api/v26_0_0/smb.py:848-852, 1139 at TS-26.0.0-BETA.3)',
    async (release) => {
      const { ws } = await session(release);
      const create = (more: object) => ws.call('sharing.smb.create', [{ name: 's', path: '/mnt/tank/docs', ...more }]);
      expect(errorOf(await create({ options: { hostsallow: [] } }))).toEqual(
        validation(['data', 'Value error, You must set `purpose` if you set `options`.']),
      );
      expect(errorOf(await create({ purpose: 'DEFAULT_SHARE', options: { guestok: true } }))).toEqual(
        validation(['data.options.DEFAULT_SHARE.guestok', 'Extra inputs are not permitted']),
      );
      expect(errorOf(await create({ purpose: 'FCP_SHARE', options: { aapl_name_mangling: false } }))).toEqual(
        validation(['data.options.FCP_SHARE.aapl_name_mangling', 'Input should be True']),
      );
    },
  );

  it('Final Cut Pro and Time Machine shares need aapl_extensions; with it they are made, Time Machine with a volume UUID (MW/plugins/smb.py:754-761, 1336-1348)', async () => {
    const { ws, ok } = await session();
    const aapl =
      'Apple SMB2/3 protocol extension support is required by this parameter. This feature may be enabled in the general SMB server configuration.';
    expect(
      errorOf(await ws.call('sharing.smb.create', [{ name: 'fcp', path: '/mnt/tank/docs', purpose: 'FCP_SHARE' }])),
    ).toEqual(validation(['sharingsmb_create.purpose', aapl]));
    await ok('smb.update', [{ aapl_extensions: true }]);
    expect(
      await ok<Entry>('sharing.smb.create', [{ name: 'fcp', path: '/mnt/tank/docs', purpose: 'FCP_SHARE' }]),
    ).toMatchObject({
      options: { aapl_name_mangling: true, hostsallow: [], hostsdeny: [] },
    });
    const tm = await ok<Entry>('sharing.smb.create', [
      { name: 'tm', path: '/mnt/tank/docs', purpose: 'TIMEMACHINE_SHARE' },
    ]);
    expect(tm.options.vuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // smb.update refuses to turn them off while such shares stand (MW/plugins/smb.py:526-538).
    expect(errorOf(await ws.call('smb.update', [{ aapl_extensions: false }]))).toEqual(
      validation([
        'smb_update.aapl_extensions',
        'This option must be enabled when AFP, time machine, or Final Cut Pro shares are present',
      ]),
    );
  });

  it('auditing needs a watch or ignore list of existing groups (MW/plugins/smb.py:1303-1330)', async () => {
    const { ws } = await session();
    const create = (audit: object) => ws.call('sharing.smb.create', [{ name: 'a', path: '/mnt/tank/docs', audit }]);
    expect(errorOf(await create({ enable: true }))).toEqual(
      validation([
        'sharingsmb_create.audit.enable',
        'Watch list or ignore list is required to enable auditing for an SMB share.',
      ]),
    );
    expect(errorOf(await create({ enable: true, watch_list: ['nosuchgroup'] }))).toEqual(
      validation(
        ['sharingsmb_create.audit.watch_list.0', 'nosuchgroup: group does not exist.'],
        [
          'sharingsmb_create.audit.enable',
          'Watch list or ignore list is required to enable auditing for an SMB share.',
        ],
      ),
    );
    // nogroup (65534) is a built-in group, not an SMB one: it still counts as a limit.
    expect(errorOf(await create({ enable: true, watch_list: ['nosuchgroup'], ignore_list: ['nogroup'] }))).toEqual(
      validation(
        ['sharingsmb_create.audit.watch_list.0', 'nosuchgroup: group does not exist.'],
        ['sharingsmb_create.audit.ignore_list.0', 'nogroup: not an SMB group.'],
      ),
    );
  });

  it('a share is never on a locked dataset in the emulator: locked is false (MW/service/sharing_service.py:82-106)', async () => {
    const { ok } = await session();
    await ok('sharing.smb.create', [{ name: 'docs', path: '/mnt/tank/docs' }]);
    expect(await ok('sharing.smb.query', [[['locked', '=', true]], { count: true }])).toBe(0);
  });
});

describe('sharing.smb.update validation on 25.10.1 (MW/plugins/smb.py:834-884)', () => {
  it('checks the share as it would become: a name another share has but for case, a bad volume UUID; an unknown id is not found', async () => {
    const { ws, ok } = await session();
    await ok('sharing.smb.create', [{ name: 'a', path: '/mnt/tank/docs' }]);
    const b = await ok<Entry>('sharing.smb.create', [{ name: 'b', path: '/mnt/tank/docs' }]);
    expect(errorOf(await ws.call('sharing.smb.update', [b.id, { name: 'A' }]))).toEqual(
      validation(['sharingsmb_update.name', 'Share names are case-insensitive and must be unique']),
    );
    await ok('smb.update', [{ aapl_extensions: true }]);
    expect(
      errorOf(
        await ws.call('sharing.smb.update', [b.id, { purpose: 'TIMEMACHINE_SHARE', options: { vuid: 'not-a-uuid' } }]),
      ),
    ).toEqual(validation(['sharingsmb_update.options.vuid', 'Invalid UUID']));
    // A null vuid gets one when the share had none (MW/plugins/smb.py:870-877).
    const tm = await ok<Entry>('sharing.smb.update', [b.id, { purpose: 'TIMEMACHINE_SHARE', options: { vuid: null } }]);
    expect(tm.options.vuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(errorOf(await ws.call('sharing.smb.update', [99, { comment: 'x' }])).data.reason).toBe(
      '[ENOENT] None: SharingSMB 99 does not exist',
    );
  });
});

describe('smb.update against the shares (MW/plugins/smb.py:540-547; stable/26 :500-507, 597-625)', () => {
  const audited = {
    name: 'docs',
    path: '/mnt/tank/docs',
    audit: { enable: true, watch_list: ['builtin_administrators'] },
  };

  it('25.10.1 refuses SMB1 while a share is audited', async () => {
    const { ws, ok } = await session();
    await ok('sharing.smb.create', [audited]);
    expect(errorOf(await ws.call('smb.update', [{ enable_smb1: true }]))).toEqual(
      validation(['smb_update.enable_smb1', 'The following SMB shares have auditing enabled: docs']),
    );
  });

  it('26.0 refuses minimum_protocol SMB1 while a share is audited, and stateful failover without an HA licence', async () => {
    const { ws, ok } = await session('26.0');
    await ok('sharing.smb.create', [audited]);
    expect(errorOf(await ws.call('smb.update', [{ minimum_protocol: 'SMB1' }]))).toEqual(
      validation(['smb_update.minimum_protocol', 'The following SMB shares have auditing enabled: docs']),
    );
    expect(errorOf(await ws.call('smb.update', [{ stateful_failover: true }]))).toEqual(
      validation([
        'smb_update.stateful_failover',
        'This feature is only available for HA-capable TrueNAS Enterprise servers.',
      ]),
    );
  });
});

describe('sharing.smb.presets and share_precheck', () => {
  it('presets names each purpose in the enum order with its verbose name (MW/plugins/smb.py:1531-1537)', async () => {
    const { ok } = await session();
    const presets = await ok<Record<string, unknown>>('sharing.smb.presets');
    expect(Object.keys(presets)).toEqual([
      'DEFAULT_SHARE',
      'LEGACY_SHARE',
      'TIMEMACHINE_SHARE',
      'MULTIPROTOCOL_SHARE',
      'PRIVATE_DATASETS_SHARE',
      'EXTERNAL_SHARE',
      'TIME_LOCKED_SHARE',
      'VEEAM_REPOSITORY_SHARE',
      'FCP_SHARE',
    ]);
    expect(presets.FCP_SHARE).toEqual({ verbose_name: 'FCP_SHARE' });
  });

  it('share_precheck wants a local SMB user, then a free name (MW/plugins/smb.py:1353-1375)', async () => {
    const { ws, ok } = await session();
    expect(errorOf(await ws.call('sharing.smb.share_precheck', [{}]))).toEqual(
      validation([
        'sharing.smb.share_precheck',
        'TrueNAS server must be joined to a directory service or have at least one local SMB user before creating an SMB share.',
      ]),
    );
    await ok('user.create', [
      { username: 'carol', full_name: 'Carol', group_create: true, password: 'pw-carol-1', smb: true },
    ]);
    expect(await ok('sharing.smb.share_precheck', [{ name: 'docs' }])).toBeNull();
    await ok('sharing.smb.create', [{ name: 'docs', path: '/mnt/tank/docs' }]);
    expect(errorOf(await ws.call('sharing.smb.share_precheck', [{ name: 'DOCS' }])).data.extra).toEqual([
      ['sharing.smb.share_precheck.name', 'Share with this name already exists.', 17],
    ]);
  });
});

describe('sharing.smb.getacl / setacl (MW/plugins/smb.py:1539-1714, MW/plugins/smb_/sharesec.py:78-141)', () => {
  it('a new share grants everyone full control; an SMB user set by id reads back with its SID, id and name; [] restores the default', async () => {
    const { ok } = await session();
    await ok('sharing.smb.create', [{ name: 'docs', path: '/mnt/tank/docs' }]);
    const everyone = {
      ae_who_sid: 'S-1-1-0',
      ae_perm: 'FULL',
      ae_type: 'ALLOWED',
      ae_who_id: null,
      ae_who_str: 'everyone@',
    };
    expect(await ok('sharing.smb.getacl', [{ share_name: 'DOCS' }])).toEqual({
      share_name: 'DOCS',
      share_acl: [everyone],
    });
    const carol = await ok<Entry>('user.create', [
      { username: 'carol', full_name: 'Carol', group_create: true, password: 'pw-carol-1', smb: true },
    ]);
    const set = await ok<Entry>('sharing.smb.setacl', [
      {
        share_name: 'docs',
        share_acl: [{ ae_who_id: { id_type: 'USER', id: carol.uid }, ae_perm: 'READ', ae_type: 'ALLOWED' }],
      },
    ]);
    expect(set.share_acl).toEqual([
      {
        ae_who_sid: carol.sid,
        ae_perm: 'READ',
        ae_type: 'ALLOWED',
        ae_who_id: { id_type: 'USER', id: carol.uid },
        ae_who_str: 'carol',
      },
    ]);
    expect(await ok('sharing.smb.getacl', [{ share_name: 'docs' }])).toEqual(set);
    expect((await ok<Entry>('sharing.smb.setacl', [{ share_name: 'docs', share_acl: [] }])).share_acl).toEqual([
      everyone,
    ]);
  });

  it('refuses a non-SMB account and a share that does not exist, in one ValidationErrors', async () => {
    const { ws, ok } = await session();
    const nobody = (await ok<Entry[]>('user.query', [[['username', '=', 'nobody']]]))[0]!;
    expect(
      errorOf(
        await ws.call('sharing.smb.setacl', [
          {
            share_name: 'nope',
            share_acl: [{ ae_who_id: { id_type: 'USER', id: nobody.uid }, ae_perm: 'FULL', ae_type: 'ALLOWED' }],
          },
        ]),
      ),
    ).toEqual(
      validation(
        ['sharing_smb_setacl.share_acl.0.ae_who_id', 'User or group does must exist and be an SMB account.'],
        ['smb_share_acl.share_name', 'Share does not exist'],
      ),
    );
    expect(errorOf(await ws.call('sharing.smb.getacl', [{ share_name: 'nope' }]))).toEqual(
      validation(['sharing_smb_getacl.share_name', 'Share does not exist']),
    );
  });
});

describe('sharing.smb events and the datasets under shares', () => {
  const update = (collection: string, msg: string) => (m: Message) =>
    m.method === 'collection_update' && m.params?.collection === collection && m.params?.msg === msg;

  it('create, update and delete send ADDED, CHANGED and REMOVED on sharing.smb.query (MW/service/crud_service.py:204-216)', async () => {
    const { server, ok } = await session();
    const watcher: WsClient = await loggedInWs(server.rpcUrl, server.adminKey);
    await watcher.result('core.subscribe', ['sharing.smb.query']);
    const created = await ok<Entry>('sharing.smb.create', [{ name: 'docs', path: '/mnt/tank/docs' }]);
    expect((await watcher.waitFor(update('sharing.smb.query', 'added'))).params).toEqual({
      msg: 'added',
      collection: 'sharing.smb.query',
      id: 1,
      fields: created,
    });
    const changed = await ok<Entry>('sharing.smb.update', [1, { comment: 'x' }]);
    expect((await watcher.waitFor(update('sharing.smb.query', 'changed'))).params).toMatchObject({
      id: 1,
      fields: changed,
    });
    await ok('sharing.smb.delete', [1]);
    expect((await watcher.waitFor(update('sharing.smb.query', 'removed'))).params).toEqual({
      msg: 'removed',
      collection: 'sharing.smb.query',
      id: 1,
    });
  });

  it('pool.dataset.delete deletes the enabled shares on the dataset, each with its REMOVED, and leaves a disabled one (MW/plugins/pool_/dataset.py:827-832, MW/plugins/smb.py:1754-1760)', async () => {
    const { server, ok } = await session();
    await ok('sharing.smb.create', [{ name: 'on', path: '/mnt/tank/docs' }]);
    await ok('sharing.smb.create', [{ name: 'off', path: '/mnt/tank/docs', enabled: false }]);
    await ok('sharing.smb.create', [{ name: 'root', path: '/mnt/tank' }]);
    const watcher = await loggedInWs(server.rpcUrl, server.adminKey);
    await watcher.result('core.subscribe', ['sharing.smb.query']);
    await ok('pool.dataset.delete', ['tank/docs']);
    expect((await watcher.waitFor(update('sharing.smb.query', 'removed'))).params).toMatchObject({ id: 1 });
    expect((await ok<Entry[]>('sharing.smb.query')).map((s) => s.name)).toEqual(['off', 'root']);
  });
});

describe('roles (MW/plugins/smb.py:724: role_prefix SHARING_SMB)', () => {
  it('a READONLY_ADMIN user may query but not create', async () => {
    const { server, ok } = await session();
    await ok('sharing.smb.create', [{ name: 'docs', path: '/mnt/tank/docs' }]);
    const { key } = await createUserWithKey(server.testAppliance, 'ro', { privilegeRoles: ['READONLY_ADMIN'] });
    const ro = await loggedInWs(server.rpcUrl, key);
    expect(((await ro.call('sharing.smb.query')).result as Entry[]).map((s) => s.name)).toEqual(['docs']);
    expect((await ro.call('smb.config')).error).toBeUndefined();
    expect(errorOf(await ro.call('sharing.smb.create', [{ name: 'x', path: '/mnt/tank/docs' }])).data).toMatchObject({
      errname: 'EACCES',
    });
  });
});

describe('smb.config / smb.update (MW/plugins/smb.py:87-658)', () => {
  it('a fresh install answers the initial services_cifs row (MW/alembic/initial.sql:208)', async () => {
    const { ok } = await session();
    expect(await ok<Entry>('smb.config')).toMatchObject({
      id: 1,
      netbiosname: 'truenas',
      workgroup: 'WORKGROUP',
      description: 'TrueNAS Server',
      enable_smb1: false,
      guest: 'nobody',
      aapl_extensions: false,
      encryption: 'DEFAULT',
      server_sid: expect.stringMatching(/^S-1-5-21-\d+-\d+-\d+$/),
    });
  });

  it('refuses root as guest and a netbiosname equal to the workgroup (MW/plugins/smb.py:465-500)', async () => {
    const { ws } = await session();
    expect(errorOf(await ws.call('smb.update', [{ guest: 'root', netbiosname: 'WORKGROUP' }]))).toEqual(
      validation(
        ['smb_update.netbiosname', 'NetBIOS name [WORKGROUP] conflicts with workgroup name.'],
        ['smb_update.guest', '"root" is not a permitted guest account'],
      ),
    );
  });

  it('26.0 answers minimum_protocol for enable_smb1, and search_protocols and stateful_failover (MW/api/v26_0_0/smb.py:156-306)', async () => {
    const { ok } = await session('26.0');
    const config = await ok<Entry>('smb.config');
    expect(config).toMatchObject({ minimum_protocol: 'SMB2', search_protocols: [], stateful_failover: false });
    expect(config).not.toHaveProperty('enable_smb1');
    expect(await ok<Entry>('smb.update', [{ minimum_protocol: 'SMB3' }])).toMatchObject({ minimum_protocol: 'SMB3' });
  });
});
