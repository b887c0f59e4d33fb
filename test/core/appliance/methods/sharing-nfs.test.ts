/**
 * sharing.nfs.* and nfs.config/update of the embedded appliance, as 25.10.1 and 26.0 answer them,
 * driven in-process through the real dispatcher (every answer checked against the release's
 * contract, STOR_CHECK_RESULTS). The sources followed (MW = src/middlewared/middlewared at TS-25.10.1;
 * stable/26 where it says so):
 * - the models: MW/api/v25_10_1/nfs.py:58-213; stable/26 MW/api/v26_0_0/nfs.py:116-236;
 * - SharingNFSService: MW/plugins/nfs.py:428-966 (validate :535-658 and the checks it calls),
 *   MW/plugins/nfs_/validators.py, MW/plugins/nfs_/utils.py, MW/validators.py:154-200;
 * - events: MW/service/crud_service.py:204-216; roles: MW/main.py:315-337;
 * - the dataset delete's attachments: MW/plugins/pool_/dataset.py:828-832, MW/plugins/nfs_/fs_attachment_delegate.py,
 *   MW/common/attachment/__init__.py:94-140;
 * - NFSService: MW/plugins/nfs.py:85-406.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CollectionUpdate } from '../../../../src/core/appliance/events.js';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import type { RpcError } from '../../../../src/core/errors.js';
import { createUserWithKey, openTestAppliance, type TestAppliance } from '../../../helpers/appliance.js';

type Entry = Record<string, unknown>;
type Triple = [string | null, string, number];

const EINVAL = 22;

/** An appliance of `release` with dataset tank/nfs and a directory `sub` in it. */
async function setup(release: '25.10.1' | '26.0'): Promise<TestAppliance> {
  // The release's own emulation, its key logged in as 25.10.1 does (the SCRAM login is not under test here).
  const t = await openTestAppliance({ ...EMULATIONS[`truenas-${release}`], keyLogin: 'plain' });
  await t.call(t.admin, 'pool.dataset.create', { name: 'tank/nfs' });
  mkdirSync(join(t.stateDir, 'mnt', 'tank', 'nfs', 'sub'));
  return t;
}

const create = (t: TestAppliance, data: Entry) => t.call<Entry>(t.admin, 'sharing.nfs.create', data);

/** The `[attribute, message, errno]` triples of a -32602 ValidationErrors. */
function triplesOf(err: RpcError): Triple[] {
  expect(err.code).toBe(-32602);
  return err.data!.extra as Triple[];
}

async function refusedCreate(t: TestAppliance, data: Entry): Promise<Triple[]> {
  return triplesOf(await t.callError(t.admin, 'sharing.nfs.create', data));
}

const one = (field: string, message: string): Triple[] => [[`sharingnfs_create.${field}`, message, EINVAL]];

/** A network another share of `path` exports: taken, and so also overlapped (MW/plugins/nfs.py:847-867). */
const taken = (schema: string, path: string): Triple[] => [
  [`${schema}.networks`, `ERROR - Another NFS share already exports ${path} for network 10.0.0.0/24`, EINVAL],
  [
    `${schema}.networks`,
    `ERROR - This or another NFS share exports ${path} to 10.0.0.0/24 and overlaps network 10.0.0.0/24`,
    EINVAL,
  ],
];

/** What a new share of `path` answers in each release, every field at its default. */
function defaults(release: string, path: string, extra26: Entry): Entry {
  const entry: Entry = {
    path,
    aliases: [],
    comment: '',
    networks: [],
    hosts: [],
    ro: false,
    maproot_user: null,
    maproot_group: null,
    mapall_user: null,
    mapall_group: null,
    security: [],
    enabled: true,
    locked: false,
    expose_snapshots: false,
  };
  return release === '26.0' ? { ...entry, ...extra26, tier: null } : entry;
}

for (const release of ['25.10.1', '26.0'] as const) {
  describe(`sharing.nfs.* of truenas-${release}`, () => {
    it('create → get_instance → update → delete: the entry with its defaults, networks in CIDR form, aliases dropped; then InstanceNotFound (MW/plugins/nfs.py:442-533, 555-556; MW/plugins/nfs_/validators.py:51-53)', async () => {
      const t = await setup(release);
      const created = await create(t, { path: '/mnt/tank/nfs', networks: ['10.0.0.5/24'], aliases: ['/x'] });
      expect(created).toEqual({
        id: 1,
        ...defaults(release, '/mnt/tank/nfs', { dataset: 'tank/nfs', relative_path: '' }),
        networks: ['10.0.0.0/24'],
      });
      expect(await t.call(t.admin, 'sharing.nfs.get_instance', 1)).toEqual(created);
      const updated = await t.call<Entry>(t.admin, 'sharing.nfs.update', 1, {
        comment: 'backups',
        hosts: ['192.168.1.7'],
        ro: true,
      });
      expect(updated).toEqual({ ...created, comment: 'backups', hosts: ['192.168.1.7'], ro: true });
      expect(await t.call(t.admin, 'sharing.nfs.query', [['ro', '=', true]], { count: true })).toBe(1);
      expect(await t.call(t.admin, 'sharing.nfs.delete', 1)).toBe(true);
      const gone = await t.callError(t.admin, 'sharing.nfs.get_instance', 1);
      expect(gone.data?.reason).toBe('[ENOENT] None: SharingNFS 1 does not exist');
      for (const [method, params] of [
        ['sharing.nfs.update', [1, { ro: false }]],
        ['sharing.nfs.delete', [1]],
      ] as const) {
        expect(triplesOf(await t.callError(t.admin, method, ...params))).toEqual([
          [null, 'SharingNFS 1 does not exist', 2],
        ]);
      }
      // AUTOINCREMENT: the next share does not take the deleted one's id (MW/alembic/initial.sql:211).
      expect(await create(t, { path: '/mnt/tank/nfs' })).toMatchObject({ id: 2 });
    });

    it('locked is false, or null when the query asks not to retrieve it or its extra.select leaves it out (MW/service/sharing_service.py:23-43, 92-106)', async () => {
      const t = await setup(release);
      await create(t, { path: '/mnt/tank/nfs/sub' });
      expect(await t.call(t.admin, 'sharing.nfs.query', [], { extra: { retrieve_locked_info: false } })).toMatchObject([
        { locked: null },
      ]);
      expect(await t.call(t.admin, 'sharing.nfs.query', [], { extra: { select: ['path'] } })).toMatchObject([
        { locked: null },
      ]);
      expect(await t.call(t.admin, 'sharing.nfs.query', [], { select: ['path', 'locked'] })).toEqual([
        { path: '/mnt/tank/nfs/sub', locked: false },
      ]);
      if (release === '26.0') {
        // resolve_dataset_path: the dataset and the path below its mountpoint (stable/26 MW/utils/mount.py:70-90).
        expect(await t.call(t.admin, 'sharing.nfs.get_instance', 1)).toMatchObject({
          dataset: 'tank/nfs',
          relative_path: 'sub',
          tier: null,
        });
      }
    });

    it('sends collection_update ADDED, CHANGED and REMOVED on sharing.nfs.query, the answer as fields (MW/service/crud_service.py:204-216)', async () => {
      const t = await setup(release);
      const heard: CollectionUpdate[] = [];
      t.admin.notify = (_method, params) => heard.push(params as CollectionUpdate);
      await t.call(t.admin, 'core.subscribe', 'sharing.nfs.query');
      const created = await create(t, { path: '/mnt/tank/nfs' });
      const updated = await t.call(t.admin, 'sharing.nfs.update', 1, { comment: 'c' });
      await t.call(t.admin, 'sharing.nfs.delete', 1);
      expect(heard).toEqual([
        { msg: 'added', collection: 'sharing.nfs.query', id: 1, fields: created },
        { msg: 'changed', collection: 'sharing.nfs.query', id: 1, fields: updated },
        { msg: 'removed', collection: 'sharing.nfs.query', id: 1 },
      ]);
    });

    it('a READONLY_ADMIN may query shares and nfs.config but not create, update or delete: EACCES (MW/main.py:315-337; SHARING_NFS_READ in READONLY_ADMIN, MW/role.py)', async () => {
      const t = await setup(release);
      await create(t, { path: '/mnt/tank/nfs' });
      const { key } = await createUserWithKey(t, 'reader', { privilegeRoles: ['READONLY_ADMIN'] });
      const { session } = await t.login(key);
      expect(await t.call(session, 'sharing.nfs.query')).toHaveLength(1);
      expect(await t.call(session, 'nfs.config')).toMatchObject({ id: 1 });
      for (const [method, params] of [
        ['sharing.nfs.create', [{ path: '/mnt/tank/nfs/sub' }]],
        ['sharing.nfs.update', [1, { ro: true }]],
        ['sharing.nfs.delete', [1]],
        ['nfs.update', [{ allow_nonroot: true }]],
      ] as const) {
        expect((await t.callError(session, method, ...params)).data?.reason).toBe('[EACCES] Not authorized');
      }
    });

    it('the path: under /mnt/ inside a pool once symlinks are followed, the pool root allowed; a missing one is filesystem.stat ENOENT; a symlink refused (MW/validators.py:174-193; MW/plugins/nfs.py:803, 908-915)', async () => {
      const t = await setup(release);
      const mnt = join(t.stateDir, 'mnt');
      symlinkSync('/etc', join(mnt, 'tank', 'out'));
      symlinkSync(join(mnt, 'tank', 'nfs', 'sub'), join(mnt, 'tank', 'in'));
      const outside = 'The path must reside within a pool mount point';
      for (const path of ['/mnt', '/mnt/', '/mnt/nopool/x', 'tank/nfs', '/mnt/tank/out']) {
        expect(await refusedCreate(t, { path })).toEqual(one('path', outside));
      }
      expect(await refusedCreate(t, { path: 'EXTERNAL:x' })).toEqual(one('path', 'Path is external to TrueNAS.'));
      const missing = await t.callError(t.admin, 'sharing.nfs.create', { path: '/mnt/tank/nope' });
      expect({ code: missing.code, reason: missing.data?.reason }).toEqual({
        code: -32001,
        reason: '[ENOENT] Path /mnt/tank/nope not found',
      });
      expect(await refusedCreate(t, { path: '/mnt/tank/in' })).toEqual(
        one('path', 'Symbolic links are not allowed: /mnt/tank/in.'),
      );
      // 25.10.1 refuses neither a pool's root nor a path that is no dataset's mountpoint.
      expect(await create(t, { path: '/mnt/tank' })).toMatchObject({ path: '/mnt/tank' });
    });

    it('networks: parsed as ip_network(strict=False), unique, not all-networks, not overlapping (MW/plugins/nfs_/validators.py:7-55; MW/plugins/nfs.py:704-729)', async () => {
      const t = await setup(release);
      const path = '/mnt/tank/nfs';
      expect(await refusedCreate(t, { path, networks: ['10.0.0.0/33', 'fe80::/129', '10.0.0.0/24'] })).toEqual(
        one('networks', 'The following do not appear to be valid IPv4 or IPv6 networks: 10.0.0.0/33, fe80::/129'),
      );
      expect(await refusedCreate(t, { path, networks: ['10.0.0.0/24', '10.0.0.0/24', 'bogus'] })).toEqual([
        ['sharingnfs_create.networks', 'Entries must be unique, the following are not: 10.0.0.0/24', EINVAL],
        ['sharingnfs_create.networks', 'The following do not appear to be valid IPv4 or IPv6 networks: bogus', EINVAL],
      ]);
      // 25.10.1 names the list's last entry, the loop's variable; 26.0 the one found (stable/26 validators.py:47-49).
      const named = release === '26.0' ? '0.0.0.0/0' : '10.9.0.0/16';
      expect(await refusedCreate(t, { path, networks: ['0.0.0.0/0', '10.9.0.0/16'] })).toEqual(
        one(
          'networks',
          `Do not use ${named} to represent all-networks.  No entry is required to configure 'allow everybody'.  Please remove ${named}.`,
        ),
      );
      expect(await refusedCreate(t, { path, networks: ['10.0.0.0/24', '10.0.0.0/255.255.0.0'] })).toEqual(
        one('networks', "ERROR - Overlapped subnets: [('10.0.0.0/24', '10.0.0.0/16')]"),
      );
      expect(await refusedCreate(t, { path, networks: ['10.0.0.5'], hosts: ['10.0.0.5'] })).toEqual(
        one('networks', "ERROR - Resolved hostname to duplicate address: host '10.0.0.5' resolves to '10.0.0.5/32'"),
      );
      // A netmask, a hostmask and IPv6 are taken and written in CIDR form.
      expect(
        await create(t, {
          path,
          networks: ['192.168.0.0/255.255.255.0', '172.16.0.9/0.0.0.255', '2001:DB8:0:0::1/64'],
        }),
      ).toMatchObject({ networks: ['192.168.0.0/24', '172.16.0.0/24', '2001:db8::/64'] });
    });

    it('hosts: no spaces or double quotes, not all-hosts, resolvable unless a wildcard or netgroup (MW/plugins/nfs_/validators.py:58-89; MW/plugins/nfs.py:871-899)', async () => {
      const t = await setup(release);
      const path = '/mnt/tank/nfs';
      const named = release === '26.0' ? '0.0.0.0' : 'h"q';
      expect(await refusedCreate(t, { path, hosts: ['a b', '0.0.0.0', 'h"q'] })).toEqual([
        ['sharingnfs_create.hosts', 'Cannot contain spaces or quotes: a b, h"q', EINVAL],
        [
          'sharingnfs_create.hosts',
          `Do not use ${named} to represent all-hosts.  No entry is required to configure 'allow everybody'.  Please remove ${named} or replace with '*'.`,
          EINVAL,
        ],
      ]);
      expect(await refusedCreate(t, { path, hosts: ['10.1.1.1', '10.1.1.1'] })).toEqual(
        one('hosts', 'Entries must be unique, the following are not: 10.1.1.1'),
      );
      expect(await refusedCreate(t, { path, hosts: ['nosuchhost.invalid'] })).toEqual(
        one('hosts', "Unable to resolve host 'nosuchhost.invalid'"),
      );
      expect(await create(t, { path, hosts: ['*', 'client-?', '@trusted', "o'brien-*"] })).toMatchObject({
        hosts: ['*', 'client-?', '@trusted', "o'brien-*"],
      });
    });

    it('another share of the same path: a network taken or overlapped, the same host, everybody (MW/plugins/nfs.py:795-951)', async () => {
      const t = await setup(release);
      const path = '/mnt/tank/nfs';
      await create(t, { path, networks: ['10.0.0.0/24'], hosts: ['10.0.0.5'] });
      expect(await refusedCreate(t, { path, networks: ['10.0.0.0/24'] })).toEqual(taken('sharingnfs_create', path));
      expect(await refusedCreate(t, { path, networks: ['10.0.0.128/25'] })).toEqual(
        one(
          'networks',
          `ERROR - This or another NFS share exports ${path} to 10.0.0.0/24 and overlaps network 10.0.0.128/25`,
        ),
      );
      // The other share's IP host is kept as a network (10.0.0.5/32), so the same host passes that
      // check and is caught by the path check instead (:816-832, 871-879, 928-951).
      expect(await refusedCreate(t, { path, hosts: ['10.0.0.5'] })).toEqual(
        one('path', `ERROR - Export conflict. Another share with the same path exports ${path} for {'10.0.0.5'}`),
      );
      // Another path, or the same share on update, is no conflict.
      await create(t, { path: '/mnt/tank/nfs/sub', networks: ['10.0.0.0/24'] });
      expect(await t.call(t.admin, 'sharing.nfs.update', 1, { comment: 'same' })).toMatchObject({ comment: 'same' });
      // A share for everybody takes 0.0.0.0/0 and ::/0 (:843-845).
      await create(t, { path: '/mnt/tank' });
      expect(await refusedCreate(t, { path: '/mnt/tank', networks: ['192.168.0.0/16'] })).toEqual(
        one(
          'networks',
          'ERROR - This or another NFS share exports /mnt/tank to 0.0.0.0/0 and overlaps network 192.168.0.0/16',
        ),
      );
      const update = await t.callError(t.admin, 'sharing.nfs.update', 2, { path, hosts: ['10.0.0.5'] });
      expect(triplesOf(update)).toEqual(taken('sharingnfs_update', path));
    });

    it('maproot and mapall: a group needs its user, both must exist, not both users; security beyond SYS needs NFSv4; expose_snapshots needs a licence (MW/plugins/nfs.py:606-658)', async () => {
      const t = await setup(release);
      const path = '/mnt/tank/nfs';
      expect(
        await refusedCreate(t, { path, maproot_group: 'nogroup', mapall_user: 'nope', mapall_group: 'nope' }),
      ).toEqual([
        ['sharingnfs_create.maproot_user', 'This field is required when map group is specified', EINVAL],
        ['sharingnfs_create.mapall_user', 'User not found: nope', EINVAL],
        ['sharingnfs_create.mapall_group', 'Group not found: nope', EINVAL],
      ]);
      expect(await refusedCreate(t, { path, maproot_user: 'root', mapall_user: 'nobody' })).toEqual(
        one('mapall_user', 'maproot_user disqualifies mapall_user'),
      );
      expect(await refusedCreate(t, { path, expose_snapshots: true })).toEqual(
        one('expose_snapshots', 'This is an enterprise feature and may not be enabled without a valid license.'),
      );
      await t.call(t.admin, 'nfs.update', { protocols: ['NFSV3'] });
      expect(await refusedCreate(t, { path, security: ['SYS', 'KRB5', 'KRB5P'] })).toEqual(
        one('security', 'The following security flavor(s) require NFSv4 to be enabled: KRB5,KRB5P.'),
      );
      expect(
        await create(t, { path, maproot_user: 'root', maproot_group: 'nogroup', security: ['SYS'] }),
      ).toMatchObject({ maproot_user: 'root', maproot_group: 'nogroup', security: ['SYS'] });
    });

    it('params as pydantic checks them: path required, security among SYS/KRB5/KRB5I/KRB5P, no id or locked (MW/api/v25_10_1/nfs.py:175-196)', async () => {
      const t = await setup(release);
      expect(triplesOf(await t.callError(t.admin, 'sharing.nfs.create', { locked: true, security: ['NONE'] }))).toEqual(
        [
          ['data.path', 'Field required', EINVAL],
          ['data.security.0', "Input should be 'SYS', 'KRB5', 'KRB5I' or 'KRB5P'", EINVAL],
          ['data.locked', 'Extra inputs are not permitted', EINVAL],
        ],
      );
    });

    it('pool.dataset.delete deletes the enabled shares at or below the mountpoint, without an event, even when ZFS then refuses; disabled ones stay (MW/plugins/pool_/dataset.py:828-846, MW/common/attachment/__init__.py:109-140)', async () => {
      const t = await setup(release);
      await t.call(t.admin, 'pool.dataset.create', { name: 'tank/other' });
      await create(t, { path: '/mnt/tank/nfs' });
      await create(t, { path: '/mnt/tank/nfs/sub', enabled: false });
      await create(t, { path: '/mnt/tank/other' });
      await t.call(t.admin, 'pool.snapshot.create', { dataset: 'tank/nfs', name: 'keep' });
      const heard: unknown[] = [];
      t.admin.notify = (_method, params) => heard.push(params);
      await t.call(t.admin, 'core.subscribe', 'sharing.nfs.query');
      // zfs destroy refuses the snapshot, after the shares went (:829-845).
      await t.callError(t.admin, 'pool.dataset.delete', 'tank/nfs');
      const paths = async () => (await t.call<Entry[]>(t.admin, 'sharing.nfs.query')).map((s) => [s.path, s.enabled]);
      expect(await paths()).toEqual([
        ['/mnt/tank/nfs/sub', false],
        ['/mnt/tank/other', true],
      ]);
      await t.call(t.admin, 'pool.dataset.delete', 'tank/nfs', { recursive: true });
      expect(await paths()).toEqual([
        ['/mnt/tank/nfs/sub', false],
        ['/mnt/tank/other', true],
      ]);
      expect(heard).toEqual([]);
      // A share whose path is gone is compared as written (MW/plugins/nfs.py:808-814, 920-926).
      expect(await create(t, { path: '/mnt/tank', networks: ['10.9.9.0/24'] })).toMatchObject({
        path: '/mnt/tank',
      });
    });
  });
}

describe('nfs.config / nfs.update (MW/plugins/nfs.py:85-406)', () => {
  it("a fresh 25.10.1's settings: both protocols, nfsd managed (as many as cores, at most 32), mountd logging on (MW/alembic/initial.sql:189 and later migrations; nfs_extend :187-208)", async () => {
    const t = await openTestAppliance();
    expect(await t.call(t.admin, 'nfs.config')).toEqual({
      id: 1,
      servers: Math.min(Math.max(cpus().length, 1), 32),
      allow_nonroot: false,
      protocols: ['NFSV3', 'NFSV4'],
      v4_krb: false,
      v4_domain: '',
      bindip: [],
      mountd_port: null,
      rpcstatd_port: null,
      rpclockd_port: null,
      mountd_log: true,
      statd_lockd_log: false,
      v4_krb_enabled: false,
      userd_manage_gids: false,
      keytab_has_nfs_spn: false,
      managed_nfsd: true,
      rdma: false,
    });
  });

  it('update keeps what it is given and answers nfs.config; servers null is managed again (MW/plugins/nfs.py:344-352, 399-406)', async () => {
    const t = await openTestAppliance({ release: '26.0' });
    const changed = await t.call(t.admin, 'nfs.update', {
      servers: 8,
      mountd_port: 618,
      v4_krb: true,
      v4_domain: 'lab',
    });
    expect(changed).toMatchObject({
      servers: 8,
      managed_nfsd: false,
      mountd_port: 618,
      v4_krb_enabled: true,
      v4_domain: 'lab',
    });
    expect(await t.call(t.admin, 'nfs.config')).toEqual(changed);
    expect(await t.call(t.admin, 'nfs.update', { servers: null })).toMatchObject({
      managed_nfsd: true,
      mountd_port: 618,
    });
  });

  it('refuses an empty protocols list, v4_domain without NFSv4, a bind address the system has not, RDMA without a capable NIC, port 20049 (MW/plugins/nfs.py:337-395; MW/api/v25_10_1/nfs.py:36-40)', async () => {
    const t = await openTestAppliance();
    expect(triplesOf(await t.callError(t.admin, 'nfs.update', { protocols: [] }))).toEqual([
      ['nfs_update.protocols', 'Must specify at least one value ("NFSV3", "NFSV4") in the "protocols" list.', EINVAL],
    ]);
    expect(
      triplesOf(
        await t.callError(t.admin, 'nfs.update', {
          protocols: ['NFSV3'],
          v4_domain: 'lab',
          bindip: ['192.0.2.1'],
          rdma: true,
        }),
      ),
    ).toEqual([
      ['nfs_update.bindip.0', 'Cannot use 192.0.2.1. Please provide a valid ip address.', EINVAL],
      ['nfs_update.v4_domain', 'This option does not apply to NFSv3', EINVAL],
      ['nfs_update.rdma', 'This platform cannot support NFS over RDMA or is missing an RDMA capable NIC.', EINVAL],
    ]);
    expect(triplesOf(await t.callError(t.admin, 'nfs.update', { mountd_port: 20049 }))).toEqual([
      [
        'nfs_update.mountd_port',
        'Value error, 20049 is a reserved for internal use. Please select another value.',
        EINVAL,
      ],
    ]);
    // Nothing was kept.
    expect(await t.call(t.admin, 'nfs.config')).toMatchObject({ protocols: ['NFSV3', 'NFSV4'], mountd_port: null });
  });
});
