import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { spawnServe, type ServeProcess } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { integrity } from '../../helpers/database.js';

/*
 * A full disk and a read-only state directory. Tests run as root here (and in CI), so permission
 * bits stop nothing; small tmpfs mounts do. Where mounting is not possible the tests are skipped
 * with the reason printed.
 */

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface Mount {
  dir: string;
  mounted: boolean;
}

const mounts: Mount[] = [];
let unavailable: string | undefined;

/** A fresh tmpfs of `size`, or the reason there is none. */
function mountTmpfs(options: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'stor-rel-tmpfs-'));
  const m: Mount = { dir, mounted: false };
  mounts.push(m);
  execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'pipe' });
  m.mounted = true;
  return dir;
}

function remount(dir: string, mode: 'ro' | 'rw'): void {
  execFileSync('mount', ['-o', `remount,${mode}`, dir], { stdio: 'pipe' });
}

let full: string;
let readOnly: string;
let seeded: string;

beforeAll(() => {
  try {
    full = mountTmpfs('size=4m');
    readOnly = mountTmpfs('ro,size=1m');
    seeded = mountTmpfs('size=2m');
  } catch (err) {
    const e = err as { stderr?: Buffer; message: string };
    unavailable = `cannot mount a tmpfs (${(e.stderr?.toString().trim() || e.message).split('\n')[0]}); run as root to test a full disk and a read-only state directory`;
  }
});

afterAll(() => {
  for (const m of mounts.reverse()) {
    if (m.mounted) execFileSync('umount', [m.dir], { stdio: 'pipe' });
    rmdirSync(m.dir);
  }
});

function skipUnlessMounted(ctx: { skip: () => void }): void {
  if (unavailable) {
    console.warn(`skipping: ${unavailable}`);
    ctx.skip();
  }
}

function clientEnv(server: ServeProcess): Record<string, string> {
  return {
    STOR_HOME: tempDir('stor-rel-client-'),
    STOR_CONFIG_DIR: tempDir('stor-rel-config-'),
    STOR_URL: server.baseUrl,
    STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
  };
}

const strayTemps = (dir: string) =>
  (readdirSync(dir, { recursive: true }) as string[]).map(String).filter((p) => p.includes('.stor-put-'));

/** Fills the file system holding `dir` to the last byte; returns the filler's path. */
function fill(dir: string): string {
  const path = join(dir, 'filler');
  const chunk = Buffer.alloc(64 * 1024);
  for (let i = 0; i < 1024; i++) {
    try {
      writeFileSync(path, chunk, { flag: 'a' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOSPC') return path;
      throw err;
    }
  }
  throw new Error(`${dir} did not fill up`);
}

describe('a full disk under stor serve', () => {
  it('an upload larger than the free space fails with a clear error, leaves nothing, and the server carries on', async (ctx) => {
    skipUnlessMounted(ctx);
    const server = await spawnServe(full);
    const env = clientEnv(server);
    const big = join(tempDir('stor-rel-files-'), 'big.bin');
    writeFileSync(big, randomBytes(6 * 1024 * 1024));
    const target = join(full, 'mnt/tank/full/big.bin');

    for (const rpc of [[], ['--rpc', 'http']]) {
      const up = await spawnStor([...rpc, 'upload', big, '/mnt/tank/full/big.bin'], { env });
      expect(up.stdout).toBe('');
      expect(up.code, up.stderr).toBe(1);
      expect(up.stderr).toMatch(
        /^stor: (job \d+ \(filesystem\.put\) failed: )?\[ENOSPC\] No space left on device while writing \/mnt\/tank\/full\/big\.bin\n$/,
      );
      expect(existsSync(target)).toBe(false);
      expect(strayTemps(join(full, 'mnt'))).toEqual([]);
    }

    // Still serving, the database intact, and the space given back: a small file goes through.
    const ping = await spawnStor(['call', 'core.ping'], { env });
    expect(ping.code).toBe(0);
    expect(JSON.parse(ping.stdout)).toBe('pong');
    const privileges = await spawnStor(['call', 'privilege.query', '[]', '{"count":true}'], { env });
    expect(privileges.code).toBe(0);
    expect(privileges.stdout.trim()).toBe('3');
    const small = join(tempDir('stor-rel-files-'), 'small.bin');
    const smallBytes = randomBytes(100 * 1024);
    writeFileSync(small, smallBytes);
    const ok = await spawnStor(['upload', small, '/mnt/tank/full/'], { env });
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(sha256(readFileSync(join(full, 'mnt/tank/full/small.bin')))).toBe(sha256(smallBytes));
    expect(integrity(full)).toBe('ok');

    // Not a byte left, not even for the database: a write either fails cleanly or commits whole
    // (SQLite may reuse room already in its log). Either way nothing is half-written.
    const filler = fill(full);
    const create = await spawnStor(
      [
        'call',
        'privilege.create',
        JSON.stringify({ name: 'on a full disk', web_shell: false, roles: ['READONLY_ADMIN'] }),
      ],
      { env },
    );
    if (create.code !== 0) {
      expect(create.code).toBe(1);
      expect(create.stderr).toBe('stor: database or disk is full\n');
    }
    const read = await spawnStor(
      ['call', 'privilege.query', JSON.stringify([['name', '=', 'on a full disk']]), '{"count":true}'],
      { env },
    );
    expect(read.code).toBe(0);
    unlinkSync(filler);
    const count = await spawnStor(
      ['call', 'privilege.query', JSON.stringify([['name', '=', 'on a full disk']]), '{"count":true}'],
      { env },
    );
    expect(count.stdout.trim()).toBe(create.code === 0 ? '1' : '0');
    expect(read.stdout).toBe(count.stdout);
    expect(integrity(full)).toBe('ok');
    expect(await server.stop()).toBe(0);
  });
});

describe('an unwritable state directory', () => {
  const HINT = 'hint: point STOR_HOME (or stor serve --state) at a writable directory with free space\n';

  it('`stor whoami` on an empty read-only file system exits 1 naming the directory, no stack trace', async (ctx) => {
    skipUnlessMounted(ctx);
    const env = { STOR_HOME: readOnly, STOR_CONFIG_DIR: tempDir('stor-rel-config-') };
    const r = await spawnStor(['whoami'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `stor: cannot use the state directory ${readOnly}: EROFS: read-only file system, open '${readOnly}/stor.db'\n${HINT}`,
    );

    const json = await spawnStor(['--json', 'whoami'], { env });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toEqual({
      error: {
        code: 'STATE_UNWRITABLE',
        kind: 'failed',
        message: `cannot use the state directory ${readOnly}: EROFS: read-only file system, open '${readOnly}/stor.db'`,
        hint: 'point STOR_HOME (or stor serve --state) at a writable directory with free space',
      },
    });

    // A state directory that would have to be created on it.
    const below = await spawnStor(['whoami'], { env: { ...env, STOR_HOME: join(readOnly, 'state') } });
    expect(below.code).toBe(1);
    expect(below.stderr.startsWith(`stor: cannot use the state directory ${readOnly}/state: E`)).toBe(true);
    expect(below.stderr.endsWith(`\n${HINT}`)).toBe(true);
    expect(below.stderr.split('\n')).toHaveLength(3);
    expect(readdirSync(readOnly)).toEqual([]);

    const serve = await spawnStor(['serve', '--port', '0', '--state', readOnly], { env });
    expect(serve.code).toBe(1);
    expect(serve.stdout).toBe('');
    expect(serve.stderr).toBe(
      `stor: cannot use the state directory ${readOnly}: EROFS: read-only file system, open '${readOnly}/stor.db'\n${HINT}`,
    );
  });

  it('an existing state whose file system turns read-only: a clear error, then all is well once writable again', async (ctx) => {
    skipUnlessMounted(ctx);
    const env = { STOR_HOME: seeded, STOR_CONFIG_DIR: tempDir('stor-rel-config-') };
    const first = await spawnStor(['--json', 'whoami'], { env });
    expect(first.code).toBe(0);
    const me = JSON.parse(first.stdout);

    remount(seeded, 'ro');
    try {
      const r = await spawnStor(['whoami'], { env });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `stor: cannot use the state directory ${seeded}: EROFS: read-only file system, open '${seeded}/stor.db'\n${HINT}`,
      );
      const up = await spawnStor(['upload', join(process.cwd(), 'package.json'), '/mnt/tank/'], { env });
      expect(up.code).toBe(1);
      expect(up.stderr).toContain(`cannot use the state directory ${seeded}`);
    } finally {
      remount(seeded, 'rw');
    }

    const again = await spawnStor(['--json', 'whoami'], { env });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual(me);
    expect(integrity(seeded)).toBe('ok');
  });
});
