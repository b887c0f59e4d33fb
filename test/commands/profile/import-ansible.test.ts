/**
 * `stor profile import` of an Ansible inventory: the same fleet in YAML and
 * INI, two real servers on port 0, so `--targets @site_a` reaches the hosts Ansible's `site_a` means.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProfileStore } from '../../../src/core/config/profiles.js';
import { clientEnv } from '../../helpers/client-env.js';
import { runStor } from '../../helpers/run-stor.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { tempDir } from '../../helpers/temp-dir.js';

function keyFiles(dir: string, servers: Record<string, TestServer>): void {
  for (const [name, s] of Object.entries(servers)) {
    writeFileSync(join(dir, `${name}.key`), `${s.adminKey}\n`);
    chmodSync(join(dir, `${name}.key`), 0o600);
  }
}

const yamlInventory = (a: TestServer, b: TestServer) => `
all:
  hosts:
    web1:
      ansible_host: 10.0.0.9
  children:
    storage:
      vars:
        stor_url: "ws://{{ ansible_host }}:{{ stor_port }}"
        stor_key_file: nas1.key
      children:
        site_a:
          hosts:
            nas1:
              ansible_host: 127.0.0.1
              stor_port: ${a.port}
        site_b:
          hosts:
            nas2:
              ansible_host: 127.0.0.1
              stor_port: ${b.port}
              stor_key_file: nas2.key
`;

const iniInventory = (a: TestServer, b: TestServer) => `
web1 ansible_host=10.0.0.9

[site_a]
nas1 ansible_host=127.0.0.1 stor_port=${a.port}

[site_b]
nas2 ansible_host=127.0.0.1 stor_port=${b.port} stor_key_file=nas2.key

[storage:children]
site_a
site_b

[storage:vars]
stor_key_file=nas1.key
stor_url=ws://{{ ansible_host }}:{{ stor_port }}

[all:vars]
ntp_server=10.0.0.1
`;

describe('stor profile import of an Ansible inventory', () => {
  for (const [format, file, inventory] of [
    ['YAML', 'hosts.yaml', yamlInventory],
    ['INI', 'hosts.ini', iniInventory],
  ] as const) {
    it(`${format}: a profile per host with stor_url, tagged with its groups, keys from files; web1 (no stor_url) left out, said`, async () => {
      const [a, b] = await Promise.all([startTestServer(), startTestServer()]);
      const env = clientEnv();
      const dir = tempDir('stor-inventory-');
      keyFiles(dir, { nas1: a, nas2: b });
      writeFileSync(join(dir, file), inventory(a, b));

      const r = await runStor(['profile', 'import', join(dir, file), '--json'], { env });
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout);
      expect(report.imported).toEqual([
        { name: 'nas1', url: `ws://127.0.0.1:${a.port}`, created: true, tags: ['site_a', 'storage'] },
        { name: 'nas2', url: `ws://127.0.0.1:${b.port}`, created: true, tags: ['site_b', 'storage'] },
      ]);
      expect(report.skipped).toEqual([{ name: 'web1', reason: 'no stor_url (ansible_host 10.0.0.9)' }]);
      const doc = await new ProfileStore(env.STOR_CONFIG_DIR!).read();
      expect([doc.profiles.nas1!.apiKey, doc.profiles.nas2!.apiKey]).toEqual([a.adminKey, b.adminKey]);
      const human = await runStor(['profile', 'import', join(dir, file)], { env });
      expect(human.stderr).toContain('left out 1 inventory host without stor_url (not appliances to stor): web1');
      expect(human.stdout + human.stderr).not.toContain(a.adminKey.split('-')[1]!);

      // The group means the same hosts in both tools.
      const siteA = await runStor(['--targets', '@site_a', 'whoami', '--json'], { env });
      expect(siteA.code, siteA.stderr).toBe(0);
      expect(JSON.parse(siteA.stdout).map((o: { target: string; ok: boolean }) => [o.target, o.ok])).toEqual([
        ['nas1', true],
      ]);
      const storage = await runStor(['--targets', '@storage', 'whoami', '--json'], { env });
      expect(JSON.parse(storage.stdout).map((o: { target: string }) => o.target)).toEqual(['nas1', 'nas2']);
    });
  }

  it('keeps the safety of the list: no key in the inventory, no key over clear text to a remote host, nothing saved on an error', async () => {
    const env = clientEnv();
    const dir = tempDir('stor-inventory-');
    writeFileSync(join(dir, 'k.key'), `1-${'a'.repeat(64)}\n`);
    chmodSync(join(dir, 'k.key'), 0o600);
    const cases: [string, string, string][] = [
      [
        'inline.ini',
        `[g]\nh stor_url=ws://127.0.0.1:1 stor_api_key=1-${'a'.repeat(64)}\n`,
        'host h: stor_api_key: a key is never read from the inventory',
      ],
      [
        'clear.ini',
        '[g]\nh stor_url=ws://nas.example.com stor_key_file=k.key\n',
        'refusing to send an API key in clear',
      ],
      [
        'nokey.yaml',
        'all:\n  hosts:\n    h:\n      stor_url: ws://127.0.0.1:1\n',
        'host h: give the key as key_file or key_stdin: true',
      ],
      ['none.ini', '[g]\nh ansible_host=10.0.0.1\n', 'no host of the inventory has a stor_url'],
      ['range.ini', '[g]\nnas[1:3] stor_url=ws://127.0.0.1:1\n', 'host ranges are not expanded'],
      [
        'badtag.yaml',
        'all:\n  children:\n    "-x":\n      hosts:\n        h:\n          stor_url: ws://127.0.0.1:1\n          stor_key_file: k.key\n',
        'host h: tags.0:',
      ],
    ];
    for (const [name, text, message] of cases) {
      writeFileSync(join(dir, name), text);
      const r = await runStor(['profile', 'import', join(dir, name), '--json'], { env });
      expect(r.code, `${name}: ${r.stderr}`).toBe(2);
      expect(JSON.parse(r.stderr).error.message, name).toContain(message);
      expect(r.stderr).not.toContain('a'.repeat(64));
    }
    expect((await new ProfileStore(env.STOR_CONFIG_DIR!).read()).profiles).toEqual({});
  });

  it("the key's user: stor_user, else ansible_user; stor_user wins where both are set", async () => {
    const env = clientEnv();
    const dir = tempDir('stor-inventory-');
    writeFileSync(join(dir, 'k.key'), `1-${'a'.repeat(64)}\n`);
    chmodSync(join(dir, 'k.key'), 0o600);
    writeFileSync(
      join(dir, 'users.ini'),
      [
        '[nas]',
        'both stor_url=ws://127.0.0.1:1 stor_user=stor-op ansible_user=root',
        'ansible_only stor_url=ws://127.0.0.1:2 ansible_user="{{ inventory_hostname }}-op"',
        'stor_only stor_url=ws://127.0.0.1:3 stor_user=stor-op',
        'neither stor_url=ws://127.0.0.1:4',
        '[nas:vars]',
        'stor_key_file=k.key',
        '',
      ].join('\n'),
    );
    const r = await runStor(['profile', 'import', join(dir, 'users.ini'), '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).imported.map((p: { name: string; username?: string }) => [p.name, p.username])).toEqual(
      [
        ['both', 'stor-op'],
        ['ansible_only', 'ansible_only-op'],
        ['stor_only', 'stor-op'],
        ['neither', undefined],
      ],
    );
    const doc = await new ProfileStore(env.STOR_CONFIG_DIR!).read();
    expect(Object.fromEntries(Object.entries(doc.profiles).map(([name, p]) => [name, p.username]))).toEqual({
      both: 'stor-op',
      ansible_only: 'ansible_only-op',
      stor_only: 'stor-op',
      neither: undefined,
    });
  });

  it('--format: list refuses an inventory; ansible reads an INI file that has no section header', async () => {
    const env = clientEnv();
    const dir = tempDir('stor-inventory-');
    writeFileSync(join(dir, 'k.key'), `1-${'a'.repeat(64)}\n`);
    chmodSync(join(dir, 'k.key'), 0o600);
    writeFileSync(join(dir, 'flat'), 'h stor_url=ws://127.0.0.1:9 stor_key_file=k.key\n');
    const auto = await runStor(['profile', 'import', join(dir, 'flat'), '--json'], { env });
    expect(JSON.parse(auto.stderr).error.code).toBe('BAD_PROFILE_FILE');
    const asAnsible = await runStor(['profile', 'import', join(dir, 'flat'), '--format', 'ansible', '--json'], { env });
    expect(asAnsible.code, asAnsible.stderr).toBe(0);
    expect(JSON.parse(asAnsible.stdout).imported).toEqual([
      { name: 'h', url: 'ws://127.0.0.1:9', created: true, tags: [] },
    ]);
    writeFileSync(join(dir, 'inv.yaml'), 'all:\n  hosts:\n    h:\n');
    const asList = await runStor(['profile', 'import', join(dir, 'inv.yaml'), '--format', 'list', '--json'], { env });
    expect(JSON.parse(asList.stderr).error.message).toContain('does not hold a list of profiles');
  });
});
