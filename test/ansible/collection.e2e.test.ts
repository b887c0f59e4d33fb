/**
 * The Ansible collection `stor.truenas` (ansible/ansible_collections/stor/truenas, docs/ANSIBLE.md)
 * driven by the real `ansible-playbook` against three `stor serve` processes on loopback, one of them
 * an emulated 26.0, found through the collection's inventory of stor's profiles. The modules run on
 * the controller and call the built `stor` found on PATH.
 *
 * Needs `ansible-playbook` (Debian's ansible-core; `.ci/run` installs it); without it each test is
 * skipped and says why.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, type TestContext } from 'vitest';
import { CHEAP_HASHES, spawnStor, STOR_BIN } from '../helpers/bin.js';
import { storIn } from '../helpers/run-stor.js';
import { spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { tempDir } from '../helpers/temp-dir.js';

const COLLECTIONS = fileURLToPath(new URL('../../ansible', import.meta.url));
const ANSIBLE = spawnSync('ansible-playbook', ['--version'], { encoding: 'utf8' }).status === 0;
const NO_ANSIBLE = 'ansible-playbook is not on PATH (Debian: apt-get install ansible-core; .ci/run installs it)';

/**
 * Each test starts three servers and runs ansible-playbook up to four times, each run a stor
 * process per host and task: more than the e2e project's default allows on a loaded machine.
 */
const PLAYBOOKS = 600_000;

interface Controller {
  dir: string;
  env: Record<string, string>;
  servers: { nas1: ServeProcess; nas2: ServeProcess; nas3: ServeProcess };
}

/**
 * A controller: `stor` on PATH (the built one, under this test's Node), its own config, three
 * profiles tagged `prod`. With `session`, stor's session agent may run (its socket under this
 * controller's HOME); the caller stops it.
 */
async function controller(options: { session?: boolean } = {}): Promise<Controller> {
  const dir = tempDir('stor-ansible-');
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  symlinkSync(STOR_BIN, join(bin, 'stor'));
  const env: Record<string, string> = {
    PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH}`,
    HOME: dir,
    LANG: 'C.UTF-8',
    STOR_CONFIG_DIR: join(dir, 'config'),
    STOR_HOME: join(dir, 'home'),
    ...(options.session ? {} : { STOR_SESSION: 'off' }),
    ...CHEAP_HASHES,
    ANSIBLE_COLLECTIONS_PATH: COLLECTIONS,
    ANSIBLE_HOME: join(dir, 'ansible-home'),
    ANSIBLE_LOCAL_TEMP: join(dir, 'ansible-tmp'),
    ANSIBLE_NOCOLOR: '1',
    // Python's byte code stays out of the checkout's collection.
    PYTHONDONTWRITEBYTECODE: '1',
    ANSIBLE_RETRY_FILES_ENABLED: '0',
  };
  const [nas1, nas2, nas3] = await Promise.all([
    spawnServe(tempDir()),
    spawnServe(tempDir()),
    spawnServe(tempDir(), ['--emulate', 'truenas-26.0']),
  ]);
  const servers = { nas1: nas1!, nas2: nas2!, nas3: nas3! };
  // The profiles are the controller's setting up, not what the tests are about: made in-process
  // (storIn, the same `run()` the binary calls, the same config directory); the modules run the built binary.
  const setUp = storIn(env);
  for (const [name, server] of Object.entries(servers)) {
    // 26.0 logs in with SCRAM, which needs the key's user.
    await storIn({ ...env, STOR_USER: 'truenas_admin' })(
      ['login', '--url', server.baseUrl, '--profile', name, '--api-key-stdin'],
      0,
      readFileSync(server.adminKeyFile, 'utf8'),
    );
    await setUp(['profile', 'tag', name, 'prod']);
  }
  await setUp(['profile', 'tag', 'nas3', 'release-26']);
  writeFileSync(join(dir, 'inventory.stor.yml'), 'plugin: stor.truenas.profiles\n');
  return { dir, env, servers };
}

interface PlaybookRun {
  code: number | null;
  out: string;
  /** PLAY RECAP's counts per host. */
  recap: Record<string, { ok: number; changed: number; failed: number }>;
}

function playbook(c: Controller, file: string, args: string[] = []): Promise<PlaybookRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('ansible-playbook', ['-i', 'inventory.stor.yml', file, ...args], {
      cwd: c.dir,
      env: c.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const recap: PlaybookRun['recap'] = {};
      for (const m of out.matchAll(/^(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=\d+\s+failed=(\d+)/gm))
        recap[m[1]!] = { ok: Number(m[2]), changed: Number(m[3]), failed: Number(m[4]) };
      resolve({ code, out, recap });
    });
  });
}

/** The playbook; with `session`, each stor task runs through stor's session agent (docs/ANSIBLE.md). */
function site(options: { session?: boolean } = {}): string {
  const session = options.session ? '\n        session: true' : '';
  return `- hosts: prod
  gather_facts: false
  tasks:
    - name: facts
      stor.truenas.info:${session}
    - name: release
      ansible.builtin.debug:
        msg: "{{ inventory_hostname }} runs {{ stor_release }}"
    - name: no privilege locks its users out
      stor.truenas.privilege_check:${session}
    - name: desired state
      stor.truenas.state:${session}
        state:
          groups:
            - name: ops
          datasets:
            - name: tank/projects
              comments: "projects of {{ inventory_hostname }}"
`;
}

/** tank/projects on one appliance, as `stor dataset list` reads it in-process (null when absent). */
async function projects(c: Controller, profile: string): Promise<{ comments: string | null } | null> {
  const run = await storIn(c.env)(['--profile', profile, 'dataset', 'list', '--json']);
  const rows = JSON.parse(run.stdout) as { name: string; comments: string | null }[];
  return rows.find((d) => d.name === 'tank/projects') ?? null;
}

function needAnsible(ctx: TestContext): void {
  if (!ANSIBLE) ctx.skip(NO_ANSIBLE);
}

describe('the stor.truenas collection under ansible-playbook, three appliances (one 26.0) from the profiles inventory', () => {
  it(
    'check mode shows the per-field diff and changes nothing; then it applies; a second run changes nothing',
    async (ctx) => {
      needAnsible(ctx);
      // Four playbook runs of three stor tasks each: more logins than an appliance allows one
      // address in a minute (20 login calls, and a 26.0 SCRAM login is two: MW/utils/rate_limit/
      // cache.py:15-20, stable/26), which a quick machine makes in well under a minute. Through
      // the session agent each appliance sees one login, as docs/ANSIBLE.md advises.
      const c = await controller({ session: true });
      ctx.onTestFinished(async () => {
        await spawnStor(['session', 'stop'], { env: c.env });
      });
      const text = site({ session: true });
      writeFileSync(join(c.dir, 'site.yml'), text);

      const check = await playbook(c, 'site.yml', ['--check', '--diff']);
      expect(check.code, check.out).toBe(0);
      expect(check.recap).toEqual({
        nas1: { ok: 4, changed: 1, failed: 0 },
        nas2: { ok: 4, changed: 1, failed: 0 },
        nas3: { ok: 4, changed: 1, failed: 0 },
      });
      // Facts from each appliance, its own release among them.
      expect(check.out).toContain('"msg": "nas1 runs 25.10.1"');
      expect(check.out).toMatch(/"msg": "nas3 runs 26\.0/);
      // The per-field diff, per object.
      expect(check.out).toContain('+++ after: datasets tank/projects');
      expect(check.out).toContain('+    "comments": "projects of nas2",');
      expect(check.out).toContain('+++ after: groups ops');
      for (const nas of ['nas1', 'nas2', 'nas3']) expect(await projects(c, nas)).toBeNull();

      const apply = await playbook(c, 'site.yml', ['--diff']);
      expect(apply.code, apply.out).toBe(0);
      for (const nas of ['nas1', 'nas2', 'nas3']) {
        expect(apply.recap[nas]).toEqual({ ok: 4, changed: 1, failed: 0 });
        expect(await projects(c, nas)).toMatchObject({ comments: `projects of ${nas}` });
      }

      const reapply = await playbook(c, 'site.yml');
      expect(Object.values(reapply.recap), reapply.out).toEqual([
        { ok: 4, changed: 0, failed: 0 },
        { ok: 4, changed: 0, failed: 0 },
        { ok: 4, changed: 0, failed: 0 },
      ]);

      // An update is shown field by field: what the appliance has, then what the state wants.
      writeFileSync(join(c.dir, 'site.yml'), text.replace('projects of', 'work of'));
      const update = await playbook(c, 'site.yml', ['--check', '--diff', '--limit', 'nas1']);
      expect(update.out).toContain('-    "comments": "projects of nas1"\n+    "comments": "work of nas1"');
      expect(await projects(c, 'nas1')).toMatchObject({ comments: 'projects of nas1' });
    },
    PLAYBOOKS,
  );

  it(
    'a failure on one appliance fails that host only; the others are applied',
    async (ctx) => {
      needAnsible(ctx);
      const c = await controller();
      writeFileSync(join(c.dir, 'site.yml'), site());
      await c.servers.nas2.stop();

      const run = await playbook(c, 'site.yml', ['--timeout', '10']);
      expect(run.code).toBe(2);
      expect(run.recap.nas2).toEqual({ ok: 0, changed: 0, failed: 1 });
      expect(run.out).toMatch(/fatal: \[nas2\]: FAILED! => .*"UNREACHABLE: cannot reach ws:\/\/127\.0\.0\.1:\d+/);
      expect(run.recap.nas1).toEqual({ ok: 4, changed: 1, failed: 0 });
      expect(run.recap.nas3).toEqual({ ok: 4, changed: 1, failed: 0 });
      expect(await projects(c, 'nas3')).toMatchObject({ comments: 'projects of nas3' });
    },
    PLAYBOOKS,
  );

  it(
    "tags become groups, and a key given to a task never shows in ansible-playbook's output, even at -vvv",
    async (ctx) => {
      needAnsible(ctx);
      const c = await controller();
      const inventory = spawnSync('ansible-inventory', ['-i', 'inventory.stor.yml', '--list'], {
        cwd: c.dir,
        env: c.env,
        encoding: 'utf8',
      });
      expect(inventory.status, inventory.stderr).toBe(0);
      const list = JSON.parse(inventory.stdout) as {
        _meta: { hostvars: Record<string, Record<string, unknown>> };
        [group: string]: unknown;
      };
      expect((list.prod as { hosts: string[] }).hosts.sort()).toEqual(['nas1', 'nas2', 'nas3']);
      expect((list.release_26 as { hosts: string[] }).hosts).toEqual(['nas3']);
      expect(list._meta.hostvars.nas1).toMatchObject({
        stor_profile: 'nas1',
        stor_url: c.servers.nas1.baseUrl,
        ansible_connection: 'local',
      });

      const key = readFileSync(c.servers.nas1.adminKeyFile, 'utf8').trim();
      writeFileSync(
        join(c.dir, 'by-url.yml'),
        `- hosts: nas1
  gather_facts: false
  tasks:
    - stor.truenas.privilege_check:
        url: ${c.servers.nas1.baseUrl}
        api_key: ${key}
`,
      );
      const run = await playbook(c, 'by-url.yml', ['-vvv']);
      expect(run.code, run.out).toBe(0);
      expect(run.recap.nas1).toEqual({ ok: 1, changed: 0, failed: 0 });
      expect(run.out).not.toContain(key);
      expect(run.out).not.toContain(key.split('-')[1]!);
    },
    PLAYBOOKS,
  );
});
