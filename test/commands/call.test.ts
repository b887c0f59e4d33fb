import { describe, expect, it } from 'vitest';
import { parseCallArgument } from '../../src/commands/call/call.js';
import { createUserWithKey, openTestAppliance } from '../helpers/appliance.js';
import { runStor } from '../helpers/run-stor.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('stor call', () => {
  it('lists the three builtin privileges with their roles and groups', async () => {
    const { code, stdout } = await runStor(['call', 'privilege.query'], { env: { STOR_HOME: tempDir() } });
    expect(code).toBe(0);
    const privileges = JSON.parse(stdout) as { name: string; roles: string[]; local_groups: { name: string }[] }[];
    expect(privileges.map((p) => [p.name, p.roles, p.local_groups.map((g) => g.name)])).toEqual([
      ['Local Administrator', ['FULL_ADMIN'], ['builtin_administrators']],
      ['Read-Only Administrator', ['READONLY_ADMIN'], ['truenas_readonly_administrators']],
      ['Sharing Administrator', ['SHARING_ADMIN'], ['truenas_sharing_administrators']],
    ]);
  });

  it('takes each argument as JSON when it parses, else as a string', async () => {
    expect(parseCallArgument('[1,2]')).toEqual([1, 2]);
    expect(parseCallArgument('42')).toBe(42);
    expect(parseCallArgument('null')).toBeNull();
    expect(parseCallArgument('tank/ds')).toBe('tank/ds');
    const env = { STOR_HOME: tempDir() };
    const { stdout } = await runStor(['call', 'privilege.query', '[["name","^","Read"]]', '{"select":["id"]}'], { env });
    expect(JSON.parse(stdout)).toEqual([{ id: 2 }]);
  });

  it('prints validation errors one per line and exits 1', async () => {
    const { code, stdout, stderr } = await runStor(['call', 'privilege.get_instance', 'one'], { env: { STOR_HOME: tempDir() } });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('* id: Input should be a valid integer');
  });

  it('exits 1 for an unknown method and 5 for a method the identity may not call', async () => {
    const home = tempDir();
    const unknown = await runStor(['call', 'no.such'], { env: { STOR_HOME: home } });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Method does not exist');

    const t = await openTestAppliance(undefined, home);
    const { key } = await createUserWithKey(t, 'ro', { privilegeRoles: ['READONLY_ADMIN'] });
    t.appliance.close();
    const denied = await runStor(['call', 'user.create', '{"username":"x","full_name":"x","group_create":true,"password":"p"}'], {
      env: { STOR_HOME: home, STOR_API_KEY: key },
    });
    expect(denied.code).toBe(5);
    expect(denied.stderr).toContain('[EACCES] Not authorized');
  });

  it('lists the method table in its help', async () => {
    const { code, stdout } = await runStor(['call', '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/privilege\.create\(privilege_create\)\s+PRIVILEGE_WRITE/);
    expect(stdout).toMatch(/auth\.login_with_api_key\(api_key\)\s+no login/);
  });
});
