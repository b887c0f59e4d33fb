import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { STOR_BIN, spawnStor } from './helpers/bin.js';
import { spawnServe } from './helpers/serve-process.js';
import { tempDir } from './helpers/temp-dir.js';
import { OTHER_UID, otherUserUnavailable, otherUsersDir, storAsOther } from './helpers/other-user.js';
import { EMBEDDED_MEANT } from './helpers/embedded-meant.js';

// Every Node major runs the CLI from the CommonJS bundle with a code cache (src/start.ts).
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BUNDLE_DIR = join(ROOT, 'dist', 'bundle');

/** A fresh embedded state and cache directory, and a whoami against them. */
function setup() {
  const home = tempDir();
  const cache = tempDir();
  const whoami = () => spawnStor(['whoami', '--json'], { env: { STOR_HOME: home, XDG_CACHE_HOME: cache } });
  return { cache, codeCache: join(cache, 'stor', 'code-cache'), whoami };
}

const cacheFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.v8'));

/** A fresh embedded state and cache directory, and a whoami against them under NODE_OPTIONS `nodeOptions`. */
function underOptions() {
  const home = tempDir();
  const cache = tempDir();
  const run = (nodeOptions?: string) =>
    spawnStor(['whoami'], {
      env: { STOR_HOME: home, XDG_CACHE_HOME: cache, ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}) },
    });
  return { codeCache: join(cache, 'stor', 'code-cache'), run };
}
const mode = (path: string) => statSync(path).mode & 0o777;

describe("the bundle's code cache", () => {
  it('is written owner-only under the cache directory, never beside the bundle, and serves the next command', async () => {
    const bundleBefore = readdirSync(BUNDLE_DIR, { recursive: true }).sort();
    const { codeCache, whoami } = setup();
    const first = await whoami();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe('');
    expect(mode(codeCache)).toBe(0o700);
    const [file, ...more] = cacheFiles(codeCache);
    expect(more).toEqual([]);
    expect(mode(join(codeCache, file!))).toBe(0o600);
    const written = readFileSync(join(codeCache, file!));
    const second = await whoami();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    // Accepted, so not written again.
    expect(readFileSync(join(codeCache, file!)).equals(written)).toBe(true);
    expect(readdirSync(BUNDLE_DIR, { recursive: true }).sort()).toEqual(bundleBefore);
  });

  it("a help-only run's cache is replaced by the first command's, once", async () => {
    const { cache, codeCache, whoami } = setup();
    const help = await spawnStor(['--help'], { env: { XDG_CACHE_HOME: cache } });
    expect(help.code, help.stderr).toBe(0);
    const [helpFile, ...more] = readdirSync(codeCache);
    expect(more).toEqual([]);
    expect(helpFile).toMatch(/\.v8\.help$/u);
    expect(mode(join(codeCache, helpFile!))).toBe(0o600);
    // Another help run uses it and leaves it.
    const helpCache = readFileSync(join(codeCache, helpFile!));
    expect((await spawnStor(['help', 'whoami'], { env: { XDG_CACHE_HOME: cache } })).code).toBe(0);
    expect(readFileSync(join(codeCache, helpFile!)).equals(helpCache)).toBe(true);
    const first = await whoami();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe('');
    expect(readdirSync(codeCache)).toEqual([helpFile!.replace(/\.help$/u, '')]);
    const [file] = cacheFiles(codeCache);
    const written = readFileSync(join(codeCache, file!));
    // The command's cache stays, through another command and another help.
    expect((await whoami()).stdout).toBe(first.stdout);
    expect((await spawnStor(['--help'], { env: { XDG_CACHE_HOME: cache } })).code).toBe(0);
    expect(readdirSync(codeCache)).toEqual([file!]);
    expect(readFileSync(join(codeCache, file!)).equals(written)).toBe(true);
  });

  it("holds each transport a command took: a remote command adds its own to the embedded one's cache, once", async () => {
    const server = await spawnServe(tempDir());
    try {
      const { cache, codeCache, whoami } = setup();
      const remote = () =>
        spawnStor(['whoami', '--json'], {
          env: {
            STOR_HOME: tempDir(),
            XDG_CACHE_HOME: cache,
            STOR_URL: server.baseUrl,
            STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
          },
        });
      const header = (bytes: Buffer) => bytes.subarray(0, 64).toString('latin1').trimEnd();
      expect((await whoami()).code).toBe(0);
      const [file, ...more] = cacheFiles(codeCache);
      expect(more).toEqual([]);
      const embeddedOnly = readFileSync(join(codeCache, file!));
      expect(header(embeddedOnly)).toBe('stor-code-cache 1 embedded');
      // The WebSocket client's functions were not in it: written again, with both.
      const first = await remote();
      expect(first.code, first.stderr).toBe(0);
      expect(cacheFiles(codeCache)).toEqual([file]);
      const both = readFileSync(join(codeCache, file!));
      expect(header(both)).toBe('stor-code-cache 1 embedded,ws');
      expect(both.length).toBeGreaterThan(embeddedOnly.length);
      // Both held now: neither kind of command writes it again.
      expect((await remote()).stdout).toBe(first.stdout);
      expect((await whoami()).code).toBe(0);
      expect(readFileSync(join(codeCache, file!)).equals(both)).toBe(true);
    } finally {
      await server.stop();
    }
  });

  it('a corrupt code cache is skipped silently and replaced', async () => {
    const { codeCache, whoami } = setup();
    const first = await whoami();
    const [file] = cacheFiles(codeCache);
    const garbage = Buffer.alloc(statSync(join(codeCache, file!)).size, 0x5a);
    writeFileSync(join(codeCache, file!), garbage);
    const after = await whoami();
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).toBe('');
    expect(after.stdout).toBe(first.stdout);
    expect(readFileSync(join(codeCache, file!)).equals(garbage)).toBe(false);
    // Truncated to nothing: the same.
    writeFileSync(join(codeCache, file!), '');
    const empty = await whoami();
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toBe(first.stdout);
    expect(statSync(join(codeCache, file!)).size).toBeGreaterThan(0);
  });

  it('a cache damaged behind its header, which stops V8 as it is read, stops one run at most: the next drops it and writes a new one', async () => {
    const { codeCache, whoami } = setup();
    const first = await whoami();
    const [file] = cacheFiles(codeCache);
    const path = join(codeCache, file!);
    // V8 checks the header (version, flags, source, length), not the bytes after it: 4 KiB of
    // zeros mid-file end Node 20 to 26 in a fatal error while `new Script` deserializes (exit 133).
    const damaged = readFileSync(path);
    damaged.fill(0, damaged.length >> 1, (damaged.length >> 1) + 4096);
    writeFileSync(path, damaged);
    const stopped = await whoami();
    if (stopped.code === 0) expect(stopped.stdout).toBe(first.stdout);
    const next = await whoami();
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toBe(first.stdout);
    expect(readFileSync(path).equals(damaged)).toBe(false);
    expect(readdirSync(codeCache).filter((f) => f.includes('.reading-'))).toEqual([]);
  });

  it("a marker of a run that stopped while reading the cache drops it; a running process's marker does not", async () => {
    const { codeCache, whoami } = setup();
    const first = await whoami();
    const [file] = cacheFiles(codeCache);
    const path = join(codeCache, file!);
    // A code path no run takes, named in the header (stor-code-cache 1 <paths>): a run that reads
    // the cache keeps the header's paths, and only a cache written anew lacks it.
    const cache = readFileSync(path);
    const header = cache.toString('latin1', 0, 63).trimEnd();
    cache.write(`${header},unused`.padEnd(63, ' '), 0, 'latin1');
    writeFileSync(path, cache);
    const named = () => readFileSync(path).toString('latin1', 0, 64).includes(',unused');
    // This test's own process is running: its marker is another run reading the cache now.
    const live = `${path}.reading-${process.pid}`;
    writeFileSync(live, '');
    expect((await whoami()).stdout).toBe(first.stdout);
    expect(readFileSync(path).equals(cache)).toBe(true);
    expect(existsSync(live)).toBe(true);
    // A process that has exited: it stopped while it read the cache, which is dropped and written anew.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const stale = `${path}.reading-${gone}`;
    writeFileSync(stale, '');
    expect(named()).toBe(true);
    const after = await whoami();
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toBe(first.stdout);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(named()).toBe(false);
  });

  it("another run's half-written cache or reading marker is left while young, removed once a week old", async () => {
    const { codeCache, whoami } = setup();
    const first = await whoami();
    const [file] = cacheFiles(codeCache);
    const path = join(codeCache, file!);
    // Another run of this build, writing its cache now and reading it: its files carry this run's name.
    const young = [`${path}.999999.tmp`, `${path}.reading-${process.pid}`];
    const old = [`${path}.999998.tmp`, `${path}.reading-${process.ppid}`];
    for (const f of [...young, ...old]) writeFileSync(f, '', { mode: 0o600 });
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000);
    for (const f of old) utimesSync(f, eightDaysAgo, eightDaysAgo);
    // This run's cache is written again (a rebuild would do the same): its clean-up runs.
    writeFileSync(path, '');
    const after = await whoami();
    expect(after.stdout).toBe(first.stdout);
    expect(statSync(path).size).toBeGreaterThan(0);
    expect(young.filter((f) => existsSync(f))).toEqual(young);
    expect(old.filter((f) => existsSync(f))).toEqual([]);
  });

  it('runs under other V8 flags keep a cache of their own instead of rewriting one in turn', async () => {
    const { codeCache, run } = underOptions();
    expect((await run()).code).toBe(0);
    const [plain] = cacheFiles(codeCache);
    const plainBytes = readFileSync(join(codeCache, plain!));
    // A flag V8 checks a cache against on every Node major (v8.cachedDataVersionTag() changes with
    // it on 20, 22, 24 and 26). --max-semi-space-size, say, counts on Node 20 and 22 but not on
    // 24 and 26, where such a run rightly shares the cache.
    expect((await run('--expose-gc')).code).toBe(0);
    expect((await run()).code).toBe(0);
    expect(cacheFiles(codeCache)).toHaveLength(2);
    expect(readFileSync(join(codeCache, plain!)).equals(plainBytes)).toBe(true);
  });

  it('a Node option that changes no code shares the cache of a run without it', async () => {
    const { codeCache, run } = underOptions();
    expect((await run()).code).toBe(0);
    const [plain] = cacheFiles(codeCache);
    const plainBytes = readFileSync(join(codeCache, plain!));
    // Node's own options, not V8's: the cache V8 accepts under them is the same one.
    const other = await run('--no-deprecation --use-openssl-ca');
    expect(other.code, other.stderr).toBe(0);
    expect(cacheFiles(codeCache)).toEqual([plain]);
    expect(readFileSync(join(codeCache, plain!)).equals(plainBytes)).toBe(true);
  });

  it('an upload, which changes V8 flags as it runs, leaves no cache the next command would reject', async () => {
    const server = await spawnServe(tempDir());
    try {
      const cache = tempDir();
      const codeCache = join(cache, 'stor', 'code-cache');
      const env = {
        STOR_HOME: tempDir(),
        XDG_CACHE_HOME: cache,
        STOR_SESSION: 'off',
        STOR_URL: server.baseUrl,
        STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
      };
      const src = join(tempDir(), 'f.txt');
      writeFileSync(src, 'x');
      const upload = await spawnStor(['upload', src, '/mnt/tank/f.txt'], { env });
      expect(upload.code, upload.stderr).toBe(0);
      const after = existsSync(codeCache) ? cacheFiles(codeCache) : [];
      const inodes = after.map((f) => statSync(join(codeCache, f)).ino);
      // What the upload left, if anything, V8 accepts: the next command does not replace it.
      expect((await spawnStor(['whoami'], { env })).code).toBe(0);
      for (const [i, f] of after.entries()) expect(statSync(join(codeCache, f)).ino).toBe(inodes[i]);
    } finally {
      await server.stop();
    }
  });

  it('two installed copies of stor run in turn keep a cache each, and a cache unused for a week is removed', async () => {
    const home = tempDir();
    const cache = tempDir();
    const codeCache = join(cache, 'stor', 'code-cache');
    // A second copy of this build elsewhere, as a second install would be.
    const copy = tempDir();
    cpSync(join(ROOT, 'bin'), join(copy, 'bin'), { recursive: true });
    cpSync(BUNDLE_DIR, join(copy, 'dist', 'bundle'), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(copy, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      STOR_SESSION: 'off',
      ...EMBEDDED_MEANT,
      STOR_HOME: home,
      XDG_CACHE_HOME: cache,
    };
    const run = (bin: string) => spawnSync(process.execPath, [bin, 'whoami'], { env, encoding: 'utf8' });
    expect(run(STOR_BIN).status).toBe(0);
    const [first] = cacheFiles(codeCache);
    const firstBytes = readFileSync(join(codeCache, first!));
    mkdirSync(codeCache, { recursive: true });
    const stale = join(codeCache, 'bundle-0000000000000000-v0-x64-00000000-00000000-1-1-1.v8');
    const recent = join(codeCache, 'bundle-1111111111111111-v0-x64-00000000-00000000-1-1-1.v8');
    writeFileSync(stale, 'old', { mode: 0o600 });
    writeFileSync(recent, 'recent', { mode: 0o600 });
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000);
    utimesSync(stale, eightDaysAgo, eightDaysAgo);
    expect(run(join(copy, 'bin', 'stor.js')).status).toBe(0);
    expect(run(STOR_BIN).status).toBe(0);
    expect(readFileSync(join(codeCache, first!)).equals(firstBytes)).toBe(true);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(recent)).toBe(true);
    expect(cacheFiles(codeCache)).toHaveLength(3);
  });

  it('a code cache that cannot be written is skipped silently', async () => {
    const home = tempDir();
    // The cache directory's place is taken by a file: nothing can be made there.
    const blocked = join(tempDir(), 'not-a-directory');
    writeFileSync(blocked, '');
    const r = await spawnStor(['whoami', '--json'], { env: { STOR_HOME: home, XDG_CACHE_HOME: blocked } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).username).toBe('truenas_admin');
  });

  // Only root can give a directory to another uid here (chown).
  it.skipIf(process.getuid?.() !== 0)(
    "a cache directory to be made in another user's directory is not made; in a sticky one (/tmp) it is",
    async () => {
      const home = tempDir();
      const theirs = tempDir();
      chownSync(theirs, OTHER_UID, OTHER_UID);
      chmodSync(theirs, 0o777);
      const run = (cache: string) =>
        spawnStor(['whoami', '--json'], { env: { STOR_HOME: home, XDG_CACHE_HOME: cache } });
      const r = await run(join(theirs, 'cache'));
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout).username).toBe('truenas_admin');
      // Nor Node's compile cache (Node 22 and later), which is made beside the code cache.
      expect(readdirSync(theirs)).toEqual([]);
      chmodSync(theirs, 0o1777);
      expect((await run(join(theirs, 'cache'))).code).toBe(0);
      expect(cacheFiles(join(theirs, 'cache', 'stor', 'code-cache'))).toHaveLength(1);
    },
  );

  // Only root can give a directory to another uid here (chown).
  it.skipIf(process.getuid?.() !== 0)(
    "cache directories that exist and are another user's (open to all) get nothing written in them",
    async () => {
      const home = tempDir();
      const theirs = tempDir();
      for (const d of ['code-cache', 'compile-cache']) mkdirSync(join(theirs, 'stor', d), { recursive: true });
      for (const d of ['', 'stor', 'stor/code-cache', 'stor/compile-cache']) {
        chownSync(join(theirs, d), OTHER_UID, OTHER_UID);
        chmodSync(join(theirs, d), 0o777);
      }
      const r = await spawnStor(['whoami', '--json'], { env: { STOR_HOME: home, XDG_CACHE_HOME: theirs } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout).username).toBe('truenas_admin');
      // Node's compile cache (Node 22 and later) would have written its directory in theirs.
      expect(readdirSync(join(theirs, 'stor', 'compile-cache'))).toEqual([]);
      expect(readdirSync(join(theirs, 'stor', 'code-cache'))).toEqual([]);
    },
  );

  // A directory this user may not search: only root can run a process as another uid here.
  it.skipIf(otherUserUnavailable() !== undefined)(
    'a cache directory behind a directory the user may not search is done without, inside HOME or outside it',
    async () => {
      const home = otherUsersDir();
      // Root's, 0700: the other uid can neither search it nor look at what lies behind it.
      const locked = tempDir();
      chmodSync(locked, 0o700);
      const lockedInHome = join(home, 'locked');
      mkdirSync(lockedInHome, { mode: 0o700 });
      for (const cache of [join(locked, 'cache'), join(lockedInHome, 'cache')]) {
        const r = await storAsOther(['whoami', '--json'], {
          HOME: home,
          STOR_HOME: join(home, 'state'),
          XDG_CACHE_HOME: cache,
          STOR_SESSION: 'off',
        });
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toBe('');
        expect(JSON.parse(r.stdout).username).toBe('truenas_admin');
      }
    },
  );

  it('a code cache directory open to others is neither read, written nor repaired', async () => {
    const { codeCache, whoami } = setup();
    mkdirSync(codeCache, { recursive: true });
    chmodSync(codeCache, 0o777);
    const r = await whoami();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(cacheFiles(codeCache)).toEqual([]);
    expect(mode(codeCache)).toBe(0o777);
  });
});
