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

await build({
  entryPoints: { stor: 'src/bin-entry.ts', agent: 'src/agent-entry.ts' },
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

// The same id, for whatever needs it without loading the bundle (docs/SESSIONS.md; tests that name the socket).
writeFileSync('dist/bundle/build-id', `${buildId}\n`);
