/**
 * `stor whoami --json` and its piped human form, byte for byte, against `stor serve` on port 0 with
 * a fresh state: the output scripts parse must not change when the way the binary loads, logs in
 * or talks to the target does (directly, over HTTP, through a profile, through the session agent).
 *
 * What varies from run to run, and only that, is filled in: the port `stor serve` listens on (in
 * `target.url`, and in the profile named after host and port) and the state directory of the
 * embedded target (a temporary directory). Everything else is fixed by the seed (the administrator
 * is uid/gid 950, "Local Administrator", FULL_ADMIN) and by each release's role catalogue, sorted.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { sessionEnv } from '../../helpers/session.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** FULL_ADMIN's effective roles on 25.10.1 (MW/role.py at TS-25.10.1), sorted. */
const ROLES_25_10_1 = `
ACCOUNT_READ ACCOUNT_WRITE ALERT_LIST_READ ALERT_LIST_WRITE ALERT_READ ALERT_WRITE API_KEY_READ API_KEY_WRITE
APPS_READ APPS_WRITE AUTH_SESSIONS_READ AUTH_SESSIONS_WRITE BOOT_ENV_READ BOOT_ENV_WRITE CATALOG_READ
CATALOG_WRITE CERTIFICATE_READ CERTIFICATE_WRITE CLOUD_BACKUP_READ CLOUD_BACKUP_WRITE CLOUD_SYNC_READ
CLOUD_SYNC_WRITE DATASET_DELETE DATASET_READ DATASET_WRITE DIRECTORY_SERVICE_READ DIRECTORY_SERVICE_WRITE
DISK_READ DISK_WRITE DOCKER_READ DOCKER_WRITE ENCLOSURE_READ ENCLOSURE_WRITE FAILOVER_READ FAILOVER_WRITE
FILESYSTEM_ATTRS_READ FILESYSTEM_ATTRS_WRITE FILESYSTEM_DATA_READ FILESYSTEM_DATA_WRITE FILESYSTEM_FULL_CONTROL
FULL_ADMIN IPMI_READ IPMI_WRITE JBOF_READ JBOF_WRITE KEYCHAIN_CREDENTIAL_READ KEYCHAIN_CREDENTIAL_WRITE KMIP_READ
KMIP_WRITE MAIL_WRITE NETWORK_GENERAL_READ NETWORK_GENERAL_WRITE NETWORK_INTERFACE_READ NETWORK_INTERFACE_WRITE
POOL_READ POOL_SCRUB_READ POOL_SCRUB_WRITE POOL_WRITE PRIVILEGE_READ PRIVILEGE_WRITE READONLY_ADMIN
REPLICATION_ADMIN REPLICATION_TASK_CONFIG_READ REPLICATION_TASK_CONFIG_WRITE REPLICATION_TASK_READ
REPLICATION_TASK_WRITE REPLICATION_TASK_WRITE_PULL REPORTING_READ REPORTING_WRITE SERVICE_READ SERVICE_WRITE
SHARING_ADMIN SHARING_FTP_READ SHARING_FTP_WRITE SHARING_ISCSI_AUTH_READ SHARING_ISCSI_AUTH_WRITE
SHARING_ISCSI_EXTENT_READ SHARING_ISCSI_EXTENT_WRITE SHARING_ISCSI_GLOBAL_READ SHARING_ISCSI_GLOBAL_WRITE
SHARING_ISCSI_HOST_READ SHARING_ISCSI_HOST_WRITE SHARING_ISCSI_INITIATOR_READ SHARING_ISCSI_INITIATOR_WRITE
SHARING_ISCSI_PORTAL_READ SHARING_ISCSI_PORTAL_WRITE SHARING_ISCSI_READ SHARING_ISCSI_TARGETEXTENT_READ
SHARING_ISCSI_TARGETEXTENT_WRITE SHARING_ISCSI_TARGET_READ SHARING_ISCSI_TARGET_WRITE SHARING_ISCSI_WRITE
SHARING_NFS_READ SHARING_NFS_WRITE SHARING_NVME_TARGET_READ SHARING_NVME_TARGET_WRITE SHARING_READ
SHARING_SMB_READ SHARING_SMB_WRITE SHARING_WRITE SNAPSHOT_DELETE SNAPSHOT_READ SNAPSHOT_TASK_READ
SNAPSHOT_TASK_WRITE SNAPSHOT_WRITE SSH_READ SSH_WRITE SUPPORT_READ SUPPORT_WRITE SYSTEM_ADVANCED_READ
SYSTEM_ADVANCED_WRITE SYSTEM_AUDIT_READ SYSTEM_AUDIT_WRITE SYSTEM_CRON_READ SYSTEM_CRON_WRITE SYSTEM_GENERAL_READ
SYSTEM_GENERAL_WRITE SYSTEM_PRODUCT_READ SYSTEM_PRODUCT_WRITE SYSTEM_SECURITY_READ SYSTEM_SECURITY_WRITE
SYSTEM_TUNABLE_READ SYSTEM_TUNABLE_WRITE SYSTEM_UPDATE_READ SYSTEM_UPDATE_WRITE TRUECOMMAND_READ
TRUECOMMAND_WRITE TRUENAS_CONNECT_READ TRUENAS_CONNECT_WRITE VIRT_GLOBAL_READ VIRT_GLOBAL_WRITE VIRT_IMAGE_READ
VIRT_IMAGE_WRITE VIRT_INSTANCE_DELETE VIRT_INSTANCE_READ VIRT_INSTANCE_WRITE VM_DEVICE_READ VM_DEVICE_WRITE
VM_READ VM_WRITE ZFS_RESOURCE_READ
`
  .trim()
  .split(/\s+/);

/** FULL_ADMIN's effective roles on 26.0 (MW/role.py at stable/26): no VIRT_*, CONTAINER_*, LXC_* and more. */
const ROLES_26_0 = `
ACCOUNT_READ ACCOUNT_WRITE ALERT_LIST_READ ALERT_LIST_WRITE ALERT_READ ALERT_WRITE API_KEY_READ API_KEY_WRITE
APPS_READ APPS_WRITE AUTH_SESSIONS_READ AUTH_SESSIONS_WRITE BOOT_ENV_READ BOOT_ENV_WRITE CATALOG_READ
CATALOG_WRITE CERTIFICATE_READ CERTIFICATE_WRITE CLOUD_BACKUP_READ CLOUD_BACKUP_WRITE CLOUD_SYNC_READ
CLOUD_SYNC_WRITE CONTAINER_DEVICE_READ CONTAINER_DEVICE_WRITE CONTAINER_IMAGE_READ CONTAINER_IMAGE_WRITE
CONTAINER_READ CONTAINER_WRITE DATASET_DELETE DATASET_READ DATASET_WRITE DIRECTORY_SERVICE_READ
DIRECTORY_SERVICE_WRITE DISK_READ DISK_WRITE DOCKER_READ DOCKER_WRITE ENCLOSURE_READ ENCLOSURE_WRITE
FAILOVER_READ FAILOVER_WRITE FILESYSTEM_ATTRS_READ FILESYSTEM_ATTRS_WRITE FILESYSTEM_DATA_READ
FILESYSTEM_DATA_WRITE FILESYSTEM_FULL_CONTROL FULL_ADMIN IPMI_READ IPMI_WRITE JBOF_READ JBOF_WRITE
KEYCHAIN_CREDENTIAL_READ KEYCHAIN_CREDENTIAL_WRITE KMIP_READ KMIP_WRITE LXC_CONFIG_READ LXC_CONFIG_WRITE
MAIL_WRITE NETWORK_GENERAL_READ NETWORK_GENERAL_WRITE NETWORK_INTERFACE_READ NETWORK_INTERFACE_WRITE POOL_READ
POOL_SCRUB_READ POOL_SCRUB_WRITE POOL_WRITE PRIVILEGE_READ PRIVILEGE_WRITE READONLY_ADMIN REPLICATION_ADMIN
REPLICATION_TASK_CONFIG_READ REPLICATION_TASK_CONFIG_WRITE REPLICATION_TASK_READ REPLICATION_TASK_WRITE
REPLICATION_TASK_WRITE_PULL REPORTING_READ REPORTING_WRITE SERVICE_READ SERVICE_WRITE SHARING_ADMIN
SHARING_FTP_READ SHARING_FTP_WRITE SHARING_ISCSI_AUTH_READ SHARING_ISCSI_AUTH_WRITE SHARING_ISCSI_EXTENT_READ
SHARING_ISCSI_EXTENT_WRITE SHARING_ISCSI_GLOBAL_READ SHARING_ISCSI_GLOBAL_WRITE SHARING_ISCSI_HOST_READ
SHARING_ISCSI_HOST_WRITE SHARING_ISCSI_INITIATOR_READ SHARING_ISCSI_INITIATOR_WRITE SHARING_ISCSI_PORTAL_READ
SHARING_ISCSI_PORTAL_WRITE SHARING_ISCSI_READ SHARING_ISCSI_TARGETEXTENT_READ SHARING_ISCSI_TARGETEXTENT_WRITE
SHARING_ISCSI_TARGET_READ SHARING_ISCSI_TARGET_WRITE SHARING_ISCSI_WRITE SHARING_NFS_READ SHARING_NFS_WRITE
SHARING_NVME_TARGET_READ SHARING_NVME_TARGET_WRITE SHARING_READ SHARING_SMB_READ SHARING_SMB_WRITE
SHARING_WEBSHARE_READ SHARING_WEBSHARE_WRITE SHARING_WRITE SNAPSHOT_DELETE SNAPSHOT_READ SNAPSHOT_TASK_READ
SNAPSHOT_TASK_WRITE SNAPSHOT_WRITE SSH_READ SSH_WRITE SUPPORT_READ SUPPORT_WRITE SYSTEM_ADVANCED_READ
SYSTEM_ADVANCED_WRITE SYSTEM_AUDIT_READ SYSTEM_AUDIT_WRITE SYSTEM_CRON_READ SYSTEM_CRON_WRITE SYSTEM_GENERAL_READ
SYSTEM_GENERAL_WRITE SYSTEM_PRODUCT_READ SYSTEM_PRODUCT_WRITE SYSTEM_SECURITY_READ SYSTEM_SECURITY_WRITE
SYSTEM_TUNABLE_READ SYSTEM_TUNABLE_WRITE SYSTEM_UPDATE_READ SYSTEM_UPDATE_WRITE TRUECOMMAND_READ
TRUECOMMAND_WRITE TRUENAS_CONNECT_READ TRUENAS_CONNECT_WRITE VM_DEVICE_READ VM_DEVICE_WRITE VM_READ VM_WRITE
ZFS_RESOURCE_DELETE ZFS_RESOURCE_READ ZFS_RESOURCE_WRITE
`
  .trim()
  .split(/\s+/);

interface Golden {
  attributes: string[];
  roles: string[];
  release: string;
}

/** The exact bytes `stor whoami --json` writes: two-space JSON, keys in this order, one newline. */
function goldenJson(g: Golden, target: string): string {
  const list = (items: string[], indent: string) =>
    `[\n${items.map((i) => `${indent}  "${i}"`).join(',\n')}\n${indent}]`;
  return `{
  "username": "truenas_admin",
  "uid": 950,
  "gid": 950,
  "full_name": "Local Administrator",
  "account_attributes": ${list(g.attributes, '  ')},
  "role_count": ${g.roles.length},
  "roles": ${list(g.roles, '  ')},
  "web_shell": true,
  "target": ${target},
  "release": "${g.release}",
  "emulator": true
}
`;
}

/** The exact bytes of the piped human form: tab-separated fields, the roles on one line. */
function goldenHuman(g: Golden, target: string): string {
  return [
    'username\ttruenas_admin',
    'uid\t950',
    'gid\t950',
    'full name\tLocal Administrator',
    `account attributes\t${g.attributes.join(',')}`,
    'web shell\ttrue',
    `target\t${target}`,
    `release\tTrueNAS ${g.release}, stor emulator`,
    `effective roles\t${g.roles.length}`,
    `roles\t${g.roles.join(',')}`,
    '',
  ].join('\n');
}

const remoteTarget = (url: string, profile?: string) =>
  `{\n    "kind": "remote",\n    "url": "${url}"${profile === undefined ? '' : `,\n    "profile": "${profile}"`}\n  }`;

const RELEASES = [
  // Default settings: every member of builtin_administrators is SYS_ADMIN; plain key login.
  {
    serve: [],
    user: {},
    http: true,
    golden: { attributes: ['LOCAL', 'API_KEY', 'SYS_ADMIN'], roles: ROLES_25_10_1, release: '25.10.1' },
  },
  // 26.0 logs keys in with SCRAM, which names the key's user (STOR_USER), and adds the SCRAM attribute.
  {
    serve: ['--emulate', 'truenas-26.0'],
    user: { STOR_USER: 'truenas_admin' },
    http: false,
    golden: { attributes: ['LOCAL', 'API_KEY', 'SYS_ADMIN', 'SCRAM'], roles: ROLES_26_0, release: '26.0.0-RC.1' },
  },
];

describe('stor whoami prints the same bytes however it reaches the target', () => {
  for (const r of RELEASES) {
    it(`${r.golden.release} (stor serve ${r.serve.join(' ') || 'with default settings'}): --json and the human form match the golden directly, over HTTP, through a profile, through the agent and embedded`, async () => {
      const server = await spawnServe(tempDir(), r.serve);
      const key = readFileSync(server.adminKeyFile, 'utf8').trim();
      const url = server.baseUrl;
      const direct = { ...clientEnv(), STOR_URL: url, STOR_API_KEY: key, ...r.user };

      const json = await spawnStor(['whoami', '--json'], { env: direct });
      expect(json.code, json.stderr).toBe(0);
      expect(json.stderr).toBe('');
      expect(json.stdout).toBe(goldenJson(r.golden, remoteTarget(url)));
      const human = await spawnStor(['whoami'], { env: direct });
      expect(human.code, human.stderr).toBe(0);
      expect(human.stdout).toBe(goldenHuman(r.golden, url));

      if (r.http) {
        const overHttp = await spawnStor(['--rpc', 'http', 'whoami', '--json'], { env: direct });
        expect(overHttp.code, overHttp.stderr).toBe(0);
        expect(overHttp.stdout).toBe(json.stdout);
      }

      // Through a saved profile (named after host and port) and then through the session agent.
      const machine = { ...clientEnv(), ...r.user };
      const login = await spawnStor(['login', '--url', url, '--api-key-stdin'], { env: machine, stdin: key });
      expect(login.code, login.stderr).toBe(0);
      const profile = new URL(url).host.replace(':', '-');
      const viaProfile = await spawnStor(['whoami', '--json'], { env: machine });
      expect(viaProfile.code, viaProfile.stderr).toBe(0);
      expect(viaProfile.stdout).toBe(goldenJson(r.golden, remoteTarget(url, profile)));
      const agent = { ...machine, ...sessionEnv().env };
      for (let i = 0; i < 2; i++) {
        // The first starts the agent, the second is answered by it warm.
        const viaAgent = await spawnStor(['whoami', '--json'], { env: agent });
        expect(viaAgent.code, viaAgent.stderr).toBe(0);
        expect(viaAgent.stdout).toBe(viaProfile.stdout);
        const humanViaAgent = await spawnStor(['whoami'], { env: agent });
        expect(humanViaAgent.stdout).toBe(goldenHuman(r.golden, `${url} (profile ${profile})`));
      }
      await server.stop();

      // The embedded target of the same state answers as the release stored with it.
      const embedded = await spawnStor(['whoami', '--json'], { env: { ...clientEnv(), STOR_HOME: server.stateDir } });
      expect(embedded.code, embedded.stderr).toBe(0);
      expect(embedded.stdout).toBe(
        goldenJson(
          { ...r.golden, attributes: r.golden.attributes.filter((a) => a !== 'SCRAM') },
          `{\n    "kind": "embedded",\n    "stateDir": "${server.stateDir}"\n  }`,
        ),
      );
    }, 120_000);
  }

  it("26.0 without the key's user: the same error, on stderr, exit 4, nothing on stdout", async () => {
    const server = await spawnServe(tempDir(), ['--emulate', 'truenas-26.0']);
    const env = {
      ...clientEnv(),
      STOR_URL: server.baseUrl,
      STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
    };
    const json = await spawnStor(['whoami', '--json'], { env });
    expect([json.code, json.stdout]).toEqual([4, '']);
    expect(json.stderr).toBe(
      `{"error":{"code":"SCRAM_NEEDS_USER","kind":"auth","message":"${server.baseUrl} offers SCRAM key login (TrueNAS 26), which names the key's user, and stor does not know it","hint":"set STOR_USER=NAME (the key's owner), or run \`stor login\` again with STOR_USER set: the profile then keeps it"}}\n`,
    );
    const human = await spawnStor(['whoami'], { env });
    expect([human.code, human.stdout]).toEqual([4, '']);
    expect(human.stderr).toBe(
      `stor: ${server.baseUrl} offers SCRAM key login (TrueNAS 26), which names the key's user, and stor does not know it\n` +
        "hint: set STOR_USER=NAME (the key's owner), or run `stor login` again with STOR_USER set: the profile then keeps it\n",
    );
    await server.stop();
  });
});
