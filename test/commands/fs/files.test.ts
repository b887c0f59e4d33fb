import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Appliance } from '../../../src/core/appliance/appliance.js';
import { clientEnv } from '../../helpers/client-env.js';
import { runStor, type RunResult } from '../../helpers/run-stor.js';
import { startTestServer } from '../../helpers/server.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** A target with its pool's directory on this machine, so tests can see what the appliance holds. */
interface Target {
  env: Record<string, string>;
  /** The host directory behind /mnt/tank. */
  tank: string;
}

async function embedded(): Promise<Target> {
  const env = clientEnv();
  Appliance.open({ stateDir: env.STOR_HOME! }).close();
  return { env, tank: join(env.STOR_HOME!, 'mnt/tank') };
}

async function remote(): Promise<Target> {
  const server = await startTestServer();
  return {
    env: { ...clientEnv(), STOR_URL: server.url, STOR_API_KEY: server.adminKey },
    tank: join(server.stateDir, 'mnt/tank'),
  };
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const errorOf = (r: RunResult) =>
  JSON.parse(r.stderr).error as { code: string; kind: string; message: string; hint?: string; details?: string[] };
/** Temporary files a download leaves beside its destination (none, when all went well or was cleaned up). */
const parts = (dir: string) => readdirSync(dir).filter((n) => n.endsWith('.part'));

describe.each([
  ['embedded', embedded],
  ['remote (stor serve in-process, ws)', remote],
] as const)('file verbs on the %s target', (_name, open) => {
  const stor = (t: Target, argv: string[]) => runStor(argv, { env: t.env });

  it('downloads 20 MiB byte for byte (sha256), into a file, a directory, and by default its name in the cwd', async () => {
    const t = await open();
    const bytes = randomBytes(20 * 1024 * 1024 + 3);
    mkdirSync(join(t.tank, 'big'));
    writeFileSync(join(t.tank, 'big/blob.bin'), bytes);
    const local = tempDir('stor-dl-');

    const r = await stor(t, ['download', '/mnt/tank/big/blob.bin', join(local, 'copy.bin'), '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      source: '/mnt/tank/big/blob.bin',
      target: join(local, 'copy.bin'),
      bytes: bytes.length,
      replaced: false,
    });
    expect(sha256(readFileSync(join(local, 'copy.bin')))).toBe(sha256(bytes));

    const sub = join(local, 'sub');
    mkdirSync(sub);
    expect((await stor(t, ['download', '/mnt/tank/big/blob.bin', sub])).code).toBe(0);
    expect(sha256(readFileSync(join(sub, 'blob.bin')))).toBe(sha256(bytes));

    const cwd = tempDir('stor-dl-cwd-');
    const here = await runStor(['download', '/mnt/tank/big/blob.bin'], { env: t.env, cwd });
    expect(here.code).toBe(0);
    expect(readdirSync(cwd)).toEqual(['blob.bin']);
    expect(statSync(join(cwd, 'blob.bin')).size).toBe(bytes.length);
    expect(parts(local)).toEqual([]);
    expect(parts(sub)).toEqual([]);
  });

  it('shows a progress bar on a terminal (stderr), and none under --quiet', async () => {
    const t = await open();
    writeFileSync(join(t.tank, 'p.bin'), randomBytes(300_000));
    const local = tempDir('stor-dl-');
    const shown = await runStor(['download', '/mnt/tank/p.bin', join(local, 'a')], {
      env: { ...t.env, NO_COLOR: '1' },
      tty: true,
    });
    expect(shown.code).toBe(0);
    expect(shown.stderr).toMatch(/p\.bin  \[#+\]  100% .*\n$/);
    expect(shown.stdout).not.toContain('#');
    const quiet = await runStor(['download', '/mnt/tank/p.bin', join(local, 'b'), '--quiet'], {
      env: t.env,
      tty: true,
    });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
  });

  it('refuses an existing local file without --force (exit 2, file untouched), replaces it with --force', async () => {
    const t = await open();
    writeFileSync(join(t.tank, 'new.txt'), 'new contents\n');
    const local = tempDir('stor-dl-');
    const dest = join(local, 'new.txt');
    writeFileSync(dest, 'precious\n');

    const refused = await stor(t, ['download', '/mnt/tank/new.txt', dest, '--json']);
    expect(refused.code).toBe(2);
    expect(errorOf(refused)).toMatchObject({ code: 'LOCAL_FILE_EXISTS', kind: 'usage', message: `${dest} exists` });
    expect(errorOf(refused).hint).toContain('--force');
    expect(readFileSync(dest, 'utf8')).toBe('precious\n');

    const forced = await stor(t, ['download', '/mnt/tank/new.txt', dest, '--force', '--json']);
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({ replaced: true, bytes: 13 });
    expect(readFileSync(dest, 'utf8')).toBe('new contents\n');
    expect(readdirSync(local)).toEqual(['new.txt']);
  });

  it('refuses a remote directory, and says a missing file is NOT_FOUND as stat does, leaving nothing behind', async () => {
    const t = await open();
    mkdirSync(join(t.tank, 'dir'));
    const local = tempDir('stor-dl-');
    const dir = await stor(t, ['download', '/mnt/tank/dir', local, '--json']);
    expect(dir.code).toBe(2);
    expect(errorOf(dir)).toMatchObject({ code: 'REMOTE_NOT_A_FILE', message: '/mnt/tank/dir is a directory' });
    writeFileSync(join(t.tank, 'f.txt'), 'f');
    const missing = await stor(t, ['download', '/mnt/tank/nope.bin', join(local, 'absent/'), '--json']);
    expect(missing.code).toBe(1);
    expect(errorOf(missing)).toMatchObject({ code: 'NOT_FOUND', message: 'no file or directory /mnt/tank/nope.bin' });
    expect(readdirSync(local)).toEqual([]);
    // A missing local directory is made, as download -r and upload make theirs, once the remote file is known.
    const intoNew = await stor(t, ['download', '/mnt/tank/f.txt', join(local, 'absent/'), '--json']);
    expect(intoNew.code, intoNew.stderr).toBe(0);
    expect(readFileSync(join(local, 'absent/f.txt'), 'utf8')).toBe('f');
  });

  it('mkdir -p makes the parents and, run twice, says it created nothing (exit 0); plain mkdir of an existing one is the appliance error', async () => {
    const t = await open();
    const first = await stor(t, ['mkdir', '-p', '/mnt/tank/p/q/r', '--mode', '0750', '--json']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).directories).toEqual([
      { path: '/mnt/tank/p', created: true, mode: '0755' },
      { path: '/mnt/tank/p/q', created: true, mode: '0755' },
      { path: '/mnt/tank/p/q/r', created: true, mode: '0750' },
    ]);
    expect(statSync(join(t.tank, 'p/q/r')).mode & 0o7777).toBe(0o750);

    const again = await stor(t, ['mkdir', '-p', '/mnt/tank/p/q/r', '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).directories).toEqual([{ path: '/mnt/tank/p/q/r', created: false, mode: '0750' }]);

    const plain = await stor(t, ['mkdir', '/mnt/tank/p', '--json']);
    expect(plain.code).toBe(1);
    expect(errorOf(plain)).toMatchObject({ code: 'EEXIST', message: '[EEXIST] /mnt/tank/p: path already exists.' });

    writeFileSync(join(t.tank, 'afile'), 'x');
    const onFile = await stor(t, ['mkdir', '-p', '/mnt/tank/afile']);
    expect(onFile.code).toBe(1);
    expect(onFile.stderr).toContain('already exists');
  });

  it('chmod sets the mode that stat then shows; -R reaches the files below', async () => {
    const t = await open();
    mkdirSync(join(t.tank, 'share/deep'), { recursive: true });
    writeFileSync(join(t.tank, 'share/deep/f.txt'), 'f');

    const one = await stor(t, ['chmod', '0o750', '/mnt/tank/share', '--json']);
    expect(one.stderr).toBe('');
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ path: '/mnt/tank/share', mode: '0750', recursive: false });
    expect(JSON.parse(one.stdout).job_id).toEqual(expect.any(Number));
    const st = await stor(t, ['stat', '/mnt/tank/share', '--json']);
    expect(JSON.parse(st.stdout).mode).toBe('0750');
    expect(statSync(join(t.tank, 'share/deep/f.txt')).mode & 0o777).not.toBe(0o700);

    const deep = await stor(t, ['chmod', '700', '/mnt/tank/share', '-R']);
    expect(deep.code).toBe(0);
    expect(statSync(join(t.tank, 'share/deep/f.txt')).mode & 0o7777).toBe(0o700);
    expect(statSync(join(t.tank, 'share/deep')).mode & 0o7777).toBe(0o700);
  });

  it('chmod refuses an ambiguous or bad MODE before any call (exit 2), and passes on the appliance refusing -R on a file', async () => {
    const t = await open();
    writeFileSync(join(t.tank, 'f.txt'), 'f');
    // Three octal digits are octal, as chmod(1) reads them.
    const plain = await stor(t, ['chmod', '640', '/mnt/tank/f.txt', '--json']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(JSON.parse(plain.stdout)).toMatchObject({ mode: '0640' });
    expect(statSync(join(t.tank, 'f.txt')).mode & 0o777).toBe(0o640);
    const ambiguous = await stor(t, ['chmod', '77', '/mnt/tank/f.txt', '--json']);
    expect(ambiguous.code).toBe(2);
    expect(errorOf(ambiguous)).toMatchObject({
      code: 'BAD_MODE',
      message: 'MODE 77 is ambiguous: chmod(1) reads it as octal 0077; as decimal it is 0115',
    });
    const notOctal = await stor(t, ['chmod', '488', '/mnt/tank/f.txt', '--json']);
    expect(notOctal.code).toBe(2);
    expect(errorOf(notOctal).hint).toBe('write the mode in octal, e.g. 0750 (0750 for decimal 488)');
    expect(statSync(join(t.tank, 'f.txt')).mode & 0o777).toBe(0o640);
    const help = await stor(t, ['chmod', '--help']);
    expect(help.stdout).toContain('MODE is octal, as chmod(1) reads it');

    // MW/plugins/filesystem_/acl.py:_common_perm_path_validate: "Recursive operations on a file are invalid."
    const recursive = await stor(t, ['chmod', '0600', '/mnt/tank/f.txt', '-R', '--json']);
    expect(recursive.code).toBe(1);
    expect(errorOf(recursive).details).toEqual([
      '* filesystem.setperm.path: Recursive operations on a file are invalid.',
    ]);
  });

  it('chown to a user and group made with `stor call`, shown by stat; an unknown user is the appliance validation error', async () => {
    const t = await open();
    mkdirSync(join(t.tank, 'home/sub'), { recursive: true });
    const group = await stor(t, ['call', 'group.create', JSON.stringify({ name: 'crew', smb: false })]);
    expect(group.code, group.stderr).toBe(0);
    const user = await stor(t, [
      'call',
      'user.create',
      JSON.stringify({
        username: 'alice',
        full_name: 'Alice',
        group_create: true,
        password_disabled: true,
        smb: false,
      }),
    ]);
    expect(user.code, user.stderr).toBe(0);

    const r = await stor(t, ['chown', 'alice:crew', '/mnt/tank/home', '-R', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      path: '/mnt/tank/home',
      user: 'alice',
      group: 'crew',
      recursive: true,
    });
    const below = JSON.parse((await stor(t, ['stat', '/mnt/tank/home/sub', '--json'])).stdout);
    expect(below).toMatchObject({ user: 'alice', group: 'crew' });

    const groupOnly = await stor(t, ['chown', ':alice', '/mnt/tank/home/sub', '--json']);
    expect(JSON.parse(groupOnly.stdout)).toMatchObject({ user: 'alice', group: 'alice' });

    // MW/plugins/filesystem_/acl.py:173-185: the name is resolved by the appliance.
    const unknown = await stor(t, ['chown', 'mallory', '/mnt/tank/home', '--json']);
    expect(unknown.code).toBe(1);
    expect(errorOf(unknown).details).toEqual(['* filesystem.chown.user: mallory: user does not exist']);
    const bad = await stor(t, ['chown', 'alice:', '/mnt/tank/home']);
    expect(bad.code).toBe(2);
  });

  it('rm exits 2 saying the API has no file delete and what the appliance offers, and deletes nothing', async () => {
    const t = await open();
    writeFileSync(join(t.tank, 'keep.txt'), 'k');
    const r = await stor(t, ['rm', '/mnt/tank/keep.txt', '--json']);
    expect(r.code).toBe(2);
    const error = errorOf(r);
    expect(error).toMatchObject({ code: 'NO_FILE_DELETE', kind: 'usage' });
    expect(error.message).toContain('no way to delete files');
    expect(error.hint).toContain('stor dataset delete /mnt/tank/keep.txt');
    expect(error.hint).toContain('web UI');
    expect(existsSync(join(t.tank, 'keep.txt'))).toBe(true);
  });
});
