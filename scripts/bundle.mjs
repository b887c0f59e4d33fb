// Bundles the CLI for start-up speed: one module graph instead of hundreds of files to resolve.
// Lazily imported commands stay lazy as separate chunks. SQLite's native binding is loaded at run time
// (src/core/store/sqlite.ts picks the better-sqlite3 build for the runtime), outside the bundle.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

// Chunk names carry content hashes: without a clean start, chunks of earlier builds pile up.
rmSync('dist/bundle', { recursive: true, force: true });

await build({
  entryPoints: { stor: 'src/bin-entry.ts' },
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
