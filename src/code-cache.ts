import {
  closeSync,
  fstatSync,
  futimesSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { cachedDataVersionTag } from 'node:v8';
import { Script } from 'node:vm';
import { CODE_PATH_EVENT, type CodePath } from './core/code-path.js';
import { cacheDirFrom, madeInOthersDir, othersInHome } from './core/config/paths.js';
import { BUILD_ID, ensurePrivateDir } from './core/session/paths.js';

/*
 * Compiling the ES module chunks a command loads was the largest cost of its start after the key
 * check: Node 20 has no compile cache for modules, and Node ≥ 22.1's (module.enableCompileCache)
 * still resolves and links every chunk. So on every major the CLI is run from a single CommonJS bundle (dist/bundle/stor.cjs, built beside the ES
 * modules by scripts/bundle.mjs) compiled with vm.Script and V8's code cache, kept in
 * `<cache dir>/code-cache/` (cacheDirFrom: `$XDG_CACHE_HOME/stor`, never the source tree).
 *
 * V8 runs the bytecode a cache holds, so the cache is read only from a directory this user owns
 * with no access for anyone else (0700, made so when missing; otherwise refused, never repaired),
 * and named after the build, the Node version and the bundle file's identity: another build's or
 * another Node's cache is never offered. V8 itself rejects a cache made by another V8 or with other
 * flags, or that fails its sanity check; a rejected, unreadable or unwritable cache costs only the
 * compile it would have saved, silently.
 */

/** FNV-1a, 32 bits: a short, stable name for a string; no secret is hashed here. */
function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/**
 * The cache file for this bundle, as read from `st`: another build, Node or bundle file never
 * matches. V8's flags and the bundle's path are part of the name too: V8 rejects a cache made
 * under other V8 flags, so runs with and without (say) `--expose-gc`, or two installed
 * copies of one build, would otherwise rewrite one file in turn. Only the flags V8 checks count
 * (`v8.cachedDataVersionTag()`: its version, the flags that change code, the CPU's features):
 * Node's own options (`--cpu-prof`, `--no-deprecation`, `--use-openssl-ca`) change no code and
 * share the cache of a run without them.
 */
function cacheFileFor(dir: string, bundle: string, st: { ino: number; size: number; mtimeMs: number }): string {
  return join(dir, `${runPrefix(bundle)}${st.ino}-${st.size}-${Math.trunc(st.mtimeMs)}.v8`);
}

/** This build, Node, flags and bundle path: the part of the name that the bundle file's identity follows. */
function runPrefix(bundle: string): string {
  const flags = cachedDataVersionTag().toString(16).padStart(8, '0');
  return `bundle-${BUILD_ID}-${process.version}-${process.arch}-${flags}-${shortHash(bundle)}-`;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** A cache no run has used for this long belongs to a build or Node no longer run: removed. */
const UNUSED_MS = 7 * DAY_MS;

/**
 * A regular file of this user's, read whole; undefined when absent or anything else. Its
 * modification time is moved to now at most once a day, so that it says when it was last used.
 */
function readOwnFile(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || (process.getuid !== undefined && st.uid !== process.getuid()) || (st.mode & 0o022) !== 0)
      return undefined;
    const buf = Buffer.allocUnsafe(st.size);
    let length = 0;
    while (length < buf.length) {
      const n = readSync(fd, buf, length, buf.length - length, null);
      if (n === 0) break;
      length += n;
    }
    if (Date.now() - st.mtimeMs > DAY_MS) futimesSync(fd, new Date(), new Date());
    return buf.subarray(0, length);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/*
 * V8 checks a cache's header (its version, flags, source and length) but, in Node's release builds,
 * not the bytes after it: a cache damaged on disk behind an intact header can stop the process in a
 * V8 fatal error while `new Script` deserializes it (exit 133), and so every run after it. So while
 * this run deserializes a cache, a marker named after its process stands beside it, and a run that
 * finds a marker whose process is gone takes it for such a stop and removes the cache: that run
 * compiles without one and writes a new one. A run killed in those few milliseconds costs the next
 * one a compile, nothing more.
 */
const READING = '.reading-';

/** True when a marker beside `file` (or its help-only twin) names a process that is gone; such markers are removed. */
function stoppedWhileReading(dir: string, file: string): boolean {
  const prefix = file.slice(dir.length + 1);
  let stopped = false;
  for (const name of readdirSync(dir)) {
    const at = name.indexOf(READING);
    if (at === -1 || !name.startsWith(prefix)) continue;
    const pid = Number(name.slice(at + READING.length));
    if (Number.isInteger(pid) && pid > 0 && processExists(pid)) continue;
    stopped = true;
    unlinkSync(join(dir, name));
  }
  return stopped;
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the file if it is there. */
function removeIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

/**
 * Writes the cache whole or not at all, and drops the caches no run will ask for again: this
 * run's kind for an earlier file at the same path (a rebuild), and any unused for a week. Other
 * builds', Nodes', flags' or paths' caches stay while in use: two versions of stor run in turn
 * must not delete each other's at every run.
 */
function writeCache(dir: string, file: string, data: Buffer, run: string): void {
  try {
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, data, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, file);
    const now = Date.now();
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (!name.startsWith('bundle-') || path === file) continue;
      // Another run's marker or half-written cache may be in use now: removed only when old.
      const inUse = name.includes(READING) || name.endsWith('.tmp');
      if ((name.startsWith(run) && !inUse) || now - statSync(path).mtimeMs > UNUSED_MS) unlinkSync(path);
    }
  } catch {
    // A cache not written is compiled again next time.
  }
}

type Main = () => Promise<void>;

/**
 * A cache written by a run that showed help only: it holds the help's functions and none of a
 * command's (the appliance's, a transport's), which every later command then compiles again; a
 * whoami on such a cache cost 18% more CPU (bench/HISTORY.md). It is kept under a name of its own,
 * read when there is no other, and the first command run on it writes the cache of its own, once.
 */
const HELP_ONLY = '.help';

/*
 * Code paths. V8 keeps in a cache the functions the run that wrote it compiled, and a later run
 * compiles the rest without one. A cache written by an embedded command holds the appliance but
 * not the WebSocket client, and the other way round: a cold remote `whoami` on the embedded one's
 * cache cost ~14 ms more CPU (149 against 163 ms, bench/HISTORY.md "the code cache holds every
 * transport a command took"). So the file says which transports (core/code-path.ts) the runs
 * that wrote it took, in a header before V8's data, and the first run that takes another writes
 * it again as it exits: V8's new data then holds the functions it read from the cache and the
 * ones this run compiled, both paths. At most one rewrite per path, per build and Node.
 */

/** The header's start: `stor-code-cache 1 ws,embedded`, padded with spaces to HEADER_BYTES, then a newline. */
const HEADER_TAG = 'stor-code-cache 1 ';
/** A multiple of 8: V8's data after it stays aligned as read, and V8 need not copy it. */
const HEADER_BYTES = 64;

/** The code paths a file's header names, and V8's data after it; undefined when it has no such header. */
function parseCacheFile(buf: Buffer): { paths: Set<string>; data: Buffer } | undefined {
  if (buf.length <= HEADER_BYTES || buf[HEADER_BYTES - 1] !== 0x0a) return undefined;
  const header = buf.toString('latin1', 0, HEADER_BYTES - 1);
  if (!header.startsWith(HEADER_TAG)) return undefined;
  const list = header.slice(HEADER_TAG.length).trim();
  return { paths: new Set(list === '' ? [] : list.split(',')), data: buf.subarray(HEADER_BYTES) };
}

function cacheFile(paths: Iterable<string>, data: Buffer): Buffer {
  const header = `${HEADER_TAG}${[...paths].sort().join(',')}`.padEnd(HEADER_BYTES - 1, ' ');
  return Buffer.concat([Buffer.from(`${header.slice(0, HEADER_BYTES - 1)}\n`, 'latin1'), data]);
}

/**
 * Compiles and runs the CommonJS bundle at `bundle` with the code cache, and returns its `main`.
 * A cache is written (when there was none, V8 rejected it, a help-only run wrote it and this run
 * is a command's: `helpOnly` false, or this command took a code path the cache does not hold) as
 * the process exits, so it holds the functions this command compiled, not only the bundle's top
 * level.
 */
export function loadWithCodeCache(bundle: string, env: NodeJS.ProcessEnv, helpOnly = false): Main {
  const fd = openSync(bundle, 'r');
  let source: string;
  let st;
  try {
    st = fstatSync(fd);
    // esbuild writes ASCII (charset 'ascii'): latin1 is the cheapest exact decoding.
    source = readFileSync(fd, 'latin1');
  } finally {
    closeSync(fd);
  }
  let dir: string | undefined = join(cacheDirFrom(env), 'code-cache');
  try {
    // In another user's home (root with their HOME), or where making it would add an entry to
    // another user's directory (XDG_CACHE_HOME there): no cache rather than one of ours in theirs.
    if (othersInHome(dir, env) !== undefined || madeInOthersDir(dir) || ensurePrivateDir(dir) !== undefined)
      dir = undefined;
  } catch {
    dir = undefined;
  }
  const file = dir === undefined ? undefined : cacheFileFor(dir, bundle, st);
  const read = (path: string) => {
    const buf = readOwnFile(path);
    return buf === undefined ? undefined : parseCacheFile(buf);
  };
  if (dir !== undefined && file !== undefined) {
    try {
      if (stoppedWhileReading(dir, file)) {
        removeIfThere(file);
        removeIfThere(`${file}${HELP_ONLY}`);
      }
    } catch {
      // Unlisted or unremovable: read as it is.
    }
  }
  let cached = file === undefined ? undefined : read(file);
  let fromHelpOnly = false;
  if (file !== undefined && cached === undefined) {
    cached = read(`${file}${HELP_ONLY}`);
    fromHelpOnly = cached !== undefined;
  }
  const cachedData = cached?.data;
  let marker: string | undefined;
  if (cachedData !== undefined) {
    try {
      writeFileSync((marker = `${file}${READING}${process.pid}`), '', { mode: 0o600, flag: 'wx' });
    } catch {
      marker = undefined;
    }
  }
  // The module wrapper Node gives CommonJS files; strict, as the ES modules it was bundled from are.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {'use strict';${source}\n})`, {
    filename: bundle,
    ...(cachedData ? { cachedData } : {}),
  });
  if (marker !== undefined) removeIfThere(marker);
  const rewrite = cachedData === undefined || script.cachedDataRejected || (fromHelpOnly && !helpOnly);
  if (dir !== undefined && file !== undefined) {
    const prefix = runPrefix(bundle);
    // What the cache holds and this run keeps (V8 keeps what it read unless it rejected it).
    const held = new Set<string>(rewrite ? [] : cached!.paths);
    const taken = new Set<CodePath>();
    process.on(CODE_PATH_EVENT, (path: CodePath) => taken.add(path));
    // A help-only run's cache goes under a name of its own; a command's replaces it (writeCache
    // removes the other files of this run's kind).
    const target = helpOnly ? `${file}${HELP_ONLY}` : file;
    // A command may change V8's flags as it runs (src/core/transport/upload-client.ts sets
    // --liftoff-only): a cache made after that carries other flags, and the next run, started
    // without them, would reject it. None is written then; the next command writes one.
    process.once('exit', () => {
      const newPath = [...taken].some((p) => !held.has(p));
      if (!rewrite && !newPath) return;
      if (runPrefix(bundle) === prefix)
        writeCache(dir, target, cacheFile(new Set([...held, ...taken]), script.createCachedData()), prefix);
    });
  }
  const module = { exports: {} as { main?: Main } };
  (script.runInThisContext() as (...args: unknown[]) => void).call(
    module.exports,
    module.exports,
    createRequire(bundle),
    module,
    bundle,
    dirname(bundle),
  );
  return module.exports.main!;
}
