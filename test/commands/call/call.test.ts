import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../src/core/appliance/settings.js';
import { parseCallArgument } from '../../../src/commands/call/call.js';
import { createUserWithKey, openTestAppliance } from '../../helpers/appliance.js';
import { runStor } from '../../helpers/run-stor.js';
import { startTestServer } from '../../helpers/server.js';
import { tempDir } from '../../helpers/temp-dir.js';

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
    const { stdout } = await runStor(['call', 'privilege.query', '[["name","^","Read"]]', '{"select":["id"]}'], {
      env,
    });
    expect(JSON.parse(stdout)).toEqual([{ id: 2 }]);
  });

  it('reads the parameter `-` as JSON from standard input, so a secret stays out of argv; one at most, JSON only, one target only', async () => {
    const env = { STOR_HOME: tempDir() };
    const read = await runStor(['call', 'privilege.query', '-', '{"select":["id"]}'], {
      env,
      stdin: '[["name","^","Read"]]\n',
    });
    expect(read.stderr).toBe('');
    expect(JSON.parse(read.stdout)).toEqual([{ id: 2 }]);
    // A string '-' is still passed, written as JSON.
    const dash = await runStor(['call', 'privilege.query', '[["name","=","-"]]'], { env });
    expect(JSON.parse(dash.stdout)).toEqual([]);

    const two = await runStor(['call', 'privilege.query', '-', '-'], { env, stdin: '[]' });
    expect(two.code).toBe(2);
    expect(two.stderr).toContain('only one parameter can be read from standard input');
    const notJson = await runStor(['call', 'privilege.query', '-'], { env, stdin: 'secret-not-json' });
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('reads JSON from standard input, and it holds none');
    // What standard input held is not echoed back.
    expect(notJson.stderr).not.toContain('secret-not-json');
    // More than one parameter may hold is refused as too much for it, and nothing is sent.
    const big = await runStor(['call', 'privilege.query', '-'], { env, stdin: `["${'x'.repeat(1024 * 1024)}"]` });
    expect(big.code).not.toBe(0);
    expect(big.stderr).toContain('too much for the one parameter `stor call -` reads; nothing was read');
    expect(big.stderr).not.toContain('password');
    const fleet = await runStor(['--targets', 'a,b', 'call', 'privilege.query', '-'], { env, stdin: '[]' });
    expect(fleet.code).toBe(2);
    expect(fleet.stderr).toContain('reads standard input, which can go to one target only');
  });

  it('prints validation errors one per line and exits 1', async () => {
    const { code, stdout, stderr } = await runStor(['call', 'privilege.get_instance', 'one'], {
      env: { STOR_HOME: tempDir() },
    });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('* id: Input should be a valid integer');
  });

  it('exits 1 for an unknown method and 5 for a method the identity may not call', async () => {
    const home = tempDir();
    const unknown = await runStor(['call', 'nosuch.method'], { env: { STOR_HOME: home } });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      'stor: "nosuch.method": no such method on this target (the appliance says: Method does not exist)\nhint: `stor call --help` lists the methods this target has\n',
    );
    const json = await runStor(['--json', 'call', 'nosuch.method'], { env: { STOR_HOME: home } });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr).error).toMatchObject({
      code: 'METHOD_NOT_FOUND',
      kind: 'failed',
      message: expect.stringContaining('"nosuch.method"'),
    });

    const t = await openTestAppliance(undefined, home);
    const { key } = await createUserWithKey(t, 'ro', { privilegeRoles: ['READONLY_ADMIN'] });
    t.appliance.close();
    const denied = await runStor(
      ['call', 'user.create', '{"username":"x","full_name":"x","group_create":true,"password":"p"}'],
      {
        env: { STOR_HOME: home, STOR_API_KEY: key },
      },
    );
    expect(denied.code).toBe(5);
    expect(denied.stderr).toContain('[EACCES] Not authorized');
  });

  it("judges a role denial by the target release's contract: 26.0's api_key.convert_raw_key needs API_KEY_READ (MW/api/v26_0_0/api_key.py:101-119, plugins/api_key.py:407)", async () => {
    const home = tempDir();
    const t = await openTestAppliance(EMULATIONS['truenas-26.0'], home);
    const { key } = await createUserWithKey(t, 'ds', { privilegeRoles: ['DATASET_READ'] });
    t.appliance.close();
    const denied = await runStor(['call', 'api_key.convert_raw_key', key], {
      env: { STOR_HOME: home, STOR_API_KEY: key, STOR_USER: 'ds' },
    });
    expect(denied.code).toBe(5);
    expect(denied.stderr).toContain('lacks the role this call needs: API_KEY_READ (or FULL_ADMIN)');
  });

  it('lists the methods of the embedded appliance in its help, as its core.get_methods answers', async () => {
    const home = tempDir();
    const { code, stdout } = await runStor(['call', '--help'], { env: { STOR_HOME: home } });
    expect(code).toBe(0);
    expect(stdout).toContain(`Methods of the embedded appliance in ${home} (core.get_methods):`);
    // Roles as roles_for_method lists them: the method's role and every role that includes it (MW/role.py:302-318).
    // Each method on its line, who may call it and its summary below.
    expect(stdout).toMatch(/privilege\.create\(privilege_create\)\n\s+access: PRIVILEGE_WRITE\n\s+Create a privilege/);
    expect(stdout).toMatch(
      /privilege\.query\(filters, options\)\n\s+access: PRIVILEGE_READ \| READONLY_ADMIN \| SHARING_ADMIN\n/,
    );
    expect(stdout).toMatch(/auth\.login_with_api_key\(api_key\)\n\s+access: no login/);
    expect(stdout).toMatch(/core\.job_abort\(id\)\n\s+access: any login\n\s+Abort a waiting or running job$/m);
  });

  it('lists the methods of a remote target (stor serve) and only those its identity may call', async () => {
    const server = await startTestServer(EMULATIONS['truenas-25.10.1']);
    const { key } = await createUserWithKey(server.testAppliance, 'ro', { privilegeRoles: ['READONLY_ADMIN'] });
    const env = { STOR_HOME: tempDir(), STOR_URL: server.rpcUrl.replace(/\/api\/current$/, ''), STOR_API_KEY: key };
    const { code, stdout } = await runStor(['call', '--help'], { env });
    expect(code).toBe(0);
    expect(stdout).toContain(`Methods of ${env.STOR_URL} (core.get_methods):`);
    expect(stdout).toMatch(/privilege\.query\(filters, options\)/);
    // core.get_methods leaves out what the caller may not call (MW/service/core_service.py:336-343).
    expect(stdout).not.toMatch(/privilege\.create\(/);
  });

  it('shows its help without the list, and says why, when the target cannot be reached', async () => {
    const env = {
      STOR_HOME: tempDir(),
      STOR_URL: `ws://127.0.0.1:${await closedPort()}`,
      STOR_API_KEY: `1-${'K'.repeat(64)}`,
    };
    const { code, stdout, stderr } = await runStor(['call', '--help'], { env });
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: stor call');
    expect(stdout).not.toContain('core.get_methods');
    expect(stderr).toMatch(/^stor: cannot list the target's methods: /);
  });
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  await new Promise((r) => server.close(r));
  return port;
}

describe('stor call of a job method waits for the job, as midclt call -j', () => {
  const setperm = (path: string) => ['call', 'filesystem.setperm', JSON.stringify({ path, mode: '750' })];

  it('prints the job result and exits 0 when it succeeds; exits non-zero with the job error when it fails', async () => {
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
    expect((await runStor(['mkdir', '/mnt/tank/d'], { env })).code).toBe(0);
    const ok = await runStor([...setperm('/mnt/tank/d'), '--json'], { env });
    expect(ok.code, ok.stderr).toBe(0);
    // filesystem.setperm's job answers None (MW/plugins/filesystem_/acl.py setperm), not a job id.
    expect(JSON.parse(ok.stdout)).toBeNull();
    expect(JSON.parse((await runStor(['stat', '/mnt/tank/d', '--json'], { env })).stdout).mode).toMatch(/750$/);

    const failed = await runStor([...setperm('/mnt/tank/nope'), '--json'], { env });
    expect(failed.code).not.toBe(0);
    expect(failed.stdout).toBe('');
    expect(JSON.parse(failed.stderr).error.message).toContain('/mnt/tank/nope');
  });

  it('--no-wait prints the job id as answered, exit 0, whatever the job then does', async () => {
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
    const r = await runStor([...setperm('/mnt/tank/nope'), '--no-wait', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(typeof JSON.parse(r.stdout)).toBe('number');
  });
});
