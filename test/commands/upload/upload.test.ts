import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Appliance } from '../../../src/core/appliance/appliance.js';
import { createUserWithKey, openTestAppliance } from '../../helpers/appliance.js';
import { runStor } from '../../helpers/run-stor.js';
import { startStandinAppliance } from '../../helpers/standin-appliance.js';
import { startTestServer } from '../../helpers/server.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** A fresh embedded appliance (seeded) and a directory of local files to upload. */
function setup(files: Record<string, string | Buffer> = { 'report.txt': 'quarterly report\n' }) {
  const home = tempDir('stor-home-');
  Appliance.open({ stateDir: home }).close();
  const local = tempDir('stor-local-');
  const paths: Record<string, string> = {};
  for (const [name, content] of Object.entries(files)) {
    paths[name] = join(local, name);
    writeFileSync(paths[name], content);
  }
  const env = { STOR_HOME: home, STOR_CONFIG_DIR: tempDir('stor-config-') };
  const pool = join(home, 'mnt/tank');
  // On a "terminal", colour level 0 keeps the text free of escape codes so lines can be matched.
  return {
    home,
    local,
    paths,
    env,
    pool,
    stor: (argv: string[], tty = false) => runStor(argv, { env, tty, color: 0 }),
  };
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A port on which nothing listens: a command that reached for the network would exit 3. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  await new Promise((r) => server.close(r));
  return port;
}

describe('stor upload on the embedded appliance', () => {
  it('uploads into an existing directory keeping the basename', async () => {
    const { paths, pool, stor } = setup();
    mkdirSync(join(pool, 'existing'));
    const r = await stor(['upload', paths['report.txt']!, '/mnt/tank/existing']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(readFileSync(join(pool, 'existing/report.txt'), 'utf8')).toBe('quarterly report\n');
  });

  it('creates a directory for a target ending in /', async () => {
    const { paths, pool, stor } = setup();
    const r = await stor(['upload', paths['report.txt']!, '/mnt/tank/new/deeper/']);
    expect(r.code).toBe(0);
    expect(statSync(join(pool, 'new/deeper')).isDirectory()).toBe(true);
    expect(readFileSync(join(pool, 'new/deeper/report.txt'), 'utf8')).toBe('quarterly report\n');
  });

  it('uploads several files to a directory; refuses several files to a missing non-directory target', async () => {
    const { paths, pool, stor } = setup({ 'a.log': 'aaa', 'b.log': 'bbbb', 'c.log': '' });
    const r = await stor(['upload', paths['a.log']!, paths['b.log']!, paths['c.log']!, '/mnt/tank/logs/', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).files.map((x: { target: string; size: number }) => [x.target, x.size])).toEqual([
      ['/mnt/tank/logs/a.log', 3],
      ['/mnt/tank/logs/b.log', 4],
      ['/mnt/tank/logs/c.log', 0],
    ]);
    expect(readdirSync(join(pool, 'logs')).sort()).toEqual(['a.log', 'b.log', 'c.log']);
    expect(readFileSync(join(pool, 'logs/b.log'), 'utf8')).toBe('bbbb');

    const refused = await stor(['upload', paths['a.log']!, paths['b.log']!, '/mnt/tank/nodir']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('several files go to a directory');
    expect(refused.stderr).toContain('/mnt/tank/nodir/');
    expect(existsSync(join(pool, 'nodir'))).toBe(false);
  });

  it('uploads to an explicit file path under another name', async () => {
    const { paths, pool, stor } = setup();
    const r = await stor(['upload', paths['report.txt']!, '/mnt/tank/docs/2025-q3.txt']);
    expect(r.code).toBe(0);
    expect(readdirSync(join(pool, 'docs'))).toEqual(['2025-q3.txt']);
    expect(readFileSync(join(pool, 'docs/2025-q3.txt'), 'utf8')).toBe('quarterly report\n');
  });

  it('takes --mode as decimal 420, octal 0644 and 0o644 alike', async () => {
    const { paths, pool, stor } = setup();
    for (const [i, mode] of ['420', '0644', '0o644', '0O644'].entries()) {
      const r = await stor(['upload', paths['report.txt']!, `/mnt/tank/m/${i}.txt`, '--mode', mode, '--json']);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).files[0].mode).toBe('0644');
      expect(statSync(join(pool, `m/${i}.txt`)).mode & 0o7777).toBe(0o644);
    }
    const r = await stor(['upload', paths['report.txt']!, '/mnt/tank/m/x.txt', '--mode', '0o750']);
    expect(r.code).toBe(0);
    expect(statSync(join(pool, 'm/x.txt')).mode & 0o7777).toBe(0o750);
  });

  it('refuses a decimal --mode above 511 (exit 2) with the octal and decimal forms, and uploads nothing', async () => {
    const { paths, pool, stor } = setup();
    const r = await stor(['upload', paths['report.txt']!, '/mnt/tank/w.txt', '--mode', '644']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--mode 644 in decimal is more than 511 (0777): special bits need explicit octal');
    expect(r.stderr).toContain('for octal 644 write --mode 0644 (= 420 in decimal)');
    expect(existsSync(join(pool, 'w.txt'))).toBe(false);
  });

  it('applies special bits written in octal, as 25.10.1 does (os.chmod in MW/plugins/filesystem.py put), with a warning', async () => {
    const { paths, pool, stor } = setup();
    const r = await stor(['upload', paths['report.txt']!, '/mnt/tank/s.txt', '--mode', '04755']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('--mode 04755 sets setuid: the appliance applies it as given');
    expect(statSync(join(pool, 's.txt')).mode & 0o7777).toBe(0o4755);
  });

  it('rejects a bad --mode and a missing local file with exit 2, before any request', async () => {
    const { paths, pool, env, local } = setup();
    // Aimed at a URL where nothing listens: reaching for the target would end in exit 3.
    const remote = { ...env, STOR_URL: `ws://127.0.0.1:${await closedPort()}`, STOR_API_KEY: `1-${'K'.repeat(64)}` };
    for (const mode of ['9z', '99999', '0o8', '-1', '0x1a4', '']) {
      for (const target of [{ env }, { env: remote }]) {
        const r = await runStor(['upload', paths['report.txt']!, '/mnt/tank/bad.txt', '--mode', mode], target);
        expect({ mode, code: r.code }).toEqual({ mode, code: 2 });
        expect(r.stderr).toContain('--mode');
        expect(r.stdout).toBe('');
      }
    }
    for (const target of [{ env }, { env: remote }]) {
      const r = await runStor(['upload', paths['report.txt']!, join(local, 'missing.bin'), '/mnt/tank/files/'], target);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`no such local file: ${join(local, 'missing.bin')}`);
      const dir = await runStor(['upload', local, '/mnt/tank/files/'], target);
      expect(dir.code).toBe(2);
      expect(dir.stderr).toContain(`${local} is a directory\nhint: upload it and everything under it with -r`);
    }
    expect(readdirSync(pool)).toEqual([]);
  });

  it('appends with --append and checks the combined size', async () => {
    const { paths, pool, stor } = setup({ 'one.txt': 'one\n', 'two.txt': 'two two\n' });
    expect((await stor(['upload', paths['one.txt']!, '/mnt/tank/journal.txt', '--mode', '0600'])).code).toBe(0);
    const r = await stor(['upload', paths['two.txt']!, '/mnt/tank/journal.txt', '--append', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).files[0]).toMatchObject({ outcome: 'done', bytes: 8, size: 12, mode: '0600' });
    expect(readFileSync(join(pool, 'journal.txt'), 'utf8')).toBe('one\ntwo two\n');
  });

  it('prints each file with source, target, outcome, bytes, size, mode, owner and job_id, and a summary', async () => {
    const { home, paths, stor } = setup({ 'a.bin': Buffer.alloc(1000, 7), 'b.bin': Buffer.alloc(10, 1) });
    const r = await stor(['upload', paths['a.bin']!, paths['b.bin']!, '/mnt/tank/j/', '--mode', '420', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    expect(out).toEqual({
      files: [
        {
          source: paths['a.bin'],
          target: '/mnt/tank/j/a.bin',
          outcome: 'done',
          bytes: 1000,
          size: 1000,
          mode: '0644',
          owner: 'truenas_admin',
          job_id: expect.any(Number),
          error: null,
        },
        {
          source: paths['b.bin'],
          target: '/mnt/tank/j/b.bin',
          outcome: 'done',
          bytes: 10,
          size: 10,
          mode: '0644',
          owner: 'truenas_admin',
          job_id: expect.any(Number),
          error: null,
        },
      ],
      summary: { files: 2, done: 2, failed: 0, skipped: 0, not_attempted: 0, bytes_sent: 1010 },
      // The appliance the files went to (docs/COMMANDS.md "Output", --json), beside each file's own target path.
      target: { kind: 'embedded', stateDir: home },
    });
    expect(out.files[1].job_id).toBeGreaterThan(out.files[0].job_id);
  });

  it('prints tab-separated rows when piped (no progress), a table and a progress bar on a terminal', async () => {
    const { paths, stor } = setup();
    const piped = await stor(['upload', paths['report.txt']!, '/mnt/tank/t/', '--mode', '0644']);
    expect(piped.code).toBe(0);
    expect(piped.stdout).toBe(`${paths['report.txt']}\t/mnt/tank/t/report.txt\tdone\t17\t0644\ttruenas_admin\t\n`);
    expect(piped.stderr).toBe('');

    const tty = await stor(['upload', paths['report.txt']!, '/mnt/tank/t/again.txt', '--mode', '0644'], true);
    expect(tty.code).toBe(0);
    const lines = tty.stdout.trimEnd().split('\n');
    // No failure: no error column on a terminal (piped, the columns stay the same).
    expect(lines[0]).toMatch(/^SOURCE\s+TARGET\s+OUTCOME\s+SIZE\s+MODE\s+OWNER$/);
    expect(lines[1]).toMatch(/\s\/mnt\/tank\/t\/again\.txt\s+done\s+17 B\s+-rw-r--r-- 0644\s+truenas_admin$/);
    expect(tty.stderr).toContain('report.txt  [####################]  100%  17 B/17 B');
  });

  it('lands byte for byte with a progress bar on a terminal (embedded and remote)', async () => {
    const bytes = randomBytes(3 * 1024 * 1024 + 5);
    const { paths, pool, stor, env } = setup({ 'blob.bin': bytes });
    // An existing target is replaced, not truncated.
    writeFileSync(join(pool, 'blob.bin'), 'old content');
    const embedded = await stor(['upload', paths['blob.bin']!, '/mnt/tank/blob.bin'], true);
    expect(embedded.code).toBe(0);
    expect(embedded.stderr).toContain('100%  3.0 MiB/3.0 MiB');
    expect(sha256(readFileSync(join(pool, 'blob.bin')))).toBe(sha256(bytes));

    const server = await startTestServer();
    const remote = await runStor(['upload', paths['blob.bin']!, '/mnt/tank/remote/'], {
      env: { ...env, STOR_URL: server.url.replace(/^http/, 'ws'), STOR_API_KEY: server.adminKey },
      tty: true,
      color: 0,
    });
    expect(remote.code).toBe(0);
    expect(remote.stderr).toContain('100%  3.0 MiB/3.0 MiB');
    expect(sha256(readFileSync(join(server.stateDir, 'mnt/tank/remote/blob.bin')))).toBe(sha256(bytes));

    const overHttp = await runStor(
      ['--rpc', 'http', 'upload', paths['blob.bin']!, '/mnt/tank/remote/http.bin', '--json'],
      {
        env: { ...env, STOR_URL: server.url, STOR_API_KEY: server.adminKey },
      },
    );
    expect(overHttp.code).toBe(0);
    expect(JSON.parse(overHttp.stdout).files[0]).toMatchObject({
      target: '/mnt/tank/remote/http.bin',
      size: bytes.length,
      owner: 'truenas_admin',
    });
    expect(sha256(readFileSync(join(server.stateDir, 'mnt/tank/remote/http.bin')))).toBe(sha256(bytes));
  });

  it('CURRENT GATE (25.10.1 behaviour, not the declared intent): a non-admin with FILESYSTEM_DATA_WRITE gets exit 5 and an explanation', async () => {
    const { home, paths, pool } = setup();
    const t = await openTestAppliance(undefined, home);
    const { key } = await createUserWithKey(t, 'bob', {
      privilegeRoles: [
        'FILESYSTEM_FULL_CONTROL',
        'DATASET_WRITE',
        'FILESYSTEM_DATA_WRITE',
        'FILESYSTEM_DATA_READ',
        'FILESYSTEM_ATTRS_WRITE',
      ],
    });
    t.appliance.close();
    const env = { STOR_HOME: home, STOR_CONFIG_DIR: tempDir('stor-config-'), STOR_API_KEY: key };
    const r = await runStor(['upload', paths['report.txt']!, '/mnt/tank/bob.txt'], { env });
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('403: Forbidden');
    expect(r.stderr).toContain('SYS_ADMIN');
    expect(r.stderr).toContain('builtin_administrators');
    expect(r.stderr).toContain('FILESYSTEM_DATA_WRITE or other filesystem roles alone do not pass it');
    expect(r.stderr).not.toContain(key.split('-')[1]!);
    expect(existsSync(join(pool, 'bob.txt'))).toBe(false);

    const json = await runStor(['upload', paths['report.txt']!, '/mnt/tank/bob.txt', '--json'], { env });
    expect(json.code).toBe(5);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'UPLOAD_FORBIDDEN', kind: 'denied' } });
  });
});

describe("stor upload of several files: every file's outcome", () => {
  // The middle target is an existing directory: 25.10.1 fails that file's job with
  // "[EFAULT] [Errno 21] Is a directory" (MW/plugins/filesystem.py:556-566, MW/job.py:467-478).
  const isADirectory = "[EFAULT] [Errno 21] Is a directory: '/mnt/tank/t/b.txt'";

  it('a failed file among good ones: the others land, --json lists done/failed per file with a summary, exit 1', async () => {
    const { home, paths, pool, stor } = setup({ 'a.txt': 'aaa', 'b.txt': 'bbbb', 'c.txt': 'cc' });
    mkdirSync(join(pool, 't/b.txt'), { recursive: true });
    const r = await stor(['upload', paths['a.txt']!, paths['b.txt']!, paths['c.txt']!, '/mnt/tank/t/', '--json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      files: [
        {
          source: paths['a.txt'],
          target: '/mnt/tank/t/a.txt',
          outcome: 'done',
          bytes: 3,
          size: 3,
          mode: '0644',
          owner: 'truenas_admin',
          job_id: expect.any(Number),
          error: null,
        },
        {
          source: paths['b.txt'],
          target: '/mnt/tank/t/b.txt',
          outcome: 'failed',
          bytes: 4,
          size: null,
          mode: null,
          owner: null,
          job_id: null,
          error: { code: 'EFAULT', kind: 'failed', message: isADirectory },
        },
        {
          source: paths['c.txt'],
          target: '/mnt/tank/t/c.txt',
          outcome: 'done',
          bytes: 2,
          size: 2,
          mode: '0644',
          owner: 'truenas_admin',
          job_id: expect.any(Number),
          error: null,
        },
      ],
      summary: { files: 3, done: 2, failed: 1, skipped: 0, not_attempted: 0, bytes_sent: 5 },
      target: { kind: 'embedded', stateDir: home },
    });
    expect(readFileSync(join(pool, 't/a.txt'), 'utf8')).toBe('aaa');
    expect(readFileSync(join(pool, 't/c.txt'), 'utf8')).toBe('cc');
    expect(statSync(join(pool, 't/b.txt')).isDirectory()).toBe(true);
  });

  it('the same failure as a table on a terminal and as tab-separated rows when piped, with the failure on stderr', async () => {
    const { paths, pool, stor } = setup({ 'a.txt': 'aaa', 'b.txt': 'bbbb' });
    mkdirSync(join(pool, 't/b.txt'), { recursive: true });
    const piped = await stor(['upload', paths['a.txt']!, paths['b.txt']!, '/mnt/tank/t/']);
    expect(piped.code).toBe(1);
    expect(piped.stdout.split('\n')).toEqual([
      `${paths['a.txt']}\t/mnt/tank/t/a.txt\tdone\t3\t0644\ttruenas_admin\t`,
      `${paths['b.txt']}\t/mnt/tank/t/b.txt\tfailed\t4\t\t\t${isADirectory}`,
      '',
    ]);
    expect(piped.stderr).toBe(`stor: ${paths['b.txt']}: ${isADirectory}\nstor: 1 of 2 files failed; 1 uploaded\n`);

    const tty = await stor(['upload', paths['a.txt']!, paths['b.txt']!, '/mnt/tank/t/'], true);
    expect(tty.code).toBe(1);
    const lines = tty.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SOURCE\s+TARGET\s+OUTCOME\s+SIZE\s+MODE\s+OWNER\s+ERROR$/);
    // At 100 columns nothing gives way but the error, which wraps; paths, outcome, size, mode and owner are whole.
    expect(lines[1]).toMatch(/a\.txt\s+done\s+3 B\s+-rw-r--r-- 0644\s+truenas_admin\s+-$/);
    expect(lines[2]).toMatch(/b\.txt\s+failed\s+4 B\s+-\s+-\s+\[EFAULT\] \[Errno/);
  });

  it("when the target becomes unusable (unreachable), the rest are not attempted and the exit code is that kind's (3)", async () => {
    let uploads = 0;
    const nas = await startStandinAppliance({ 'auth.login_with_api_key': { result: true } }, (req, res) => {
      if (req.headers['content-length'] !== '0') uploads++;
      req.resume();
      req.on('end', () => res.writeHead(429, { 'content-type': 'text/plain' }).end('slow down'));
    });
    const { paths, env } = setup({ 'a.txt': 'aaa', 'b.txt': 'bbbb', 'c.txt': 'cc' });
    const r = await runStor(
      ['--url', nas.baseUrl, '--json', 'upload', paths['a.txt']!, paths['b.txt']!, paths['c.txt']!, '/mnt/tank/t/'],
      {
        env: { ...env, STOR_API_KEY: `1-${'A'.repeat(64)}` },
      },
    );
    expect(r.code, r.stderr).toBe(3);
    const report = JSON.parse(r.stdout);
    expect(
      report.files.map((f: { outcome: string; error: { code: string; kind: string } | null }) => [
        f.outcome,
        f.error?.code ?? null,
        f.error?.kind ?? null,
      ]),
    ).toEqual([
      ['failed', 'RATE_LIMITED', 'unreachable'],
      ['not_attempted', null, null],
      ['not_attempted', null, null],
    ]);
    expect(report.summary).toEqual({ files: 3, done: 0, skipped: 0, failed: 1, not_attempted: 2, bytes_sent: 0 });
    expect(uploads).toBe(1);
  });

  // root reads any file, so this can only be shown as another user.
  it.skipIf(process.getuid?.() === 0)(
    'an unreadable local file among good ones is a usage error before anything is sent',
    async () => {
      const { paths, pool, stor } = setup({ 'a.txt': 'aaa', 'locked.txt': 'secret' });
      chmodSync(paths['locked.txt']!, 0o000);
      const r = await stor(['upload', paths['a.txt']!, paths['locked.txt']!, '/mnt/tank/t/', '--json']);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'LOCAL_FILE_UNREADABLE', kind: 'usage' } });
      expect(readdirSync(pool)).toEqual([]);
    },
  );

  it('a missing local file among good ones is a usage error before anything is sent', async () => {
    const { paths, pool, local, stor } = setup({ 'a.txt': 'aaa' });
    const r = await stor(['upload', paths['a.txt']!, join(local, 'gone.txt'), '/mnt/tank/t/', '--json']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'LOCAL_FILE_MISSING', kind: 'usage' } });
    expect(readdirSync(pool)).toEqual([]);
  });
});

describe('stor ls and stor stat', () => {
  it('stat shows size, mode 0644 and owner truenas_admin: table, TSV, JSON', async () => {
    const { paths, stor } = setup();
    expect((await stor(['upload', paths['report.txt']!, '/mnt/tank/docs/', '--mode', '0644'])).code).toBe(0);

    const json = await stor(['stat', '/mnt/tank/docs/report.txt', '--json']);
    expect(json.code).toBe(0);
    const st = JSON.parse(json.stdout);
    expect(st).toEqual({
      path: '/mnt/tank/docs/report.txt',
      realpath: '/mnt/tank/docs/report.txt',
      type: 'FILE',
      size: 17,
      // One format per kind of value: permission bits as chmod takes them, as upload prints them.
      mode: '0644',
      st_mode: 0o100644,
      uid: 950,
      gid: 950,
      user: 'truenas_admin',
      group: 'truenas_admin',
      mtime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      is_mountpoint: false,
    });

    const piped = await stor(['stat', '/mnt/tank/docs/report.txt']);
    expect(piped.stdout.split('\n')).toEqual([
      'path\t/mnt/tank/docs/report.txt',
      'type\tFILE',
      'size\t17',
      'mode\t0644',
      'owner\ttruenas_admin',
      'group\ttruenas_admin',
      `modified\t${st.mtime}`,
      '',
    ]);

    const tty = await stor(['stat', '/mnt/tank/docs/report.txt'], true);
    expect(tty.stdout).toMatch(/^mode:\s+-rw-r--r-- 0644$/m);
    expect(tty.stdout).toMatch(/^owner:\s+truenas_admin$/m);
    expect(tty.stdout).toMatch(/^size:\s+17 B$/m);

    const dir = await stor(['stat', '/mnt/tank', '--json']);
    expect(JSON.parse(dir.stdout)).toMatchObject({
      type: 'DIRECTORY',
      uid: 0,
      gid: 0,
      user: 'root',
      group: 'root',
      is_mountpoint: true,
      mode: expect.stringMatching(/^0[0-7]{3}$/),
    });
  });

  it('ls lists a directory: table, TSV, JSON; and says when it is empty', async () => {
    const { paths, stor, pool } = setup({ 'a.txt': 'abc', 'b.txt': 'hello' });
    expect((await stor(['upload', paths['a.txt']!, paths['b.txt']!, '/mnt/tank/l/', '--mode', '0640'])).code).toBe(0);
    mkdirSync(join(pool, 'l/sub'));
    const json = await stor(['ls', '/mnt/tank/l', '--json']);
    expect(json.code).toBe(0);
    const entries = JSON.parse(json.stdout);
    expect(entries.slice(0, 2)).toEqual([
      {
        name: 'a.txt',
        path: '/mnt/tank/l/a.txt',
        type: 'FILE',
        size: 3,
        mode: '0640',
        st_mode: 0o100640,
        uid: 950,
        gid: 950,
        user: 'truenas_admin',
        group: 'truenas_admin',
      },
      {
        name: 'b.txt',
        path: '/mnt/tank/l/b.txt',
        type: 'FILE',
        size: 5,
        mode: '0640',
        st_mode: 0o100640,
        uid: 950,
        gid: 950,
        user: 'truenas_admin',
        group: 'truenas_admin',
      },
    ]);
    // Group 0 named as stat names it, not null because group.query does not list it.
    expect(entries[2]).toMatchObject({
      name: 'sub',
      type: 'DIRECTORY',
      uid: 0,
      gid: 0,
      user: 'root',
      group: 'root',
      mode: expect.stringMatching(/^0[0-7]{3}$/),
    });
    const statted = JSON.parse((await stor(['stat', '/mnt/tank/l/sub', '--json'])).stdout);
    const same = ['path', 'type', 'mode', 'st_mode', 'uid', 'gid', 'user', 'group'];
    expect(Object.fromEntries(same.map((k) => [k, entries[2][k]]))).toEqual(
      Object.fromEntries(same.map((k) => [k, statted[k]])),
    );

    const piped = await stor(['ls', '/mnt/tank/l']);
    const rows = piped.stdout.trimEnd().split('\n');
    // Piped, owners by name as piped stat prints them; the mode as upload and chmod print it.
    expect(rows.slice(0, 2)).toEqual([
      '0640\ttruenas_admin\ttruenas_admin\t3\ta.txt',
      '0640\ttruenas_admin\ttruenas_admin\t5\tb.txt',
    ]);
    expect(rows[2]).toMatch(/^0[0-7]{3}\troot\troot\t\d+\tsub\/$/);

    const tty = await stor(['ls', '/mnt/tank/l'], true);
    expect(tty.stdout.split('\n')[0]).toMatch(/^MODE\s+OWNER\s+GROUP\s+SIZE\s+NAME$/);
    expect(tty.stdout).toMatch(/^-rw-r----- 0640\s+truenas_admin\s+truenas_admin\s+3 B\s+a\.txt$/m);
    expect(tty.stdout).toMatch(/^d[-rwxsStT]{9} 0\d{3}\s+root\s+\S+\s+.*\ssub\/$/m);

    const empty = await stor(['ls', '/mnt/tank/l/sub'], true);
    expect(empty.stdout).toBe('/mnt/tank/l/sub is empty\n');
  });

  it('fails ls and stat on missing and hostile paths with exit 1 and the appliance reason', async () => {
    const { stor } = setup();
    const missing = await stor(['stat', '/mnt/tank/nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('[ENOENT] Path /mnt/tank/nope not found');
    const outside = await stor(['ls', '/etc']);
    expect(outside.code).toBe(1);
    expect(outside.stderr).toContain('[ENOENT] Directory /etc does not exist');
    const dotdot = await stor(['ls', '/mnt/tank/../..']);
    expect(dotdot.code).toBe(1);
    expect(dotdot.stderr).toContain("path must not contain '..'");
  });
});
