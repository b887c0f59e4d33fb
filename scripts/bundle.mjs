// Bundles the CLI for start-up speed: one module graph instead of hundreds of files to resolve.
// Lazily imported commands stay lazy as separate chunks. SQLite's native binding is loaded at run time
// (src/core/store/sqlite.ts: node:sqlite, or better-sqlite3 where Node lacks it), outside the bundle.
import { readdirSync, renameSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { currentBuildId } from './build-id.mjs';
import firstStageSources from './first-stage-sources.cjs';

// Which build this is (scripts/build-id.mjs).
const buildId = currentBuildId();

// Built beside dist/bundle, then swapped in by rename: a stor started during a build finds the
// old bundle or the new one, never a half-written or missing one (bin/stor.js loads
// dist/bundle/first-stage.cjs). A fresh directory each time: chunk names carry content hashes,
// and without a clean start chunks of earlier builds pile up.
const out = `dist/bundle.${process.pid}.tmp`;
rmSync(out, { recursive: true, force: true });

const common = {
  define: { __STOR_BUILD__: JSON.stringify(buildId) },
  bundle: true,
  platform: 'node',
  target: 'node20',
  external: ['better-sqlite3'],
  logLevel: 'warning',
};

// `undici` as src/ imports it: scripts/undici-entry.cjs, the three names stor uses built as the
// package's index builds them, without the fetch, WebSocket, cache and mock code its index loads.
const UNDICI_ENTRY = fileURLToPath(new URL('./undici-entry.cjs', import.meta.url));
const undiciSlim = {
  name: 'stor-undici-slim',
  setup(b) {
    b.onResolve({ filter: /^undici$/ }, (args) =>
      args.importer.includes('/node_modules/') ? undefined : { path: UNDICI_ENTRY },
    );
  },
};

// Every value src/ imports from `undici` must be one the entry exports: esbuild cannot tell for a
// CommonJS module, and a missing name would be undefined only when an upload or download runs.
{
  const exported = new Set(Object.keys(createRequire(import.meta.url)(UNDICI_ENTRY)));
  const srcDir = fileURLToPath(new URL('../src/', import.meta.url));
  for (const file of readdirSync(srcDir, { recursive: true }).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(join(srcDir, file), 'utf8');
    for (const [, names] of text.matchAll(/^import \{([^}]*)\} from 'undici';/gmu))
      for (const name of names.split(',').map((n) => n.trim()))
        if (name && !name.startsWith('type ') && !exported.has(name))
          throw new Error(`src/${file} imports ${name} from undici, which scripts/undici-entry.cjs does not export`);
  }
}

// stor: the full CLI as ES modules (the first stage's fallback on a lost
// agent reports through it); agent: the session agent's process (src/agent-entry.ts).
await build({
  ...common,
  plugins: [undiciSlim],
  entryPoints: { stor: 'src/bin-entry.ts', agent: 'src/agent-entry.ts' },
  outdir: out,
  splitting: true,
  format: 'esm',
  // Bundled CommonJS dependencies call require() for Node built-ins.
  banner: {
    js: "import { createRequire as __storRequire } from 'node:module'; const require = __storRequire(import.meta.url);",
  },
  chunkNames: 'chunks/[name]-[hash]',
});

// What bin/stor.js loads first: the first stage (src/first-stage.ts, docs/SESSIONS.md), which hands
// the command to the session agent, and only when it cannot, start.cjs (src/start.ts), which loads
// the CLI into this process. Each one CommonJS file of its own, not split into chunks shared with
// the CLI, and no ES module, so Node starts no module loader before they run.
const firstStage = await build({
  ...common,
  entryPoints: { 'first-stage': 'src/first-stage.ts' },
  outfile: `${out}/first-stage.cjs`,
  format: 'cjs',
  metafile: true,
  define: { ...common.define, 'import.meta.url': '__storModuleUrl' },
  banner: { js: "const __storModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
});
// The first stage must start in a few milliseconds over bare Node: only its sources (scripts/first-stage-sources.cjs,
// which .dependency-cruiser.cjs's first-stage-bare rule reads too) may be in it.
const FIRST_STAGE_SOURCES = new Set(firstStageSources);
const heavy = Object.values(firstStage.metafile.outputs)
  .flatMap((o) => Object.keys(o.inputs))
  .filter((input) => !FIRST_STAGE_SOURCES.has(input));
if (heavy.length > 0) throw new Error(`the first stage (bin/stor.js) would load more than it may: ${heavy.join(', ')}`);

// start.cjs (src/start.ts): one CommonJS file of its own, not split into chunks
// shared with the CLI, and no ES module, so Node starts no module loader before it runs.
await build({
  ...common,
  entryPoints: { start: 'src/start.ts' },
  outfile: `${out}/start.cjs`,
  format: 'cjs',
  define: { ...common.define, 'import.meta.url': '__storModuleUrl' },
  banner: { js: "const __storModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
});

// Packages that only some commands run, each its own CommonJS file (dist/bundle/vendor/<name>.cjs),
// which stor.cjs requires where the importing module is first run: undici (uploads, downloads, HTTP
// RPC), form-data, busboy (the emulator's uploads), yaml (state files, profile import), conf (saved
// profiles) and @inquirer/prompts (questions). Together more than
// half of the one bundle: a command that runs none of them no longer reads, decodes and holds them
// at every start (docs/ARCHITECTURE.md, "Layout"). Only imports from src/ are redirected; a package
// none of these pull in stays in stor.cjs.
const VENDOR = ['undici', 'form-data', 'busboy', 'yaml', 'conf', '@inquirer/prompts'];
const vendorFile = (name) => `vendor/${name.replace('/', '+')}.cjs`;
const cjsDefine = { ...common.define, 'import.meta.url': '__storModuleUrl' };
const cjsBanner = { js: "const __storModuleUrl = require('node:url').pathToFileURL(__filename).href;" };
const vendorExternal = {
  name: 'stor-vendor',
  setup(b) {
    const names = new RegExp(`^(${VENDOR.map((n) => n.replace(/[/.]/g, '\\$&')).join('|')})$`);
    b.onResolve({ filter: names }, (args) => {
      if (args.importer.includes('/node_modules/')) return undefined;
      // esbuild leaves an external `import()` as it is, which the code-cached stor.cjs (a vm.Script)
      // cannot run: a dynamic import goes through a module of its own that requires the file.
      if (args.kind === 'dynamic-import') return { path: args.path, namespace: 'stor-vendor' };
      return { path: `./${vendorFile(args.path)}`, external: true };
    });
    b.onResolve({ filter: /^\.\/vendor\//, namespace: 'stor-vendor' }, (args) => ({ path: args.path, external: true }));
    b.onLoad({ filter: /.*/, namespace: 'stor-vendor' }, (args) => {
      const file = JSON.stringify(`./${vendorFile(args.path)}`);
      return { contents: `export * from ${file};\nexport { default } from ${file};\n`, loader: 'js' };
    });
  },
};
for (const name of VENDOR) {
  await build({
    ...common,
    entryPoints: [name === 'undici' ? UNDICI_ENTRY : name],
    outfile: `${out}/${vendorFile(name)}`,
    format: 'cjs',
    define: cjsDefine,
    banner: cjsBanner,
  });
}

// The same CLI as one CommonJS file, which start.cjs runs on every Node major (faster than the ES
// modules even with Node ≥ 22's compile cache):
// src/code-cache.ts runs it with V8's code cache. ASCII only, so it is read as latin1 (a few ms,
// where UTF-8 costs 15 and makes V8 hold it as two-byte text).
const cjs = `${out}/stor.cjs`;
// Node built-ins that only some commands use, and that cost a command milliseconds to load that
// most commands do not need (node:crypto alone loads some fifty of Node's internal modules): in
// stor.cjs each is required where a property of it is first read, not where the module importing
// it is first run. esbuild turns an import of a built-in into `import_x = require("node:x")` in
// that module's init and reads `import_x.name` at each use, so a stand-in whose reads load the
// built-in changes nothing but when it loads. Built-ins Node has loaded before any of stor runs
// (fs, path, events, util, url, buffer), or that every command loads anyway (tty and net through
// chalk's colour check and io.ts, stream through process.stdout), stay plain requires.
const LAZY_BUILTINS = [
  'child_process',
  'crypto',
  'dgram',
  'dns',
  'fs/promises',
  'http',
  'http2',
  'https',
  'perf_hooks',
  'querystring',
  'readline',
  'stream/promises',
  'tls',
  'worker_threads',
  'zlib',
];
const lazyRequire = new RegExp(`\\brequire\\("(?:node:)?(${LAZY_BUILTINS.join('|')})"\\)`, 'gu');
// Every trap reads the built-in itself: its own properties, getters and prototype as they are.
const lazyBanner = `const __storLazyBuiltin = (name) => {
  let m;
  const load = () => (m ??= require(name));
  return new Proxy({}, {
    get: (_, k) => load()[k],
    set: (_, k, v) => ((load()[k] = v), true),
    has: (_, k) => k in load(),
    ownKeys: () => Reflect.ownKeys(load()),
    getOwnPropertyDescriptor: (_, k) => {
      const d = Reflect.getOwnPropertyDescriptor(load(), k);
      return d && { ...d, configurable: true };
    },
    defineProperty: (_, k, d) => Reflect.defineProperty(load(), k, d),
    deleteProperty: (_, k) => Reflect.deleteProperty(load(), k),
    getPrototypeOf: () => Reflect.getPrototypeOf(load()),
  });
};`;
// Two things ws does at its top that a cold command paid for before its login frame could leave:
// - it loads node:crypto (its package entry loads the server too) for a random Sec-WebSocket-Key,
//   random frame masks and a SHA-1 of the key for Sec-WebSocket-Accept: some fifty internal
//   modules, ~9 ms of CPU on Node 24. In stor.cjs ws's files get src/core/transport/light-crypto.ts
//   instead (the kernel's random device, @noble/hashes' SHA-1, node:crypto where the device is missing
//   or for any other hash).
// - on a Node whose http has no websocketMask (all up to 24), it tries `require('bufferutil')`, an
//   optional native package stor does not depend on: a failed resolution through every
//   node_modules up the tree, ~2-3 ms. In stor.cjs that require fails at once, as it fails
//   wherever stor is installed on its own; ws then masks in JavaScript, as it always did there.
const LIGHT_CRYPTO = fileURLToPath(new URL('../src/core/transport/light-crypto.ts', import.meta.url));
const wsRedirected = new Set();
const wsLight = {
  name: 'stor-ws-light',
  setup(b) {
    const wsFile = (importer) => /[\\/]node_modules[\\/]ws[\\/]lib[\\/]([\w-]+)\.js$/.exec(importer)?.[1];
    b.onResolve({ filter: /^(node:)?crypto$/ }, (args) => {
      const file = wsFile(args.importer);
      if (file === undefined) return undefined;
      wsRedirected.add(`${file}: crypto`);
      return { path: LIGHT_CRYPTO };
    });
    b.onResolve({ filter: /^bufferutil$/ }, (args) => {
      const file = wsFile(args.importer);
      if (file === undefined) return undefined;
      wsRedirected.add(`${file}: bufferutil`);
      return { path: 'bufferutil', namespace: 'stor-not-bundled' };
    });
    b.onLoad({ filter: /.*/, namespace: 'stor-not-bundled' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} is not part of stor (scripts/bundle.mjs)`)});\n`,
      loader: 'js',
    }));
  },
};
await build({
  ...common,
  entryPoints: { stor: 'src/bin-entry.ts' },
  outfile: cjs,
  format: 'cjs',
  charset: 'ascii',
  plugins: [vendorExternal, wsLight],
  define: cjsDefine,
  banner: { js: `${cjsBanner.js}\n${lazyBanner}` },
});
// The requires known to be there: another list means ws changed, and what it takes is to look at.
const wsFound = [...wsRedirected].sort().join(', ');
const wsExpected = 'buffer-util: bufferutil, sender: crypto, websocket-server: crypto, websocket: crypto';
if (wsFound !== wsExpected)
  throw new Error(`stor.cjs: ws's redirected requires are ${wsFound || 'none'}, not ${wsExpected}`);
// charset 'ascii' escapes strings, templates and regular expressions; comments keep their text,
// where an escape is as readable.
const text = readFileSync(cjs, 'utf8');
let lazyRequires = 0;
writeFileSync(
  cjs,
  text
    .replace(/[^\x00-\x7f]/gu, (c) => `\\u{${c.codePointAt(0).toString(16)}}`)
    .replace(lazyRequire, (_, name) => {
      lazyRequires++;
      return `__storLazyBuiltin("node:${name}")`;
    }),
);
// The stand-in is put where esbuild wrote a require: none found means esbuild writes them otherwise now.
if (lazyRequires === 0) throw new Error('stor.cjs: no require of a built-in to load at its first use was found');

// Which build this is, for whoever must find this build's agent socket from outside the bundle.
writeFileSync(`${out}/build-id`, `${buildId}\n`);

// Two renames, the old bundle out of the way and the new one in: the name is missing only between
// them (rename(2) cannot replace a directory that has files). The old one is removed after.
const old = `dist/bundle.${process.pid}.old`;
try {
  renameSync('dist/bundle', old);
} catch (err) {
  if (err.code !== 'ENOENT') throw err;
}
renameSync(out, 'dist/bundle');
rmSync(old, { recursive: true, force: true });
