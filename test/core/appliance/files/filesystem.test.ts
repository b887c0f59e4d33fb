import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { JobEntry } from '../../../../src/core/appliance/jobs/jobs.js';
import type { Session } from '../../../../src/core/appliance/session/session.js';
import { authorizeUpload } from '../../../../src/core/appliance/jobs/upload.js';
import { createUserWithKey, openTestAppliance, type TestAppliance } from '../../../helpers/appliance.js';
import { tempDir } from '../../../helpers/temp-dir.js';

interface StatResult {
  realpath: string;
  type: string;
  size: number;
  allocation_size: number;
  mode: number;
  uid: number;
  gid: number;
  user: string | null;
  group: string | null;
  is_mountpoint: boolean;
  atime: number;
  mtime: number;
  ctime: number;
  btime: number;
  inode: number;
  nlink: number;
}

interface Entry {
  name: string;
  path: string;
  realpath: string;
  type: string;
  size: number;
  mode: number;
  uid: number;
  gid: number;
  is_mountpoint: boolean;
}

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;

/**
 * The appliance's own upload path (what POST /_upload/ and the embedded transport use): the gate,
 * then a `filesystem.put` job fed from `bytes`, committed at once. Returns the finished job.
 */
async function put(
  t: TestAppliance,
  session: Session,
  path: unknown,
  bytes: Buffer | string,
  options: Record<string, unknown> = {},
): Promise<JobEntry> {
  const start = authorizeUpload(t.appliance, session, { method: 'filesystem.put', params: [path, options] });
  const { jobId, done } = start(Readable.from([Buffer.from(bytes)]), Promise.resolve());
  await done.catch(() => undefined);
  return t.call<JobEntry>(t.admin, 'core.get_jobs', [['id', '=', jobId]], { get: true });
}

/** Every file and directory below `dir`, relative, sorted. */
function tree(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).map(String).sort();
}

describe('filesystem.stat and filesystem.listdir', () => {
  it('reports a file written by an upload: type, size, full mode and the uploader as owner', async () => {
    const t = await openTestAppliance();
    const job = await put(t, t.admin, '/mnt/tank/docs/a.txt', 'hello, world\n', { mode: 420 });
    expect(job.state).toBe('SUCCESS');
    expect(job.method).toBe('filesystem.put');

    const st = await t.call<StatResult>(t.admin, 'filesystem.stat', '/mnt/tank/docs/a.txt');
    expect(st).toMatchObject({
      realpath: '/mnt/tank/docs/a.txt',
      type: 'FILE',
      size: 13,
      mode: S_IFREG | 0o644, // 33188
      uid: 950,
      gid: 950,
      user: 'truenas_admin',
      group: 'truenas_admin',
      is_mountpoint: false,
    });
    expect(st.mode).toBe(33188);
    for (const k of ['atime', 'mtime', 'ctime', 'btime'] as const) expect(typeof st[k]).toBe('number');
    expect(st.nlink).toBe(1);
    // The host file really has these bits.
    expect(statSync(join(t.stateDir, 'mnt/tank/docs/a.txt')).mode & 0o7777).toBe(0o644);
  });

  it('reports a directory nobody uploaded as root-owned (0/0) with the directory type bits', async () => {
    const t = await openTestAppliance();
    await put(t, t.admin, '/mnt/tank/made/by/put.txt', 'x');
    // `made` and `made/by` were created by the upload (makedirs), but only the file has an owner.
    for (const path of ['/mnt/tank', '/mnt/tank/made', '/mnt/tank/made/by']) {
      const st = await t.call<StatResult>(t.admin, 'filesystem.stat', path);
      expect(st.type).toBe('DIRECTORY');
      expect(st.mode & S_IFMT).toBe(S_IFDIR);
      expect(st.uid).toBe(0);
      expect(st.gid).toBe(0);
      expect(st.user).toBe('root');
      expect(st.is_mountpoint).toBe(path === '/mnt/tank');
    }
  });

  it("records a non-admin uploader's uid and primary gid (upload gate `role`)", async () => {
    const t = await openTestAppliance({ uploadGate: 'role' });
    const { key, gid } = await createUserWithKey(t, 'alice', {
      group: 'writers',
      privilegeRoles: ['FILESYSTEM_DATA_WRITE', 'FILESYSTEM_ATTRS_READ'],
    });
    const [alice] = await t.call<{ uid: number }[]>(t.admin, 'user.query', [['username', '=', 'alice']]);
    const { session } = await t.login(key);
    const job = await put(t, session, '/mnt/tank/alice.txt', 'mine');
    expect(job.state).toBe('SUCCESS');
    expect(job.credentials?.data.username).toBe('alice');
    const st = await t.call<StatResult>(session, 'filesystem.stat', '/mnt/tank/alice.txt');
    expect(st.uid).toBe(alice!.uid);
    expect(st.uid).not.toBe(950);
    expect(st.gid).toBe(gid);
    expect(st.user).toBe('alice');
    expect(st.group).toBe('writers');
  });

  it('lists entries with filters and options', async () => {
    const t = await openTestAppliance();
    await put(t, t.admin, '/mnt/tank/d/b.bin', Buffer.alloc(100, 1), { mode: 0o600 });
    await put(t, t.admin, '/mnt/tank/d/a.txt', 'abc', { mode: 420 });
    mkdirSync(join(t.stateDir, 'mnt/tank/d/sub'));

    const all = await t.call<Entry[]>(t.admin, 'filesystem.listdir', '/mnt/tank/d');
    expect(all.map((e) => e.name)).toEqual(['a.txt', 'b.bin', 'sub']);
    expect(all[0]).toMatchObject({
      name: 'a.txt',
      path: '/mnt/tank/d/a.txt',
      realpath: '/mnt/tank/d/a.txt',
      type: 'FILE',
      size: 3,
      mode: S_IFREG | 0o644,
      uid: 950,
      gid: 950,
    });
    expect(all[1]).toMatchObject({ name: 'b.bin', type: 'FILE', size: 100, mode: S_IFREG | 0o600 });
    expect(all[2]).toMatchObject({ name: 'sub', type: 'DIRECTORY', uid: 0, gid: 0, is_mountpoint: false });
    expect(all[2]!.mode & S_IFMT).toBe(S_IFDIR);
    // listdir entries have no timestamps and no user/group names (FilesystemDirEntry, MW/api/v25_10_1/filesystem.py:149).
    expect(all[0]).not.toHaveProperty('mtime');
    expect(all[0]).not.toHaveProperty('user');

    const files = await t.call<Entry[]>(t.admin, 'filesystem.listdir', '/mnt/tank/d', [['type', '=', 'FILE']]);
    expect(files.map((e) => e.name)).toEqual(['a.txt', 'b.bin']);
    const dirs = await t.call<Entry[]>(t.admin, 'filesystem.listdir', '/mnt/tank/d', [['type', '=', 'DIRECTORY']]);
    expect(dirs.map((e) => e.name)).toEqual(['sub']);
    expect(await t.call(t.admin, 'filesystem.listdir', '/mnt/tank/d', [], { count: true })).toBe(3);
    expect(
      await t.call(
        t.admin,
        'filesystem.listdir',
        '/mnt/tank/d',
        [
          ['type', '=', 'FILE'],
          ['size', '>', 50],
        ],
        { count: true },
      ),
    ).toBe(1);
    expect(
      await t.call(t.admin, 'filesystem.listdir', '/mnt/tank/d', [], { select: ['name', 'size'], order_by: ['-name'] }),
    ).toEqual([
      { name: 'sub', size: statSync(join(t.stateDir, 'mnt/tank/d/sub')).size },
      { name: 'b.bin', size: 100 },
      { name: 'a.txt', size: 3 },
    ]);
    expect(
      await t.call(t.admin, 'filesystem.listdir', '/mnt/tank/d', [['name', '=', 'b.bin']], { get: true }),
    ).toMatchObject({ name: 'b.bin', size: 100 });
    expect(await t.call(t.admin, 'filesystem.listdir', '/mnt/tank/d/sub')).toEqual([]);
  });

  it('shows a symlink that stays inside the pool as SYMLINK with its realpath, and writes through it', async () => {
    const t = await openTestAppliance();
    await put(t, t.admin, '/mnt/tank/real/f.txt', 'inside');
    symlinkSync(join(t.stateDir, 'mnt/tank/real'), join(t.stateDir, 'mnt/tank/alias'));
    const st = await t.call<StatResult>(t.admin, 'filesystem.stat', '/mnt/tank/alias');
    expect(st.type).toBe('SYMLINK');
    expect(st.mode & S_IFMT).toBe(S_IFLNK);
    expect(st.realpath).toBe('/mnt/tank/real');
    // A write through it lands inside the pool, where the link points.
    expect((await put(t, t.admin, '/mnt/tank/alias/g.txt', 'via link')).state).toBe('SUCCESS');
    expect(readFileSync(join(t.stateDir, 'mnt/tank/real/g.txt'), 'utf8')).toBe('via link');
    const listed = await t.call<Entry[]>(t.admin, 'filesystem.listdir', '/mnt/tank/real');
    expect(listed.map((e) => e.name)).toEqual(['f.txt', 'g.txt']);
  });

  it('answers ENOENT, ENOTDIR and a relative path with the appliance errors', async () => {
    const t = await openTestAppliance();
    await put(t, t.admin, '/mnt/tank/file.txt', 'f');

    const missing = await t.callError(t.admin, 'filesystem.stat', '/mnt/tank/nope');
    expect(missing.toJSON()).toMatchObject({
      code: -32001,
      message: 'Method call error',
      data: { error: 2, errname: 'ENOENT', reason: '[ENOENT] Path /mnt/tank/nope not found' },
    });
    const missingDir = await t.callError(t.admin, 'filesystem.listdir', '/mnt/tank/nope');
    expect(missingDir.data).toMatchObject({
      error: 2,
      errname: 'ENOENT',
      reason: '[ENOENT] Directory /mnt/tank/nope does not exist',
    });
    const notDir = await t.callError(t.admin, 'filesystem.listdir', '/mnt/tank/file.txt');
    expect(notDir.data).toMatchObject({
      error: 20,
      errname: 'ENOTDIR',
      reason: '[ENOTDIR] Path /mnt/tank/file.txt is not a directory',
    });
    const relative = await t.callError(t.admin, 'filesystem.stat', 'tank/file.txt');
    expect(relative.data).toMatchObject({
      error: 22,
      errname: 'EINVAL',
      reason: '[EINVAL] tank/file.txt: path must be absolute',
    });
    // listdir has no such check in 25.10.1: a relative path is looked up from middlewared's working
    // directory, where the emulated tree has nothing (MW/plugins/filesystem.py:354-356).
    const relativeDir = await t.callError(t.admin, 'filesystem.listdir', 'tank');
    expect(relativeDir.data).toMatchObject({
      error: 2,
      errname: 'ENOENT',
      reason: '[ENOENT] Directory tank does not exist',
    });
    const empty = await t.callError(t.admin, 'filesystem.stat', '');
    expect(empty.code).toBe(-32602);
  });

  it('refuses stat without FILESYSTEM_ATTRS_READ with EACCES, and allows it with the role', async () => {
    const t = await openTestAppliance();
    const without = await createUserWithKey(t, 'dsreader', { privilegeRoles: ['DATASET_READ'] });
    const withRole = await createUserWithKey(t, 'fsreader', { privilegeRoles: ['FILESYSTEM_ATTRS_READ'] });
    const denied = (await t.login(without.key)).session;
    for (const method of ['filesystem.stat', 'filesystem.listdir']) {
      const err = await t.callError(denied, method, '/mnt/tank');
      expect(err.data).toMatchObject({ error: 13, errname: 'EACCES', reason: '[EACCES] Not authorized' });
    }
    const allowed = (await t.login(withRole.key)).session;
    expect((await t.call<StatResult>(allowed, 'filesystem.stat', '/mnt/tank')).type).toBe('DIRECTORY');
  });

  it("fails filesystem.put over JSON-RPC with 25.10.1's ValueError, writing nothing (MW/job.py:370-376)", async () => {
    const t = await openTestAppliance();
    const err = await t.callError(t.admin, 'filesystem.put', '/mnt/tank/x.txt', { mode: 420 });
    expect(err.code).toBe(-32001);
    expect(err.errno).toBe(22);
    expect(err.reason).toBe("Pipe 'input' is not open");
    expect(existsSync(join(t.stateDir, 'mnt/tank/x.txt'))).toBe(false);
  });
});

describe('hostile paths are refused with a clear error and nothing touched', () => {
  const longName = 'n'.repeat(256);

  /** [path, errno, a fragment of the reason] */
  const refusals = (outside: string): [string, number, string][] => [
    ['/etc/passwd', 2, '[ENOENT] /etc/passwd: only paths inside a pool are served (pools: /mnt/tank)'],
    [`${outside}/x.txt`, 2, 'only paths inside a pool are served'],
    ['/mnt/nopool/x', 2, '[ENOENT] /mnt/nopool/x: only paths inside a pool are served (pools: /mnt/tank)'],
    ['/mnt', 2, '[ENOENT] /mnt: only paths inside a pool are served'],
    ['/mnt/', 2, 'only paths inside a pool are served'],
    ['/', 2, 'only paths inside a pool are served'],
    ['/mnt/tank/../../escaped.txt', 22, "[EINVAL] /mnt/tank/../../escaped.txt: path must not contain '..'"],
    ['/mnt/tank/docs/../../../etc/passwd', 22, "path must not contain '..'"],
    ['/mnt/tank/a\0b', 22, '[EINVAL] /mnt/tank/a\\u0000b: path contains a NUL byte'],
    [`/mnt/tank/${longName}`, 36, 'a name is longer than 255 bytes'],
    ['/mnt/tank/escape', 18, '[EXDEV] /mnt/tank/escape: path passes through a symlink that leaves the pool'],
    ['/mnt/tank/escape/x.txt', 18, 'path passes through a symlink that leaves the pool'],
    ['/mnt/tank/escape-file', 18, 'path passes through a symlink that leaves the pool'],
    ['/mnt/tank/escape-dangling', 22, 'path passes through a dangling symlink'],
    ['/mnt/tank/to-state/admin.key', 18, 'path passes through a symlink that leaves the pool'],
  ];

  /** A state with symlinks inside the pool that lead out of it (and out of the state directory). */
  async function hostileSetup() {
    const t = await openTestAppliance();
    const outside = tempDir('stor-outside-');
    writeFileSync(join(outside, 'target.txt'), 'original');
    const pool = join(t.stateDir, 'mnt/tank');
    symlinkSync(outside, join(pool, 'escape'));
    symlinkSync(join(outside, 'target.txt'), join(pool, 'escape-file'));
    symlinkSync(join(outside, 'new.txt'), join(pool, 'escape-dangling'));
    symlinkSync(t.stateDir, join(pool, 'to-state'));
    return { t, outside, pool };
  }

  it('refuses each one inside a pool for stat and listdir; outside the pools they answer as for a missing path (MW/plugins/filesystem.py:355, :466)', async () => {
    const { t, outside } = await hostileSetup();
    for (const path of ['/etc/passwd', `${outside}/x.txt`, '/mnt/nopool/x']) {
      expect((await t.callError(t.admin, 'filesystem.stat', path)).reason).toBe(`[ENOENT] Path ${path} not found`);
      expect((await t.callError(t.admin, 'filesystem.listdir', path)).reason).toBe(
        `[ENOENT] Directory ${path} does not exist`,
      );
    }
    const insidePools = refusals(outside).filter(([path]) => path.startsWith('/mnt/tank/'));
    expect(insidePools).toHaveLength(9);
    for (const [path, errno, reason] of insidePools) {
      for (const method of ['filesystem.stat', 'filesystem.listdir']) {
        const err = await t.callError(t.admin, method, path);
        expect({ path, method, code: err.code, errno: err.errno }).toEqual({ path, method, code: -32001, errno });
        expect(err.reason).toContain(reason);
      }
    }
    expect(readdirSync(outside)).toEqual(['target.txt']);
  });

  it('refuses each one as an upload target: the job fails and no file appears outside the pool', async () => {
    const { t, outside, pool } = await hostileSetup();
    const stateBefore = tree(t.stateDir).filter((p) => !p.startsWith('state.db'));
    const passwd = readFileSync('/etc/passwd', 'utf8');
    for (const [path, errno, reason] of refusals(outside)) {
      const job = await put(t, t.admin, path, 'PAYLOAD', { mode: 420 });
      expect({ path, state: job.state, errno: job.exc_info?.errno }).toEqual({ path, state: 'FAILED', errno });
      expect(job.error).toContain(reason);
      expect(job.exc_info?.type).toBe('CallError');
    }
    // Nothing written: not beside the symlinks' targets, not in the state directory, not in the pool.
    expect(readdirSync(outside)).toEqual(['target.txt']);
    expect(readFileSync(join(outside, 'target.txt'), 'utf8')).toBe('original');
    expect(readFileSync('/etc/passwd', 'utf8')).toBe(passwd);
    expect(existsSync(join(t.stateDir, 'escaped.txt'))).toBe(false);
    expect(existsSync(join(t.stateDir, 'mnt/nopool'))).toBe(false);
    expect(tree(t.stateDir).filter((p) => !p.startsWith('state.db'))).toEqual(stateBefore);
    expect(readdirSync(pool).sort()).toEqual(['escape', 'escape-dangling', 'escape-file', 'to-state']);
    // The appliance still works.
    expect((await put(t, t.admin, '/mnt/tank/fine.txt', 'ok')).state).toBe('SUCCESS');
    expect(readFileSync(join(pool, 'fine.txt'), 'utf8')).toBe('ok');
  });

  it('accepts a name of exactly 255 bytes, refuses 256', async () => {
    const t = await openTestAppliance();
    const name = 'm'.repeat(255);
    expect((await put(t, t.admin, `/mnt/tank/${name}`, 'edge')).state).toBe('SUCCESS');
    expect((await t.call<StatResult>(t.admin, 'filesystem.stat', `/mnt/tank/${name}`)).size).toBe(4);
    const err = await t.callError(t.admin, 'filesystem.stat', `/mnt/tank/${name}m`);
    expect(err.errname).toBe('ENAMETOOLONG');
  });

  it('fails an upload with bad params inside the job, as a validation error', async () => {
    const t = await openTestAppliance();
    for (const [path, options] of [
      [42, {}],
      ['/mnt/tank/v.txt', { mode: 'rw' }],
      ['/mnt/tank/v.txt', { bogus: true }],
    ] as [unknown, Record<string, unknown>][]) {
      const job = await put(t, t.admin, path, 'x', options);
      expect(job.state).toBe('FAILED');
      expect(job.exc_info?.type).toBe('VALIDATION');
    }
    expect(readdirSync(join(t.stateDir, 'mnt/tank'))).toEqual([]);
  });

  // MW/plugins/filesystem.py:556-566: open(path, 'wb+') and os.makedirs fail with Python's OSErrors,
  // recorded by MW/job.py:624-650 with the exception's class and no errno.
  it('fails an upload onto a directory, the pool root or below a file as 25.10.1 does, naming only appliance paths', async () => {
    const t = await openTestAppliance();
    await put(t, t.admin, '/mnt/tank/dir/keep.txt', 'keep');
    const cases: [string, string, string][] = [
      ['/mnt/tank/dir', 'IsADirectoryError', "[Errno 21] Is a directory: '/mnt/tank/dir'"],
      ['/mnt/tank', 'IsADirectoryError', "[Errno 21] Is a directory: '/mnt/tank'"],
      ['/mnt/tank/dir/keep.txt/x', 'NotADirectoryError', "[Errno 20] Not a directory: '/mnt/tank/dir/keep.txt/x'"],
      ['/mnt/tank/dir/keep.txt/a/b/x', 'NotADirectoryError', "[Errno 20] Not a directory: '/mnt/tank/dir/keep.txt/a'"],
    ];
    for (const [path, type, error] of cases) {
      const job = await put(t, t.admin, path, 'x');
      expect({
        path,
        state: job.state,
        error: job.error,
        type: job.exc_info?.type,
        errno: job.exc_info?.errno,
      }).toEqual({ path, state: 'FAILED', error, type, errno: null });
      expect(JSON.stringify(job)).not.toContain(t.stateDir);
    }
    expect(tree(join(t.stateDir, 'mnt/tank'))).toEqual(['dir', 'dir/keep.txt']);
  });
});
