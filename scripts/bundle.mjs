// Bundles the CLI for start-up speed: one module graph instead of hundreds of files to resolve.
// Lazily imported commands stay lazy as separate chunks. SQLite's native binding is loaded at run time
// (src/core/store/sqlite.ts picks the better-sqlite3 build for the runtime), outside the bundle.
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

const result = await build({
  // first-stage: what bin/stor.js loads (src/first-stage.ts); stor: the full CLI it falls back to;
  // agent: the session agent's process (src/agent-entry.ts).
  entryPoints: { stor: 'src/bin-entry.ts', 'first-stage': 'src/first-stage.ts', agent: 'src/agent-entry.ts' },
  metafile: true,
  define: { __STOR_BUILD__: JSON.stringify(buildId) },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['better-sqlite3'],
  // Bundled CommonJS dependencies call require() for Node built-ins.
  banner: { js: "import { createRequire as __storRequire } from 'node:module'; const require = __storRequire(import.meta.url);" },
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
});

// Which build this is, for whoever must find this build's agent socket from outside the bundle.
writeFileSync('dist/bundle/build-id', `${buildId}\n`);

// The first stage must start in a few milliseconds over bare Node (docs/SESSIONS.md): only these
// sources may reach it, through its static imports. A heavier import fails the build.
const FIRST_STAGE_SOURCES = new Set(['src/first-stage.ts', 'src/core/session/paths.ts', 'src/core/session/setting.ts', 'src/core/session/protocol.ts']);
const outputs = result.metafile.outputs;
const reached = new Set();
const visit = (file) => {
  if (reached.has(file)) return;
  reached.add(file);
  for (const imp of outputs[file].imports) if (imp.kind === 'import-statement' && !imp.external) visit(imp.path);
};
visit('dist/bundle/first-stage.js');
const heavy = [...reached].flatMap((file) => Object.keys(outputs[file].inputs)).filter((input) => !FIRST_STAGE_SOURCES.has(input));
if (heavy.length > 0) throw new Error(`the first stage (bin/stor.js) would load more than it may: ${heavy.join(', ')}`);
