import { lstatSync, mkdirSync, rmdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createUserWithKey, openTestAppliance, type TestAppliance } from '../../../helpers/appliance.js';
import { tempDir } from '../../../helpers/temp-dir.js';

const perm = (host: string) => lstatSync(host).mode & 0o7777;

/** Runs a job method as the administrator and waits for its result. */
async function runJob(t: TestAppliance, method: string, arg: unknown): Promise<unknown> {
  const id = await t.call<number>(t.admin, method, arg);
  return t.appliance.jobs.wait(t.admin, id);
}

/** Dataset tank/d with a nested tree, a child dataset tank/d/child and a symlink out of the pool. */
async function tree(t: TestAppliance) {
  const tank = join(t.stateDir, 'mnt', 'tank');
  await t.call(t.admin, 'pool.dataset.create', { name: 'tank/d' });
  mkdirSync(join(tank, 'd', 'a', 'b'), { recursive: true });
  writeFileSync(join(tank, 'd', 'top.txt'), 'top');
  writeFileSync(join(tank, 'd', 'a', 'b', 'deep.txt'), 'deep');
  await t.call(t.admin, 'pool.dataset.create', { name: 'tank/d/child' });
  writeFileSync(join(tank, 'd', 'child', 'in-child.txt'), 'child');
  const outside = join(tempDir(), 'outside.txt');
  writeFileSync(outside, 'outside', { mode: 0o644 });
  symlinkSync(outside, join(tank, 'd', 'link-out'));
  return { tank, outside };
}

describe('filesystem.setperm (MW/plugins/filesystem_/acl.py:212-305)', () => {
  it('recursive: every file and directory below gets the mode, child datasets only with traverse, a symlink out of the pool is not followed', async () => {
    const t = await openTestAppliance();
    const { tank, outside } = await tree(t);
    expect(
      await runJob(t, 'filesystem.setperm', { path: '/mnt/tank/d', mode: '750', options: { recursive: true } }),
    ).toBeNull();
    for (const p of ['d', 'd/top.txt', 'd/a', 'd/a/b', 'd/a/b/deep.txt'])
      expect([p, perm(join(tank, p))]).toEqual([p, 0o750]);
    expect(perm(join(tank, 'd', 'child'))).toBe(0o755);
    expect(perm(join(tank, 'd', 'child', 'in-child.txt'))).not.toBe(0o750);
    expect(perm(outside)).toBe(0o644);
    await runJob(t, 'filesystem.setperm', {
      path: '/mnt/tank/d',
      mode: '700',
      options: { recursive: true, traverse: true },
    });
    expect(perm(join(tank, 'd', 'child', 'in-child.txt'))).toBe(0o700);
    expect(perm(outside)).toBe(0o644);
  });

  it('not recursive: only the path itself; a symlink inside the pool is followed to its target, as os.chmod does', async () => {
    const t = await openTestAppliance();
    const { tank } = await tree(t);
    symlinkSync('top.txt', join(tank, 'd', 'link-in'));
    await runJob(t, 'filesystem.setperm', { path: '/mnt/tank/d/link-in', mode: '600' });
    expect(perm(join(tank, 'd', 'top.txt'))).toBe(0o600);
    expect(perm(join(tank, 'd', 'a'))).toBe(0o755);
    expect(statSync(join(tank, 'd', 'a', 'b', 'deep.txt')).mode & 0o777).not.toBe(0o600);
  });

  it('a path through a symlink that leaves the pool is refused and nothing outside changes', async () => {
    const t = await openTestAppliance();
    const { outside } = await tree(t);
    const err = await t.appliance.jobs
      .wait(t.admin, await t.call<number>(t.admin, 'filesystem.setperm', { path: '/mnt/tank/d/link-out', mode: '777' }))
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      errno: 18,
      reason: '[EXDEV] /mnt/tank/d/link-out: path passes through a symlink that leaves the pool',
    });
    expect(perm(outside)).toBe(0o644);
  });
});

describe('filesystem.chown (MW/plugins/filesystem_/acl.py:155-210)', () => {
  it('records the owner stat shows (the emulator is not root): by name, by id, -1 leaving one alone, recursively', async () => {
    const t = await openTestAppliance();
    await tree(t);
    const { gid } = await createUserWithKey(t, 'alice', { privilegeRoles: ['READONLY_ADMIN'] });
    const [alice] = await t.call<{ uid: number }[]>(t.admin, 'user.query', [['username', '=', 'alice']]);
    await runJob(t, 'filesystem.chown', {
      path: '/mnt/tank/d',
      user: 'alice',
      group: 'alice',
      options: { recursive: true },
    });
    for (const p of ['/mnt/tank/d', '/mnt/tank/d/top.txt', '/mnt/tank/d/a/b/deep.txt']) {
      expect(await t.call(t.admin, 'filesystem.stat', p)).toMatchObject({
        uid: alice!.uid,
        gid,
        user: 'alice',
        group: 'alice',
      });
    }
    expect(await t.call(t.admin, 'filesystem.stat', '/mnt/tank/d/child/in-child.txt')).toMatchObject({
      uid: 0,
      gid: 0,
    });
    await runJob(t, 'filesystem.chown', { path: '/mnt/tank/d/top.txt', uid: 0, gid: -1 });
    expect(await t.call(t.admin, 'filesystem.stat', '/mnt/tank/d/top.txt')).toMatchObject({
      uid: 0,
      gid,
      user: 'root',
      group: 'alice',
    });
  });

  it('a recursive change of many entries reports how far it got while it walks', async () => {
    const t = await openTestAppliance();
    await t.call(t.admin, 'filesystem.mkdir', { path: '/mnt/tank/many' });
    for (let i = 0; i < 600; i++) writeFileSync(join(t.stateDir, 'mnt', 'tank', 'many', `f${i}`), '');
    const descriptions: string[] = [];
    t.admin.notify = (_method, params) => {
      const d = (params as { fields?: { progress?: { description?: string } } }).fields?.progress?.description;
      if (d && descriptions.at(-1) !== d) descriptions.push(d);
    };
    t.appliance.events.subscribe(t.admin, 'test', 'core.get_jobs');
    await runJob(t, 'filesystem.chown', { path: '/mnt/tank/many', uid: 0, options: { recursive: true } });
    expect(descriptions).toEqual([
      'Preparing to change owner.',
      'Recursively changing owner of /mnt/tank/many.',
      'Recursively changing owner of /mnt/tank/many: 256 entries done.',
      'Recursively changing owner of /mnt/tank/many: 512 entries done.',
      'Finished changing owner.',
    ]);
  });
});

describe('filesystem.mkdir', () => {
  it("the new directory is root's even where a file of another owner was recorded before", async () => {
    const t = await openTestAppliance();
    await t.call(t.admin, 'filesystem.mkdir', { path: '/mnt/tank/d' });
    await runJob(t, 'filesystem.chown', { path: '/mnt/tank/d', uid: 1000 });
    expect(await t.call(t.admin, 'filesystem.stat', '/mnt/tank/d')).toMatchObject({ uid: 1000 });
    rmdirSync(join(t.stateDir, 'mnt', 'tank', 'd'));
    const entry = await t.call<{ uid: number }>(t.admin, 'filesystem.mkdir', { path: '/mnt/tank/d' });
    expect(entry.uid).toBe(0);
    expect(await t.call(t.admin, 'filesystem.stat', '/mnt/tank/d')).toMatchObject({ uid: 0, gid: 0 });
  });

  it('a parent that is a symlink out of the pool is refused; nothing is made outside', async () => {
    const t = await openTestAppliance();
    const outside = tempDir();
    symlinkSync(outside, join(t.stateDir, 'mnt', 'tank', 'out'));
    const err = await t.callError(t.admin, 'filesystem.mkdir', { path: '/mnt/tank/out/x' });
    expect(err.errno).toBe(18);
    expect(() => lstatSync(join(outside, 'x'))).toThrow();
  });
});
