/**
 * Every release side by side: `stor serve --emulate truenas-25.10.1|truenas-25.10.7|truenas-26.0`
 * answer as that release, and the client judges each target by its own release and catalogue.
 * The servers are the built binary; the fan-out over two of them runs the built binary too, while
 * the commands that set their users up, or read one target's answer, run in-process (storIn, the
 * same `run()` the binary calls): what they check is what the commands do, not the process.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { sessionEnv } from '../../helpers/session.js';
import { makeUserWithPrivilege } from '../../helpers/runbook.js';
import { storIn } from '../../helpers/run-stor.js';
import { spawnServe, type ServeProcess } from '../../helpers/serve-process.js';
import { startStandinAppliance } from '../../helpers/standin-appliance.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { SessionPool } from '../../../src/core/session/pool.js';

const servers: ServeProcess[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

async function serve(emulate: string): Promise<ServeProcess> {
  const server = await spawnServe(tempDir(), ['--emulate', emulate]);
  servers.push(server);
  return server;
}

const adminKey = (server: ServeProcess) => readFileSync(server.adminKeyFile, 'utf8').trim();
/** The administrator's commands on one server, in-process; with `sessions`, as the session agent runs them (one login). */
const remote = (server: ServeProcess, sessions?: SessionPool) =>
  storIn(
    {
      ...clientEnv(),
      STOR_URL: server.baseUrl,
      STOR_API_KEY: adminKey(server),
      STOR_USER: 'truenas_admin',
    },
    sessions,
  );

interface Outcome {
  target: string;
  exit_code: number;
  release?: string | null;
  data?: {
    ok: boolean;
    catalogue: string;
    privileges: { name: string; locks_out: boolean; findings: { role: string; kind: string; locks_out: boolean }[] }[];
  };
}

describe('releases side by side (the built binary, two stor serve)', () => {
  it('--targets nas1,nas2 privilege check: PRIVILEGE_WRITE locks out on 25.10.1 only, SYSTEM_PRODUCT_WRITE on both; each section names its release', async () => {
    const [nas1, nas2] = await Promise.all([serve('truenas-25.10.1'), serve('truenas-26.0')]);
    // 26 counts each SCRAM step against auth.login_ex's 20 calls a minute per address (stable/26
    // MW/main.py:1016-1043): two per login, so this test's dozen commands go through the session
    // agent, or in-process through a pool as the agent holds one, each logging in once per server.
    const { env: session } = sessionEnv();
    const pool = new SessionPool();
    onTestFinished(() => pool.closeAll());
    // The same privilege on both: PRIVILEGE_WRITE includes itself in 25.10.1 (MW/role.py:62), not
    // in 26.0 (stable/26 MW/role.py:64 includes PRIVILEGE_READ).
    for (const server of [nas1, nas2])
      await makeUserWithPrivilege(remote(server, pool), 'pat', 'privileged', ['PRIVILEGE_WRITE']);
    // 26 logs keys in with SCRAM, which names the key's user (truenas_api_client auth_api_key.py, stable/26): the profile keeps it.
    const env = { ...clientEnv(), ...session, STOR_USER: 'truenas_admin' };
    for (const [name, server] of [
      ['nas1', nas1],
      ['nas2', nas2],
    ] as const) {
      const login = await spawnStor(['login', '--url', server.baseUrl, '--api-key-stdin', '--profile', name], {
        env,
        stdin: adminKey(server),
      });
      expect(login.code, login.stderr).toBe(0);
    }

    const json = await spawnStor(['--targets', 'nas1,nas2', 'privilege', 'check', '--json'], { env });
    expect(json.code, json.stderr).toBe(6);
    const [one, two] = JSON.parse(json.stdout) as Outcome[];
    expect([one!.target, one!.release, one!.exit_code, one!.data!.ok]).toEqual(['nas1', '25.10.1', 6, false]);
    expect(one!.data!.privileges.find((p) => p.name === 'privileged')).toMatchObject({
      locks_out: true,
      findings: [{ kind: 'self-including', role: 'PRIVILEGE_WRITE', locks_out: true }],
    });
    expect([two!.target, two!.release, two!.exit_code, two!.data!.ok]).toEqual(['nas2', '26.0.0-RC.1', 0, true]);
    expect(two!.data!.privileges.some((p) => p.locks_out)).toBe(false);

    // Piped, the findings merge into one table led by the target (scripts read it); each target's
    // verdict on stderr names the release it was judged as.
    const human = await spawnStor(['--targets', 'nas1,nas2', 'privilege', 'check'], { env });
    expect(human.code).toBe(6);
    expect(human.stdout).toMatch(/^nas1\t\d+\tprivileged\tLOCKOUT\t.*PRIVILEGE_WRITE includes itself/m);
    expect(human.stdout).not.toMatch(/^nas2\t/m);
    expect(human.stderr).toContain('nas1: judged as stor emulator of TrueNAS 25.10.1,');
    expect(human.stderr).toContain('nas2: judged as stor emulator of TrueNAS 26.0.0-RC.1,');
    // A verb whose views do not merge gets a section per target, headed by the target and its release.
    const who = await spawnStor(['--targets', 'nas1,nas2', 'whoami'], { env });
    expect(who.code, who.stderr).toBe(0);
    expect(who.stdout).toContain('== nas1 (TrueNAS 25.10.1, stor emulator) ==\n');
    expect(who.stdout).toContain('== nas2 (TrueNAS 26.0.0-RC.1, stor emulator) ==\n');

    // SYSTEM_PRODUCT_WRITE includes itself on every release (MW/role.py:231; stable/26 MW/role.py:248).
    for (const server of [nas1, nas2])
      await remote(server, pool)(['privilege', 'update', 'privileged', '--roles', 'SYSTEM_PRODUCT_WRITE', '--force']);
    const both = await spawnStor(['--targets', 'nas1,nas2', 'privilege', 'check', '--json'], { env });
    expect(both.code, both.stderr).toBe(6);
    for (const outcome of JSON.parse(both.stdout) as Outcome[]) {
      expect(outcome.exit_code).toBe(6);
      expect(outcome.data!.privileges.find((p) => p.name === 'privileged')).toMatchObject({
        locks_out: true,
        findings: [{ role: 'SYSTEM_PRODUCT_WRITE', locks_out: true }],
      });
    }
  });

  it('/api/versions lists what each build lists (no login); a path it does not serve is 404; whoami names the release', async () => {
    // MW/main.py:168-184 and :1300-1304: the MW/api/v* directories, sorted, v24.10 left out
    // (test/core/releases/releases.test.ts holds every release's list, 25.10.6's too, against its ref).
    const expected: Record<string, { versions: string[]; version: string; roles: number }> = {
      'truenas-25.10.1': {
        versions: ['v25.04.0', 'v25.04.1', 'v25.04.2', 'v25.10.0', 'v25.10.1'],
        version: '25.10.1',
        roles: 141,
      },
      'truenas-25.10.7': {
        versions: [
          'v25.04.0',
          'v25.04.1',
          'v25.04.2',
          'v25.10.0',
          'v25.10.1',
          'v25.10.2',
          'v25.10.3',
          'v25.10.4',
          'v25.10.5',
        ],
        version: '25.10.7',
        roles: 141,
      },
      'truenas-26.0': {
        versions: [
          'v25.04.0',
          'v25.04.1',
          'v25.04.2',
          'v25.10.0',
          'v25.10.1',
          'v25.10.2',
          'v25.10.3',
          'v25.10.4',
          'v25.10.5',
          'v26.0.0',
        ],
        version: '26.0.0-RC.1',
        roles: 146,
      },
    };
    for (const [emulate, want] of Object.entries(expected)) {
      const server = await serve(emulate);
      const versions = await fetch(`${server.url}/api/versions`);
      expect(versions.status).toBe(200);
      // json.dumps' separators.
      expect(await versions.text()).toBe(`[${want.versions.map((v) => `"${v}"`).join(', ')}]`);
      // A listed version (and v24.10, routed though not listed, MW/main.py:277-278) wants a WebSocket: 400, not 404.
      for (const v of [...want.versions, 'v24.10']) expect((await fetch(`${server.url}/api/${v}`)).status, v).toBe(400);
      for (const v of ['v25.10.6', 'v26.0.0', 'v27.0.0'].filter((x) => !want.versions.includes(x))) {
        expect((await fetch(`${server.url}/api/${v}`)).status, `${emulate} /api/${v}`).toBe(404);
      }

      const run = remote(server);
      const me = JSON.parse((await run(['whoami', '--json'])).stdout) as {
        release: string;
        emulator: boolean;
        role_count: number;
      };
      expect(me).toMatchObject({ release: want.version, emulator: true, role_count: want.roles });
      expect((await run(['whoami'])).stdout).toContain(`release\tTrueNAS ${want.version}, stor emulator\n`);
      expect(JSON.parse((await run(['call', 'system.version'])).stdout)).toBe(`TrueNAS-${want.version}`);
      expect(JSON.parse((await run(['call', 'stor.emulation'])).stdout)).toMatchObject({
        emulate,
        release: want.version,
      });
      await server.stop();
    }
  });

  it('the release is stored with the state: the embedded target of a `--emulate truenas-26.0` state answers as 26.0', async () => {
    const state = tempDir();
    await (await spawnServe(state, ['--emulate', 'truenas-26.0'])).stop();
    const me = JSON.parse((await storIn({ STOR_HOME: state })(['whoami', '--json'])).stdout) as {
      release: string;
      role_count: number;
    };
    expect(me).toMatchObject({ release: '26.0.0-RC.1', role_count: 146 });
  });

  it("a real appliance that will not list its roles is judged by stor's copy of its release's catalogue", async () => {
    // Privilege entries as 25.10.1 shapes them; privilege.roles refused, so the client falls back.
    const entry = {
      id: 5,
      builtin_name: null,
      name: 'selfish',
      local_groups: [],
      ds_groups: [],
      roles: ['PRIVILEGE_WRITE'],
      web_shell: false,
    };
    const judged = async (version: string) => {
      const nas = await startStandinAppliance({
        'auth.login_with_api_key': { result: true },
        'system.version_short': { result: version },
        'privilege.roles': {
          error: {
            code: 13,
            message: 'Not authorized',
            data: { error: 13, errname: 'EACCES', reason: 'Not authorized' },
          },
        },
        'privilege.query': { result: [entry] },
      });
      const r = await storIn({ ...clientEnv(), STOR_URL: nas.baseUrl, STOR_API_KEY: `7-${'k'.repeat(64)}` })(
        ['privilege', 'check', '--json'],
        version.startsWith('25.') ? 6 : 0,
      );
      return { code: r.code, report: JSON.parse(r.stdout) as { catalogue: string; model: { release: string } } };
    };
    // PRIVILEGE_WRITE includes itself in 25.10.7 (release/25.10.7 MW/role.py:62), not in 26.0 (stable/26 MW/role.py:64).
    expect(await judged('25.10.7')).toMatchObject({
      code: 6,
      report: { catalogue: 'built-in 25.10.7', model: { release: '25.10.7' } },
    });
    expect(await judged('26.0.0')).toMatchObject({
      code: 0,
      report: { catalogue: 'built-in 26.0', model: { release: '26.0.0' } },
    });
  });
});
