import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { type MethodName } from '../../../../src/core/contract/index.js';
import { loggedInWs, startTestServer, type WsClient } from '../../../helpers/server.js';
import { conforming } from '../../../conformance/harness.js';

type Entry = Record<string, any>;

async function setup(): Promise<WsClient> {
  const server = await startTestServer(EMULATIONS['truenas-25.10.1']);
  return loggedInWs(server.rpcUrl, server.adminKey);
}

const ok = conforming;

async function fail(ws: WsClient, method: MethodName, params: unknown[]) {
  const reply = await ws.call(method, params);
  expect(reply.result, `${method} ${JSON.stringify(params)} should fail`).toBeUndefined();
  return reply.error!;
}

/** A validation failure: -32602 with exactly these `[attribute, message, errno]` triples. */
async function invalid(ws: WsClient, method: MethodName, params: unknown[], triples: [string, string, number][]) {
  const error = await fail(ws, method, params);
  expect({ code: error.code, errname: error.data?.errname, extra: error.data?.extra }).toEqual({
    code: -32602,
    errname: 'EINVAL',
    extra: triples,
  });
}

const GiB = 1024 ** 3;
const prop = (e: Entry, name: string) =>
  e[name] as { parsed: unknown; rawvalue: string; value: string | null; source: string; source_info: unknown };

describe('pool.dataset.query / get_instance (MW/plugins/pool_/dataset.py:125-167, MW/service/crud_service.py:228-242)', () => {
  it('answers lists, counts and single entries in the PoolDatasetEntry shape; an unknown id is -32602 ENOENT (MW/api/v25_10_1/pool_dataset.py PoolDatasetEntry)', async () => {
    const ws = await setup();
    await ok(ws, 'pool.dataset.create', [{ name: 'tank/a' }]);
    const all = await ok<Entry[]>(ws, 'pool.dataset.query', []);
    expect(all.map((e) => e.id)).toEqual(['tank', 'tank/a']);
    expect(all[0]!.children.map((c: Entry) => c.id)).toEqual(['tank/a']);
    expect(await ok(ws, 'pool.dataset.query', [[], { count: true }])).toBe(2);
    expect(
      await ok(ws, 'pool.dataset.query', [[['id', '=', 'tank/a']], { get: true, select: ['id', 'mountpoint'] }]),
    ).toEqual({ id: 'tank/a', mountpoint: '/mnt/tank/a' });
    const one = await ok(ws, 'pool.dataset.get_instance', ['tank/a']);
    expect(one).toMatchObject({
      id: 'tank/a',
      type: 'FILESYSTEM',
      name: 'tank/a',
      pool: 'tank',
      encrypted: false,
      encryption_root: null,
      locked: false,
    });
    const missing = await fail(ws, 'pool.dataset.get_instance', ['tank/nope']);
    expect(missing.code).toBe(-32602);
    expect(missing.data).toMatchObject({
      error: 22,
      errname: 'EINVAL',
      reason: '[ENOENT] None: PoolDataset tank/nope does not exist',
    });
  });
});

describe('pool.dataset.create takes the whole 25.10.1 model (MW/api/v25_10_1/pool_dataset.py:191-289)', () => {
  it('a filesystem with every common field: thresholds in user_properties, snapdev, special_small_block_size, ZSTD-n, a 1 GiB quota (MW/plugins/pool_/dataset.py:560-590)', async () => {
    const ws = await setup();
    const e = await ok(ws, 'pool.dataset.create', [
      {
        name: 'tank/full',
        comments: 'all of it',
        compression: 'ZSTD-7',
        snapdev: 'VISIBLE',
        special_small_block_size: 4096,
        quota: GiB,
        refquota: 0,
        quota_warning: 70,
        quota_critical: 90,
        refquota_warning: 'INHERIT',
        copies: 2,
        managedby: 'ops',
      },
    ]);
    expect(prop(e, 'compression')).toEqual({
      parsed: 'zstd-7',
      rawvalue: 'zstd-7',
      value: 'ZSTD-7',
      source: 'LOCAL',
      source_info: null,
    });
    expect(prop(e, 'snapdev')).toMatchObject({ value: 'VISIBLE', source: 'LOCAL' });
    expect(prop(e, 'special_small_block_size')).toMatchObject({ parsed: '4096', value: '4096', source: 'LOCAL' });
    expect(prop(e, 'quota')).toMatchObject({ parsed: GiB, rawvalue: String(GiB), value: '1 GiB', source: 'LOCAL' });
    expect(prop(e, 'refquota')).toMatchObject({ parsed: null, value: null });
    expect(Object.keys(e.user_properties).sort()).toEqual(['comments', 'managedby', 'quota_critical', 'quota_warning']);
    expect(e.user_properties.quota_warning).toEqual({
      parsed: '70',
      rawvalue: '70',
      value: '70',
      source: 'LOCAL',
      source_info: null,
    });
    expect(e).not.toHaveProperty('quota_warning');
  });

  it('share_type SMB presets INSENSITIVE/NFSV4/RESTRICTED, NFS presets SENSITIVE/atime OFF/NFSV4/PASSTHROUGH (MW/plugins/pool_/dataset.py:438-447)', async () => {
    const ws = await setup();
    const smb = await ok(ws, 'pool.dataset.create', [{ name: 'tank/smb', share_type: 'SMB', acltype: 'POSIX' }]);
    expect(['casesensitivity', 'acltype', 'aclmode'].map((p) => prop(smb, p).value)).toEqual([
      'INSENSITIVE',
      'NFSV4',
      'RESTRICTED',
    ]);
    const nfs = await ok(ws, 'pool.dataset.create', [{ name: 'tank/nfs', share_type: 'NFS' }]);
    expect(['casesensitivity', 'atime', 'acltype', 'aclmode'].map((p) => prop(nfs, p).value)).toEqual([
      'SENSITIVE',
      'OFF',
      'NFSV4',
      'PASSTHROUGH',
    ]);
  });

  it('a VOLUME with volsize: no mountpoint and no path, volsize/volblocksize shown, no filesystem properties (MW/plugins/pool_/dataset_query_utils.py build_info, BASE_VOL_PROPS)', async () => {
    const ws = await setup();
    const v = await ok(ws, 'pool.dataset.create', [
      { name: 'tank/vol', type: 'VOLUME', volsize: 16 * 1024 * 1024, sparse: true },
    ]);
    expect(v).toMatchObject({ type: 'VOLUME', mountpoint: null });
    expect(prop(v, 'volsize')).toMatchObject({ parsed: 16 * 1024 * 1024, value: '16 MiB', source: 'LOCAL' });
    expect(prop(v, 'volblocksize')).toMatchObject({ parsed: 16384, value: '16K' });
    for (const fsOnly of ['acltype', 'aclmode', 'atime', 'casesensitivity', 'quota', 'recordsize', 'xattr', 'exec'])
      expect(v).not.toHaveProperty(fsOnly);
    const st = await fail(ws, 'filesystem.stat', ['/mnt/tank/vol']);
    expect(st.data).toMatchObject({ error: 2, reason: '[ENOENT] Path /mnt/tank/vol not found' });
    const child = await fail(ws, 'pool.dataset.create', [{ name: 'tank/vol/x' }]);
    expect(child.data?.extra).toEqual([['pool_dataset_create.name', 'tank/vol: parent may not be a ZFS volume', 22]]);
    await invalid(
      ws,
      'pool.dataset.create',
      [{ name: 'tank/odd', type: 'VOLUME', volsize: 1000 }],
      [['pool_dataset_create.volsize', 'Volume size should be a multiple of volume block size', 22]],
    );
  });

  it('encryption: an encryption root with a generated key shows encrypted, encryption_root and the algorithm; children inherit it (MW/plugins/pool_/dataset.py:500-540)', async () => {
    const ws = await setup();
    const enc = await ok(ws, 'pool.dataset.create', [
      { name: 'tank/enc', encryption: true, inherit_encryption: false, encryption_options: { generate_key: true } },
    ]);
    expect(enc).toMatchObject({ encrypted: true, encryption_root: 'tank/enc', key_loaded: true, locked: false });
    expect(prop(enc, 'encryption_algorithm')).toMatchObject({ parsed: 'aes-256-gcm', value: 'AES-256-GCM' });
    expect(prop(enc, 'key_format')).toMatchObject({ parsed: 'hex', value: 'HEX' });
    const child = await ok(ws, 'pool.dataset.create', [{ name: 'tank/enc/child' }]);
    expect(child).toMatchObject({ encrypted: true, encryption_root: 'tank/enc' });
    const pass = await ok(ws, 'pool.dataset.create', [
      {
        name: 'tank/pass',
        encryption: true,
        inherit_encryption: false,
        encryption_options: { passphrase: 'long enough' },
      },
    ]);
    expect(prop(pass, 'key_format').value).toBe('PASSPHRASE');
    expect(prop(pass, 'pbkdf2iters')).toMatchObject({ parsed: '350000', value: '350000' });
  });

  it('quota and refquota below 1 GiB: pydantic errors of both union members (MW/api/v25_10_1/pool_dataset.py:271, `Field(ge=1024 ** 3)`; MW/api/base/handler/accept.py:70-80)', async () => {
    const ws = await setup();
    await invalid(
      ws,
      'pool.dataset.create',
      [{ name: 'tank/q', quota: 1024 }],
      [
        [
          'data.PoolDatasetCreateFilesystem.quota.constrained-int',
          'Input should be greater than or equal to 1073741824',
          22,
        ],
        ['data.PoolDatasetCreateFilesystem.quota.literal[0,None]', 'Input should be 0 or None', 22],
        ['data.PoolDatasetCreateVolume.volsize', 'Field required', 22],
        ['data.PoolDatasetCreateVolume.quota', 'Extra inputs are not permitted', 22],
      ],
    );
    await invalid(
      ws,
      'pool.dataset.create',
      [{ name: 'tank/q', type: 'VOLUME' }],
      [
        ['data.PoolDatasetCreateFilesystem.type', "Input should be 'FILESYSTEM'", 22],
        ['data.PoolDatasetCreateVolume.volsize', 'Field required', 22],
      ],
    );
    await invalid(
      ws,
      'pool.dataset.create',
      [{ name: 'tank/q', quota_warning: 101 }],
      [
        [
          'data.PoolDatasetCreateFilesystem.quota_warning.constrained-int',
          'Input should be less than or equal to 100',
          22,
        ],
        ["data.PoolDatasetCreateFilesystem.quota_warning.literal['INHERIT']", "Input should be 'INHERIT'", 22],
        ['data.PoolDatasetCreateVolume.quota_warning.constrained-int', 'Input should be less than or equal to 100', 22],
        ["data.PoolDatasetCreateVolume.quota_warning.literal['INHERIT']", "Input should be 'INHERIT'", 22],
        ['data.PoolDatasetCreateVolume.volsize', 'Field required', 22],
      ],
    );
  });

  it('name, parent and path errors with their literal messages (MW/plugins/pool_/dataset.py:410-471, 199-216)', async () => {
    const ws = await setup();
    const at = 'pool_dataset_create.name';
    await invalid(
      ws,
      'pool.dataset.create',
      [{ name: 'tank' }],
      [[at, 'You need a full name, e.g. pool/newdataset', 22]],
    );
    await invalid(
      ws,
      'pool.dataset.create',
      [{ name: 'tank/a ' }],
      [[at, 'Trailing spaces are not permitted in dataset names', 22]],
    );
    await invalid(ws, 'pool.dataset.create', [{ name: 'nopool/a' }], [[at, 'zpool (nopool) does not exist.', 22]]);
    await invalid(
      ws,
      'pool.dataset.create',
      [{ name: 'tank/x/y' }],
      [[at, 'Parent dataset (tank/x) does not exist.', 22]],
    );
    await invalid(
      ws,
      'pool.dataset.create',
      [{ name: 'nopool/x/y', create_ancestors: true }],
      [[at, 'Please specify a pool which exists for the dataset/volume to be created', 22]],
    );
    await ok(ws, 'pool.dataset.create', [{ name: 'tank/a' }]);
    // EINVAL, not EEXIST (MW/plugins/pool_/dataset.py:471).
    const dup = await fail(ws, 'pool.dataset.create', [{ name: 'tank/a' }]);
    expect(dup.data).toMatchObject({
      error: 22,
      errname: 'EINVAL',
      reason: '[EINVAL] pool_dataset_create.name: Path /mnt/tank/a already exists\n',
    });
    const badName = await fail(ws, 'pool.dataset.create', [{ name: 'tank/b@c' }]);
    expect((badName.data?.extra as unknown[])[0]).toEqual([
      'data.PoolDatasetCreateFilesystem.name',
      'Value error, Please provide a valid dataset name according to ZFS standards',
      22,
    ]);
  });

  it('ACL, readonly-parent, special_small_block_size and encryption checks (MW/plugins/pool_/dataset.py:240-262, :205-215, :281-288, :505-545)', async () => {
    const ws = await setup();
    await invalid(
      ws,
      'pool.dataset.create',
      [{ name: 'tank/n', acltype: 'NFSV4' }],
      [['pool_dataset_create.aclmode', 'DISCARD aclmode may not be set for NFSv4 acl type', 22]],
    );
    await invalid(
      ws,
      'pool.dataset.create',
      [{ name: 'tank/p', acltype: 'POSIX', aclmode: 'PASSTHROUGH' }],
      [['pool_dataset_create.aclmode', 'Must be set to DISCARD when acltype is POSIX or OFF', 22]],
    );
    await invalid(
      ws,
      'pool.dataset.create',
      [{ name: 'tank/s', special_small_block_size: 1000 }],
      [['pool_dataset_create.special_small_block_size', 'This field must be zero or a power of 2 from 512B to 1M', 22]],
    );
    await ok(ws, 'pool.dataset.create', [{ name: 'tank/ro', readonly: 'ON' }]);
    await invalid(
      ws,
      'pool.dataset.create',
      [{ name: 'tank/ro/x' }],
      [['pool_dataset_create.readonly', 'Turn off readonly mode on tank/ro to create tank', 22]],
    );
    await invalid(
      ws,
      'pool.dataset.create',
      [{ name: 'tank/e', encryption: true, encryption_options: { generate_key: true } }],
      [['pool_dataset_create.inherit_encryption', 'Must be disabled when encryption is enabled.', 22]],
    );
    await invalid(
      ws,
      'pool.dataset.create',
      [{ name: 'tank/e', encryption: true, inherit_encryption: false }],
      [
        [
          'pool_dataset_create.encryption_options.key',
          'Please provide a key or select generate_key to automatically generate a key when passphrase is not provided.',
          22,
        ],
      ],
    );
    await ok(ws, 'pool.dataset.create', [
      {
        name: 'tank/enc',
        encryption: true,
        inherit_encryption: false,
        encryption_options: { passphrase: 'long enough' },
      },
    ]);
    await invalid(
      ws,
      'pool.dataset.create',
      [{ name: 'tank/enc/plain', inherit_encryption: false }],
      [
        [
          'pool_dataset_create.encryption',
          'Cannot create an unencrypted dataset within an encrypted dataset (tank/enc).',
          22,
        ],
      ],
    );
    await invalid(
      ws,
      'pool.dataset.create',
      [
        {
          name: 'tank/enc/keyed',
          encryption: true,
          inherit_encryption: false,
          encryption_options: { generate_key: true },
        },
      ],
      [
        [
          'pool_dataset_create.encryption',
          'Passphrase encrypted datasets cannot have children encrypted with a key.',
          22,
        ],
      ],
    );
  });
});

describe('pool.dataset.update (MW/plugins/pool_/dataset.py:666-802)', () => {
  it('changes properties, resets with INHERIT, and refuses what 25.10.1 refuses (MW/plugins/pool_/dataset.py:690-720)', async () => {
    const ws = await setup();
    await ok(ws, 'pool.dataset.create', [{ name: 'tank/a', compression: 'GZIP' }]);
    const changed = await ok(ws, 'pool.dataset.update', [
      'tank/a',
      { compression: 'INHERIT', quota: 2 * GiB, refquota_critical: 95, acltype: 'NFSV4', aclmode: 'PASSTHROUGH' },
    ]);
    expect(prop(changed, 'compression')).toMatchObject({ value: 'LZ4', source: 'DEFAULT' });
    expect(prop(changed, 'quota')).toMatchObject({ parsed: 2 * GiB, value: '2 GiB' });
    expect(changed.user_properties.refquota_critical.value).toBe('95');
    // The pair is checked against the current aclmode before do_update would reset it (dataset.py:240-262, :753-760).
    await invalid(
      ws,
      'pool.dataset.update',
      ['tank/a', { acltype: 'POSIX' }],
      [['pool_dataset_update.aclmode', 'Must be set to DISCARD when acltype is POSIX or OFF', 22]],
    );
    const posix = await ok(ws, 'pool.dataset.update', ['tank/a', { acltype: 'POSIX', aclmode: 'DISCARD' }]);
    expect(['acltype', 'aclmode'].map((p) => prop(posix, p).value)).toEqual(['POSIX', 'DISCARD']);
    await invalid(ws, 'pool.dataset.update', ['tank/nope', { comments: 'x' }], [['id', 'tank/nope does not exist', 2]]);
    await invalid(
      ws,
      'pool.dataset.update',
      ['tank/a', { volsize: 1024 }],
      [['pool_dataset_update.volsize', 'This field is not valid for FILESYSTEM', 22]],
    );
    await invalid(
      ws,
      'pool.dataset.update',
      ['tank/a', { casesensitivity: 'INSENSITIVE' }],
      [['data.casesensitivity', 'Extra inputs are not permitted', 22]],
    );
    await ok(ws, 'pool.dataset.create', [{ name: 'tank/vol', type: 'VOLUME', volsize: 32 * 1024 * 1024 }]);
    await invalid(
      ws,
      'pool.dataset.update',
      ['tank/vol', { volsize: 16 * 1024 * 1024 }],
      [['pool_dataset_update.volsize', 'You cannot shrink a zvol from GUI, this may lead to data loss.', 22]],
    );
    await invalid(
      ws,
      'pool.dataset.update',
      ['tank/vol', { atime: 'OFF' }],
      [['pool_dataset_update.atime', 'This field is not valid for VOLUME', 22]],
    );
    await invalid(
      ws,
      'pool.dataset.update',
      [
        'tank/a',
        { user_properties: [{ key: 'a:b', value: 'c' }], user_properties_update: [{ key: 'a:b', remove: true }] },
      ],
      [
        [
          'pool_dataset_update.user_properties_update',
          'Should not be specified when "user_properties" are explicitly specified',
          22,
        ],
      ],
    );
  });

  it("takes a recordsize only as one of recordsize_choices' words, exactly (MW/plugins/pool_/dataset.py:301-305; dataset_recordsize.py:13-31)", async () => {
    const ws = await setup();
    await ok(ws, 'pool.dataset.create', [{ name: 'tank/a' }]);
    for (const rs of ['100K', '128k', '131072', '1024K', '32M']) {
      await invalid(
        ws,
        'pool.dataset.update',
        ['tank/a', { recordsize: rs }],
        [['pool_dataset_update.recordsize', `'${rs}' is an invalid recordsize.`, 22]],
      );
    }
    for (const rs of ['512', '512B', '1M', '16M', '128K'])
      expect(
        prop(await ok<Entry>(ws, 'pool.dataset.update', ['tank/a', { recordsize: rs }]), 'recordsize').source,
      ).toBe('LOCAL');
  });

  it("refuses a quota below what the dataset uses as ZFS does: EFAULT, the ZFSException repr with libzfs's action (MW/plugins/zfs_/dataset.py:268-271; py-libzfs TS-25.10.1 libzfs.pyx:686-691)", async () => {
    const server = await startTestServer(EMULATIONS['truenas-25.10.1']);
    const ws = await loggedInWs(server.rpcUrl, server.adminKey);
    await ok(ws, 'pool.dataset.create', [{ name: 'tank/a' }]);
    // A sparse file: the emulator counts a file's size, as `used` counts its blocks on ZFS.
    const big = join(server.stateDir, 'mnt/tank/a/big');
    writeFileSync(big, '');
    truncateSync(big, 2 * GiB);
    for (const data of [{ quota: GiB }, { refquota: GiB }]) {
      const error = await fail(ws, 'pool.dataset.update', ['tank/a', data]);
      expect({ errname: error.data?.errname, reason: error.data?.reason }).toEqual({
        errname: 'EFAULT',
        reason: `[EFAULT] Failed to update properties: ZFSException("cannot set property for 'tank/a': size is less than current used or reserved space")`,
      });
    }
    expect(prop(await ok<Entry>(ws, 'pool.dataset.get_instance', ['tank/a']), 'quota').parsed).toBeNull();
    expect(prop(await ok<Entry>(ws, 'pool.dataset.update', ['tank/a', { quota: 3 * GiB }]), 'quota').parsed).toBe(
      3 * GiB,
    );
    // A quota already below used does not stop another change (ZFS checks the quota only when it is set).
    await ok(ws, 'pool.dataset.update', ['tank/a', { comments: 'still' }]);
  });
});

describe('pool.dataset copies and reservations: what ZFS refuses past the middleware', () => {
  const cannotSet = (cause: string) =>
    `[EFAULT] Failed to update properties: ZFSException("cannot set property for 'tank/a': ${cause}")`;

  it('takes copies 1-3 only: the model takes any int (MW/api/v25_10_1/pool_dataset.py:228), libzfs refuses the rest (zfs_prop.c copies "1 | 2 | 3"; zprop_parse_value)', async () => {
    const ws = await setup();
    await ok(ws, 'pool.dataset.create', [{ name: 'tank/a' }]);
    for (const copies of [0, 4, 9]) {
      const error = await fail(ws, 'pool.dataset.update', ['tank/a', { copies, comments: 'not this either' }]);
      expect({ errname: error.data?.errname, reason: error.data?.reason }).toEqual({
        errname: 'EFAULT',
        reason: cannotSet("'copies' must be one of '1 | 2 | 3'"),
      });
    }
    const created = await fail(ws, 'pool.dataset.create', [{ name: 'tank/b', copies: 9 }]);
    expect(created.data?.reason).toBe(
      "[EFAULT] Failed to create dataset: cannot create 'tank/b': 'copies' must be one of '1 | 2 | 3'",
    );
    expect((await ok<Entry[]>(ws, 'pool.dataset.query', [[['id', '=', 'tank/b']]])).length).toBe(0);
    const a = await ok<Entry>(ws, 'pool.dataset.update', ['tank/a', { copies: 3 }]);
    expect([prop(a, 'copies').value, prop(a, 'copies').parsed, a.user_properties.comments]).toEqual([
      '3',
      3,
      undefined,
    ]);
  });

  it('refuses a reservation above the quota, a refreservation above the refquota or the quota (dsl_dir_set_reservation_check, dsl_dataset_set_refreservation_check; libzfs zfs_setprop_error)', async () => {
    const ws = await setup();
    await ok(ws, 'pool.dataset.create', [{ name: 'tank/a', quota: 2 * GiB, refquota: GiB }]);
    for (const data of [{ reservation: 3 * GiB }, { refreservation: 3 * GiB }, { refreservation: GiB + 1 }]) {
      const error = await fail(ws, 'pool.dataset.update', ['tank/a', data]);
      expect({ errname: error.data?.errname, reason: error.data?.reason }).toEqual({
        errname: 'EFAULT',
        reason: cannotSet('size is greater than available space'),
      });
    }
    // zfs.dataset.update sets the reservations before the quotas (MW/plugins/zfs_/dataset.py:181-185)
    // and ZFS tries a refused one again after the rest (zfs_set_prop_nvlist): lowering both passes, raising both too.
    await ok(ws, 'pool.dataset.update', ['tank/a', { reservation: 2 * GiB }]);
    await ok(ws, 'pool.dataset.update', ['tank/a', { quota: GiB, reservation: GiB }]);
    await ok(ws, 'pool.dataset.update', ['tank/a', { quota: 4 * GiB, reservation: 3 * GiB }]);
    // A quota below the reservation is the quota's refusal, and nothing of the call is applied.
    expect((await fail(ws, 'pool.dataset.update', ['tank/a', { quota: 2 * GiB, copies: 2 }])).data?.reason).toBe(
      cannotSet('size is less than current used or reserved space'),
    );
    const a = await ok<Entry>(ws, 'pool.dataset.get_instance', ['tank/a']);
    expect([prop(a, 'quota').parsed, prop(a, 'reservation').parsed, prop(a, 'copies').parsed]).toEqual([
      4 * GiB,
      3 * GiB,
      1,
    ]);
  });

  it('judges and writes in one step: updates racing over separate connections never leave a reservation above the quota', async () => {
    const server = await startTestServer(EMULATIONS['truenas-25.10.1']);
    const clients = await Promise.all(Array.from({ length: 4 }, () => loggedInWs(server.rpcUrl, server.adminKey)));
    await ok(clients[0]!, 'pool.dataset.create', [{ name: 'tank/a' }]);
    for (let round = 0; round < 5; round++) {
      await ok(clients[0]!, 'pool.dataset.update', ['tank/a', { quota: 0, reservation: 0 }]);
      // Each alone is taken; together, whichever lands second must be judged against the first.
      const sent = [{ quota: 2 * GiB }, { reservation: 5 * GiB }, { quota: 3 * GiB }, { reservation: 4 * GiB }];
      const replies = await Promise.all(
        sent.map((data, i) => clients[i]!.call('pool.dataset.update', ['tank/a', data])),
      );
      for (const r of replies)
        if (r.error)
          expect(r.error.data?.reason).toMatch(
            /size is (greater than available|less than current used or reserved) space/,
          );
      const a = await ok<Entry>(clients[0]!, 'pool.dataset.get_instance', ['tank/a']);
      const quota = prop(a, 'quota').parsed as number | null;
      const reservation = (prop(a, 'reservation').parsed as number | null) ?? 0;
      if (quota !== null) expect(reservation).toBeLessThanOrEqual(quota);
      expect(replies.filter((r) => r.error).length).toBeGreaterThan(0);
    }
  });
});

describe('pool.dataset.delete (MW/plugins/pool_/dataset.py:803-849)', () => {
  it('answers true; children need recursive (ENOTEMPTY 39); an unknown id is -32602 ENOENT', async () => {
    const ws = await setup();
    await ok(ws, 'pool.dataset.create', [{ name: 'tank/a/b', create_ancestors: true }]);
    const busy = await fail(ws, 'pool.dataset.delete', ['tank/a']);
    expect({ code: busy.code, data: busy.data }).toMatchObject({
      code: -32001,
      data: {
        error: 39,
        errname: 'ENOTEMPTY',
        reason: "[ENOTEMPTY] Failed to delete dataset: cannot destroy 'tank/a': filesystem has children",
      },
    });
    expect(await ok(ws, 'pool.dataset.delete', ['tank/a', { recursive: true }])).toBe(true);
    const gone = await fail(ws, 'pool.dataset.delete', ['tank/a']);
    expect({ code: gone.code, reason: gone.data?.reason }).toEqual({
      code: -32602,
      reason: '[ENOENT] None: PoolDataset tank/a does not exist',
    });
  });
});

describe('pool.dataset.query honours extra as 25.10.1 generic_query does (MW/plugins/pool_/dataset_query_utils.py)', () => {
  it('flat by default, each entry with its children; flat false gives the pools only, nested; filters always flat (:1065, :1088-1105)', async () => {
    const ws = await setup();
    await ok(ws, 'pool.dataset.create', [{ name: 'tank/a' }]);
    await ok(ws, 'pool.dataset.create', [{ name: 'tank/a/b' }]);
    expect((await ok<Entry[]>(ws, 'pool.dataset.query', [[], { extra: { flat: true } }])).map((e) => e.id)).toEqual([
      'tank',
      'tank/a',
      'tank/a/b',
    ]);
    const tree = await ok<Entry[]>(ws, 'pool.dataset.query', [[], { extra: { flat: false } }]);
    expect(tree.map((e) => e.id)).toEqual(['tank']);
    expect(tree[0]!.children[0].children.map((c: Entry) => c.id)).toEqual(['tank/a/b']);
    expect(
      (await ok<Entry[]>(ws, 'pool.dataset.query', [[['id', '^', 'tank/a']], { extra: { flat: false } }])).map(
        (e) => e.id,
      ),
    ).toEqual(['tank/a', 'tank/a/b']);
  });

  it('count counts every dataset whatever the filters (:955-956, :1082-1083); retrieve_children false walks the pools only (:994-997)', async () => {
    const ws = await setup();
    await ok(ws, 'pool.dataset.create', [{ name: 'tank/a' }]);
    expect(await ok(ws, 'pool.dataset.query', [[['id', '=', 'tank/a']], { count: true }])).toBe(2);
    const roots = await ok<Entry[]>(ws, 'pool.dataset.query', [[], { extra: { retrieve_children: false } }]);
    expect(roots.map((e) => [e.id, e.children])).toEqual([['tank', []]]);
    const filtered = await ok<Entry[]>(ws, 'pool.dataset.query', [
      [['id', '=', 'tank/a']],
      { extra: { retrieve_children: false } },
    ]);
    expect(filtered.map((e) => [e.id, e.children])).toEqual([['tank/a', []]]);
  });

  it('properties [] keeps id/type/name/pool, user_properties, mountpoint, children; no crypto fields (:586-592, :704-770)', async () => {
    const ws = await setup();
    await ok(ws, 'pool.dataset.create', [{ name: 'tank/a', comments: 'hi' }]);
    const e = await ok<Entry>(ws, 'pool.dataset.query', [
      [['id', '=', 'tank/a']],
      { get: true, extra: { properties: [] } },
    ]);
    // In PoolDatasetEntry's order (MW/api/v25_10_1/pool_dataset.py:62-83, mountpoint last), as the
    // result model dumps it (MW/api/base/handler/result.py:13-17), not generic_query's.
    expect(Object.keys(e)).toEqual(['id', 'type', 'name', 'pool', 'children', 'user_properties', 'mountpoint']);
    expect(e.user_properties.comments.value).toBe('hi');
    const bare = await ok<Entry>(ws, 'pool.dataset.query', [
      [['id', '=', 'tank/a']],
      { get: true, extra: { properties: [], retrieve_user_props: false } },
    ]);
    expect(Object.keys(bare)).toEqual(['id', 'type', 'name', 'pool', 'children', 'mountpoint']);
  });

  it('a properties list keeps the ZFS names libzfs knows (dedup, not deduplication); a crypto property adds encrypted/encryption_root/key_loaded/locked (:206-223, :604-640)', async () => {
    const ws = await setup();
    await ok(ws, 'pool.dataset.create', [{ name: 'tank/a' }]);
    const e = await ok<Entry>(ws, 'pool.dataset.query', [
      [['id', '=', 'tank/a']],
      {
        get: true,
        extra: {
          properties: ['used', 'dedup', 'deduplication', 'volsize', 'special_small_blocks'],
          retrieve_user_props: false,
        },
      },
    ]);
    // PoolDatasetEntry's order (MW/api/v25_10_1/pool_dataset.py:62-168 at TS-25.10.1).
    expect(Object.keys(e)).toEqual([
      'id',
      'type',
      'name',
      'pool',
      'children',
      'deduplication',
      'used',
      'special_small_block_size',
      'mountpoint',
    ]);
    const c = await ok<Entry>(ws, 'pool.dataset.query', [
      [['id', '=', 'tank/a']],
      { get: true, extra: { properties: ['keyformat'], retrieve_user_props: false } },
    ]);
    expect(c).toMatchObject({
      key_format: { rawvalue: 'none', value: null },
      encrypted: false,
      encryption_root: null,
      key_loaded: false,
      locked: false,
    });
  });

  it('snapshots_count and snapshots per dataset, with the _snapshots_properties the callback leaves in the entry (:926-939, :789-866)', async () => {
    const ws = await setup();
    await ok(ws, 'pool.dataset.create', [{ name: 'tank/a' }]);
    await ok(ws, 'pool.snapshot.create', [{ dataset: 'tank/a', name: 's1' }]);
    await ok(ws, 'pool.snapshot.create', [{ dataset: 'tank/a', name: 's2' }]);
    const e = await ok<Entry>(ws, 'pool.dataset.query', [
      [['id', '=', 'tank/a']],
      { get: true, extra: { snapshots: true, snapshots_count: true, properties: [] } },
    ]);
    expect(e.snapshot_count).toBe(2);
    expect(e._snapshots_properties).toEqual([]);
    expect(e.snapshots).toEqual([
      {
        pool: 'tank',
        name: 'tank/a@s1',
        type: 'SNAPSHOT',
        snapshot_name: 's1',
        dataset: 'tank/a',
        id: 'tank/a@s1',
        createtxg: expect.stringMatching(/^\d+$/),
      },
      {
        pool: 'tank',
        name: 'tank/a@s2',
        type: 'SNAPSHOT',
        snapshot_name: 's2',
        dataset: 'tank/a',
        id: 'tank/a@s2',
        createtxg: expect.stringMatching(/^\d+$/),
      },
    ]);
    const tank = await ok<Entry>(ws, 'pool.dataset.query', [
      [['id', '=', 'tank']],
      { get: true, extra: { snapshots_count: true, properties: [] } },
    ]);
    expect([tank.snapshot_count, 'snapshots' in tank]).toEqual([0, false]);
  });
});
