/**
 * `stor share nfs create|smb create|update --dry-run` predicts, from reads, the refusal the call
 * itself gets: on the embedded target and on stand-ins of 25.10.1 and 26.0, each bad input's dry
 * run answers as the call does (same exit, same words), and nothing is made. A pool's root is
 * shared on every release (neither MW/plugins/nfs.py nor MW/plugins/smb.py refuses it); /mnt is not
 * (MW/validators.py:189-193).
 */
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../src/core/appliance/settings.js';
import { openTestAppliance } from '../../helpers/appliance.js';
import { clientEnv } from '../../helpers/client-env.js';
import { runStor, type RunResult } from '../../helpers/run-stor.js';
import { startTestServer } from '../../helpers/server.js';

const outcome = (r: RunResult) => ({ code: r.code, stderr: r.stderr });

/**
 * A client of `release` (embedded, or a server of that emulation) with an SMB share `docs` and an
 * NFS share of /mnt/tank/exports, a link that stays in the pool (/mnt/tank/in) and one that leaves
 * it (/mnt/tank/out). Five logins: a server allows 20 a minute from one address.
 */
async function target(release: Release) {
  const env = clientEnv();
  let mntDir: string;
  if (release === 'embedded') {
    const t = await openTestAppliance(undefined, env.STOR_HOME);
    mntDir = t.appliance.store.mntDir;
    t.appliance.close();
  } else {
    // Keys log in plainly: 26.0's SCRAM takes two auth.login_ex calls of the 20 a minute.
    const server = await startTestServer({ ...EMULATIONS[release], keyLogin: 'plain' });
    mntDir = server.appliance.store.mntDir;
    Object.assign(env, { STOR_URL: `ws://127.0.0.1:${server.port}`, STOR_API_KEY: server.adminKey });
  }
  const run = (args: string[]) => runStor(args, { env });
  expect((await run(['mkdir', '-p', '/mnt/tank/exports', '/mnt/tank/docs'])).code).toBe(0);
  expect((await run(['share', 'smb', 'create', 'docs', '/mnt/tank/docs'])).code).toBe(0);
  expect((await run(['share', 'nfs', 'create', '/mnt/tank/exports'])).code).toBe(0);
  symlinkSync(join(mntDir, 'tank', 'docs'), join(mntDir, 'tank', 'in'));
  symlinkSync('/etc', join(mntDir, 'tank', 'out'));
  const list = async () => (await run(['share', 'list', '--json'])).stdout;
  return { run, list };
}

type Release = 'embedded' | 'truenas-25.10.1' | 'truenas-26.0';

/** Bad input, in groups of at most seven (two logins each): the path's place, links, a missing path, the parsed fields, names, presets. */
const BAD: Record<string, string[][]> = {
  'paths outside the pools and links (NFS)': [
    ['nfs', 'create', '/tmp/x'],
    ['nfs', 'create', '/mnt'],
    ['nfs', 'create', '/mnt/tank/in'],
    ['nfs', 'create', '/mnt/tank/out'],
    ['nfs', 'create', '/mnt/tank/nope'],
    ['update', 'nfs:1', '--path', '/mnt/tank/in'],
    // The emulator refuses `..` in any path it serves (docs/RELEASES.md).
    ['nfs', 'create', '/mnt/tank/docs/..'],
  ],
  'paths outside the pools and links (SMB)': [
    ['smb', 'create', 'm', '/mnt'],
    ['smb', 'create', 'm', '/tmp/x'],
    ['smb', 'create', 'm', '/mnt/tank/in'],
    ['smb', 'create', 'm', '/mnt/tank/out'],
    ['smb', 'create', 'm', '/mnt/tank/nope'],
    ['update', 'docs', '--path', '/mnt/tank/out'],
    ['smb', 'create', 'm', '/mnt/tank/docs/..'],
  ],
  'networks, hosts, names and presets': [
    ['nfs', 'create', '/mnt/tank/docs', '--networks', '10.0.0.0/33'],
    ['nfs', 'create', '/mnt/tank/docs', '--hosts', 'a host'],
    ['smb', 'create', 'x'.repeat(300), '/mnt/tank/docs'],
    ['smb', 'create', 'DOCS', '/mnt/tank/exports'],
    ['smb', 'create', 'DOCS', '/mnt/tank/in'],
    // Time Machine needs Apple's SMB extensions, off in a fresh smb.config (MW/plugins/smb.py:1336-1348).
    ['smb', 'create', 'tm', '/mnt/tank/docs', '--purpose', 'TIMEMACHINE_SHARE'],
  ],
};

/** Each `stor share …` with --dry-run and without: the same refusal (exit 1, same words); no share changed. */
async function refusedAlike(
  run: (args: string[]) => Promise<RunResult>,
  list: () => Promise<string>,
  cases: readonly string[][],
): Promise<void> {
  const before = await list();
  for (const bad of cases) {
    const dry = await run(['share', ...bad, '--dry-run']);
    const real = await run(['share', ...bad]);
    expect(outcome(dry), bad.join(' ')).toEqual(outcome(real));
    expect(real.code, bad.join(' ')).toBe(1);
  }
  expect(await list()).toBe(before);
}

describe.each(['embedded', 'truenas-25.10.1', 'truenas-26.0'] as const)('share --dry-run on %s', (release) => {
  it.each(Object.entries(BAD))('answers %s as the call does, and nothing is made', async (_, cases) => {
    const { run, list } = await target(release);
    await refusedAlike(run, list, cases);
  });

  it('answers as the call does for shares whose dataset was deleted under them (disabled ones stay: MW/plugins/pool_/dataset.py:828-846)', async () => {
    const { run, list } = await target(release);
    for (const args of [
      ['dataset', 'create', 'tank/gone'],
      ['share', 'smb', 'create', 'gone', '/mnt/tank/gone', '--disabled'],
      ['share', 'nfs', 'create', '/mnt/tank/gone', '--disabled'],
      ['dataset', 'delete', 'tank/gone', '--yes'],
    ])
      expect((await run(args)).code, args.join(' ')).toBe(0);
    await refusedAlike(run, list, [
      ['enable', 'gone'],
      ['update', 'gone', '--comment', 'x'],
      ['enable', 'nfs:2'],
      ['update', 'nfs:2', '--ro'],
    ]);
  });

  it("shares a pool's root over NFS and SMB, the dry run foreseeing it", async () => {
    const { run } = await target(release);
    for (const ok of [
      ['nfs', 'create', '/mnt/tank', '--networks', '10.9.0.0/16'],
      ['smb', 'create', 'root', '/mnt/tank'],
    ]) {
      const dry = await run(['share', ...ok, '--dry-run']);
      expect(dry.code, dry.stderr).toBe(0);
      const real = await run(['share', ...ok, '--json']);
      expect(real.code, real.stderr).toBe(0);
      expect(JSON.parse(real.stdout)).toMatchObject({ share: { path: '/mnt/tank' } });
    }
  });
});
