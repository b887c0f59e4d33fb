// Bundles the CLI for start-up speed: one module graph instead of hundreds of files to resolve.
// Lazily imported commands stay lazy as separate chunks. SQLite's native binding is loaded at run time
// (src/core/store/sqlite.ts: node:sqlite, or better-sqlite3 where Node lacks it), outside the bundle.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

// Which build this is (src/core/session/paths.ts): a hash of the sources and the package, so a
// command is never handed to a session agent started from other code.
const hash = createHash('sha256');
const files = readdirSync('src', { recursive: true }).map(String).filter((f) => f.endsWith('.ts')).sort();
for (const f of [...files.map((f) => join('src', f)), 'package.json']) hash.update(f).update('\0').update(readFileSync(f)).update('\0');
const buildId = hash.digest('hex').slice(0, 16);

// Chunk names carry content hashes: without a clean start, chunks of earlier builds pile up.
rmSync('dist/bundle', { recursive: true, force: true });

const common = {
  define: { __STOR_BUILD__: JSON.stringify(buildId) },
  bundle: true,
  platform: 'node',
  target: 'node20',
  external: ['better-sqlite3'],
  logLevel: 'warning',
};

// stor: the full CLI as ES modules (the first stage's fallback on a lost
// agent reports through it); agent: the session agent's process (src/agent-entry.ts).
await build({
  ...common,
  entryPoints: { stor: 'src/bin-entry.ts', agent: 'src/agent-entry.ts' },
  outdir: 'dist/bundle',
  splitting: true,
  format: 'esm',
  // Bundled CommonJS dependencies call require() for Node built-ins.
  banner: { js: "import { createRequire as __storRequire } from 'node:module'; const require = __storRequire(import.meta.url);" },
  chunkNames: 'chunks/[name]-[hash]',
});

// What bin/stor.js loads first: the first stage (src/first-stage.ts, docs/SESSIONS.md), which hands
// the command to the session agent, and only when it cannot, start.cjs (src/start.ts), which loads
// the CLI into this process. Each one CommonJS file of its own, not split into chunks shared with
// the CLI, and no ES module, so Node starts no module loader before they run.
const firstStage = await build({
  ...common,
  entryPoints: { 'first-stage': 'src/first-stage.ts' },
  outfile: 'dist/bundle/first-stage.cjs',
  format: 'cjs',
  metafile: true,
  define: { ...common.define, 'import.meta.url': '__storModuleUrl' },
  banner: { js: "const __storModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
});
// The first stage must start in a few milliseconds over bare Node: only these sources may be in it.
const FIRST_STAGE_SOURCES = new Set(['src/first-stage.ts', 'src/core/session/paths.ts', 'src/core/session/setting.ts', 'src/core/session/protocol.ts', 'src/core/session/start-agent.ts', 'src/core/session/process-env.ts', 'src/commands/shared/command-line.ts', 'src/commands/shared/global-options.ts', 'src/commands/shared/option-specs.ts', 'src/commands/shared/arg-parsers.ts']);
const heavy = Object.values(firstStage.metafile.outputs).flatMap((o) => Object.keys(o.inputs)).filter((input) => !FIRST_STAGE_SOURCES.has(input));
if (heavy.length > 0) throw new Error(`the first stage (bin/stor.js) would load more than it may: ${heavy.join(', ')}`);

// start.cjs (src/start.ts): one CommonJS file of its own, not split into chunks
// shared with the CLI, and no ES module, so Node starts no module loader before it runs.
await build({
  ...common,
  entryPoints: { start: 'src/start.ts' },
  outfile: 'dist/bundle/start.cjs',
  format: 'cjs',
  define: { ...common.define, 'import.meta.url': '__storModuleUrl' },
  banner: { js: "const __storModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
});

// The same CLI as one CommonJS file, which start.cjs runs on every Node major (faster than the ES
// modules even with Node ≥ 22's compile cache):
// src/code-cache.ts runs it with V8's code cache. ASCII only, so it is read as latin1 (a few ms,
// where UTF-8 costs 15 and makes V8 hold it as two-byte text).
const cjs = 'dist/bundle/stor.cjs';
await build({
  ...common,
  entryPoints: { stor: 'src/bin-entry.ts' },
  outfile: cjs,
  format: 'cjs',
  charset: 'ascii',
  define: { ...common.define, 'import.meta.url': '__storModuleUrl' },
  banner: { js: "const __storModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
});
// charset 'ascii' escapes strings, templates and regular expressions; comments keep their text,
// where an escape is as readable.
const text = readFileSync(cjs, 'utf8');
writeFileSync(cjs, text.replace(/[^\x00-\x7f]/gu, (c) => `\\u{${c.codePointAt(0).toString(16)}}`));

// Which build this is, for whoever must find this build's agent socket from outside the bundle.
writeFileSync('dist/bundle/build-id', `${buildId}\n`);
