/**
 * The releases stor knows (src/core/releases/) and their role catalogues, each against the
 * middleware source it was read from.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONTRACT_METHODS } from '../../../src/core/contract/index.js';
import { RELEASES, contractFor, releaseOfVersion } from '../../../src/core/releases/index.js';
import { shippedCatalogue } from '../../../src/core/roles/index.js';

/** 25.10.1's methods that 26.0 still serves: all but the service.* four it made private. */
const kept26 = () =>
  [...CONTRACT_METHODS.keys()].filter(
    (m) => !['service.start', 'service.stop', 'service.restart', 'service.reload'].includes(m),
  );

const MIRROR = '/work/.mirror/truenas+middleware/repo';

describe('role catalogues', () => {
  it('26.0 has 146 roles: CONTAINER_*, LXC_CONFIG_*, SHARING_WEBSHARE_*, ZFS_RESOURCE_WRITE/DELETE added, 7 VIRT_* dropped (stable/26 MW/role.py:115-122, :192-193, :267-268)', () => {
    const old = shippedCatalogue('25.10.1');
    const next = shippedCatalogue('26.0');
    expect([old.names.length, next.names.length]).toEqual([141, 146]);
    const added = next.names.filter((n) => !old.has(n));
    const dropped = old.names.filter((n) => !next.has(n));
    expect(added).toEqual([
      'CONTAINER_READ',
      'CONTAINER_WRITE',
      'LXC_CONFIG_READ',
      'LXC_CONFIG_WRITE',
      'CONTAINER_DEVICE_READ',
      'CONTAINER_DEVICE_WRITE',
      'CONTAINER_IMAGE_READ',
      'CONTAINER_IMAGE_WRITE',
      'SHARING_WEBSHARE_READ',
      'SHARING_WEBSHARE_WRITE',
      'ZFS_RESOURCE_WRITE',
      'ZFS_RESOURCE_DELETE',
    ]);
    expect(dropped).toEqual([
      'VIRT_GLOBAL_READ',
      'VIRT_GLOBAL_WRITE',
      'VIRT_INSTANCE_READ',
      'VIRT_INSTANCE_WRITE',
      'VIRT_INSTANCE_DELETE',
      'VIRT_IMAGE_READ',
      'VIRT_IMAGE_WRITE',
    ]);
    // `stig=None` as privilege.roles reports it (stable/26 MW/role.py:116, :118).
    expect([
      next.get('CONTAINER_WRITE')!.stig,
      next.get('LXC_CONFIG_WRITE')!.stig,
      next.get('CONTAINER_READ')!.stig,
    ]).toEqual([null, null, 1]);
  });

  it('PRIVILEGE_WRITE includes itself in 25.10.x (MW/role.py:62, same on release/25.10.7), not in 26.0 (stable/26 MW/role.py:64); SYSTEM_PRODUCT_WRITE everywhere (MW/role.py:231; stable/26 :248)', () => {
    const selfIncluding = (name: keyof typeof RELEASES) =>
      ['PRIVILEGE_WRITE', 'SYSTEM_PRODUCT_WRITE'].filter((r) => RELEASES[name].catalogue().isSelfIncluding(r));
    expect(selfIncluding('25.10.1')).toEqual(['PRIVILEGE_WRITE', 'SYSTEM_PRODUCT_WRITE']);
    expect(selfIncluding('25.10.7')).toEqual(['PRIVILEGE_WRITE', 'SYSTEM_PRODUCT_WRITE']);
    expect(selfIncluding('26.0')).toEqual(['SYSTEM_PRODUCT_WRITE']);
    expect(shippedCatalogue('26.0').get('PRIVILEGE_WRITE')!.includes).toEqual(['PRIVILEGE_READ']);
    for (const release of Object.values(RELEASES)) {
      expect(release.privilegeWriteIncludesItself, release.name).toBe(
        release.catalogue().isSelfIncluding('PRIVILEGE_WRITE'),
      );
    }
  });

  const mirrored = existsSync(MIRROR) && !!spawnable('python3');
  it.skipIf(!mirrored)(
    'scripts/role-catalogue.py regenerates both shipped files from the mirror, byte for byte (needs python3 and the middleware mirror)',
    () => {
      for (const [ref, file] of [
        ['TS-25.10.1', 'roles-25.10.1.json'],
        [RELEASES['26.0'].source, 'roles-26.0.json'],
        // 25.10.7 ships 25.10.1's role.py: the same output.
        ['release/25.10.7', 'roles-25.10.1.json'],
      ] as const) {
        const generated = execFileSync('python3', ['scripts/role-catalogue.py', ref, '-'], {
          encoding: 'utf8',
          env: { ...process.env, MW_MIRROR: MIRROR },
        });
        expect(generated, ref).toBe(readFileSync(`src/core/roles/${file}`, 'utf8'));
      }
    },
  );
});

describe('/api/versions', () => {
  const mirrored = existsSync(MIRROR);
  it.skipIf(!mirrored)(
    "each release's list is its ref's: every MW/api/v* directory with an __init__.py, sorted, v24.10 left out (MW/main.py:307-323 _load_api_versions, :1639-1643 api_versions_handler at c61eb9a)",
    () => {
      for (const release of Object.values(RELEASES)) {
        const git = (...args: string[]) => execFileSync('git', ['-C', MIRROR, ...args], { encoding: 'utf8' });
        const dirs = git('ls-tree', '--name-only', release.source, 'src/middlewared/middlewared/api/')
          .split('\n')
          .filter((path) => /\/v[^/]*$/.test(path))
          .sort();
        const versions = dirs
          .filter((dir) => git('ls-tree', '--name-only', release.source, `${dir}/__init__.py`).trim() !== '')
          .map((dir) => dir.slice(dir.lastIndexOf('/') + 1).replaceAll('_', '.'));
        expect(
          versions.filter((v) => v !== 'v24.10'),
          release.name,
        ).toEqual(release.apiVersions);
        expect(
          release.unlistedApiVersions.every((v) => versions.includes(v)),
          release.name,
        ).toBe(true);
      }
    },
  );
});

function spawnable(command: string): boolean {
  try {
    execFileSync(command, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('releases', () => {
  it('names the release of a version_short: 25.10.0–.5 as 25.10.1, 25.10.6, 25.10.7 on, 26.0 from BETA.3 on; BETA.1/2 and others unknown', () => {
    expect(['25.10.0', '25.10.1', '25.10.2.1', '25.10.6', '25.10.7', '25.10.8'].map(releaseOfVersion)).toEqual([
      '25.10.1',
      '25.10.1',
      '25.10.1',
      '25.10.6',
      '25.10.7',
      '25.10.7',
    ]);
    expect(['26.0.0-BETA.2', '26.0.0-BETA.3', '26.0.0-RC.1', '26.0.0', '26.0.1'].map(releaseOfVersion)).toEqual([
      null,
      '26.0',
      '26.0',
      '26.0',
      '26.0',
    ]);
    expect(['25.04.2', '27.0.0', 'master', ''].map(releaseOfVersion)).toEqual([null, null, null, null]);
  });

  it("26.0's contract is 25.10.1's with user.* (webshare, MW/api/v26_0_0/user.py:105-111), pool.query/get_instance (all_sed, typed scan: MW/api/v26_0_0/pool.py:40-45), pool.dataset.* (tier, pbkdf2iters), pool.snapshot.query/get_instance (26.0's entries) and create (suspend_vms), user.renew_2fa_secret (interval 30 or 60), sharing.nfs.*, sharing.smb.*, pool.snapshottask.* and replication.* entries, smb.config/update, nfs.update (its argument optional) and alert.list (id first) and SCRAM's auth.*/api_key.* overridden, api_key.convert_raw_key added last, service.start/stop/restart/reload gone (private: stable/26 MW/plugins/service.py:162-413)", () => {
    const next = contractFor('26.0');
    expect([...next.keys()]).toEqual([...kept26(), 'api_key.convert_raw_key']);
    const changed = [...next].filter(([name, entry]) => entry !== CONTRACT_METHODS.get(name)).map(([name]) => name);
    expect(changed.sort()).toEqual(
      [
        'auth.login_ex',
        'auth.login_ex_continue',
        'auth.mechanism_choices',
        'user.query',
        'user.get_instance',
        'user.create',
        'user.update',
        'api_key.query',
        'api_key.get_instance',
        'api_key.my_keys',
        'api_key.create',
        'api_key.update',
        'api_key.convert_raw_key',
        'pool.query',
        'pool.get_instance',
        'pool.dataset.query',
        'pool.dataset.get_instance',
        'pool.dataset.create',
        'pool.dataset.update',
        // 26.0's plugin builds pool.snapshot.query's entries its own way (MW/plugins/pool_/snapshot.py:94-290
        // at TS-26.0.0-BETA.3), which get_instance and create answer too.
        'pool.snapshot.query',
        'pool.snapshot.get_instance',
        'pool.snapshot.create',
        'user.renew_2fa_secret',
        // MW/api/v26_0_0/smb.py:156-306, 915-1071: dataset/relative_path/tier; minimum_protocol for enable_smb1.
        'sharing.smb.query',
        'sharing.smb.get_instance',
        'sharing.smb.create',
        'sharing.smb.update',
        'smb.config',
        'smb.update',
        // MW/api/v26_0_0/nfs.py:114-186: SharingNFSEntry gains dataset/relative_path/tier; delete and nfs.* unchanged.
        'sharing.nfs.query',
        'sharing.nfs.get_instance',
        'sharing.nfs.create',
        'sharing.nfs.update',
        // stable/26 MW/api/v26_0_0/pool_snapshottask.py:31-57: the entry's fields in a new order, id first;
        // delete's handler looks the task up first (stable/26 MW/plugins/snapshot.py:215-216); the
        // will_change_retention_for pair answers {} for a task whose dataset is gone
        // (stable/26 MW/plugins/snapshot_/task_retention.py:38-45, 69-76).
        'pool.snapshottask.query',
        'pool.snapshottask.get_instance',
        'pool.snapshottask.create',
        'pool.snapshottask.update',
        'pool.snapshottask.delete',
        'pool.snapshottask.update_will_change_retention_for',
        'pool.snapshottask.delete_will_change_retention_for',
        // stable/26 MW/api/v26_0_0/replication.py: bound tasks id first, run's options, target_unmatched_snapshots' lists.
        'replication.query',
        'replication.get_instance',
        'replication.create',
        'replication.update',
        'replication.run',
        'replication.target_unmatched_snapshots',
        // stable/26 MW/api/v26_0_0/alert.py:19-34: Alert declares id first.
        'alert.list',
        // stable/26 MW/api/base/model.py:274-286: an argument whose fields are all optional may be left out.
        'nfs.update',
      ].sort(),
    );
    expect(
      next.get('user.create')!.params[0]!.schema.safeParse({ username: 'w', full_name: 'W', webshare: true }).success,
    ).toBe(true);
    expect(
      CONTRACT_METHODS.get('user.create')!.params[0]!.schema.safeParse({
        username: 'w',
        full_name: 'W',
        webshare: true,
      }).success,
    ).toBe(false);
    expect(next.get('user.query')!.fromBase!([{ id: 1 }])).toEqual([{ id: 1, webshare: false }]);
    const scramLogin = { mechanism: 'SCRAM', scram_type: 'CLIENT_FIRST_MESSAGE', rfc_str: 'n,,n=root:1,r=abc' };
    expect(next.get('auth.login_ex')!.params[0]!.schema.safeParse(scramLogin).success).toBe(true);
    expect(CONTRACT_METHODS.get('auth.login_ex')!.params[0]!.schema.safeParse(scramLogin).success).toBe(false);
    expect(contractFor('25.10.7')).toBe(CONTRACT_METHODS);
  });

  it("the emulator's keyLogin setting swaps SCRAM's entries: 26.0 with plain keys is 25.10.1's auth/api_key, 25.10.1 with scram is 26.0's", () => {
    const plain26 = contractFor('26.0', 'plain');
    expect([...plain26.keys()]).toEqual(kept26());
    expect(plain26.get('auth.login_ex')).toBe(CONTRACT_METHODS.get('auth.login_ex'));
    expect(plain26.get('user.query')).toBe(contractFor('26.0').get('user.query'));
    const scram25 = contractFor('25.10.1', 'scram');
    expect([...scram25.keys()]).toEqual([...CONTRACT_METHODS.keys(), 'api_key.convert_raw_key']);
    expect(scram25.get('api_key.create')).toBe(contractFor('26.0').get('api_key.create'));
    expect(scram25.get('user.query')).toBe(CONTRACT_METHODS.get('user.query'));
    expect(contractFor('25.10.1', 'plain')).toBe(CONTRACT_METHODS);
    expect(contractFor('26.0', 'plain')).toBe(plain26);
  });
});
