import * as nodeModule from 'node:module';
import { fileURLToPath } from 'node:url';
import { loadWithCodeCache } from './code-cache.js';
import { asksOnlyVersion } from './version-only.js';

type Main = () => Promise<void>;

/**
 * What bin/stor.js runs: the CLI's `main` (bin-entry.ts), loaded the fastest way this Node has.
 * Node ≥ 22.1 loads the ES module bundle and keeps its compiled code itself (enableCompileCache,
 * turned on in main); Node 20 has no such cache, so it runs the same code from the CommonJS bundle
 * with V8's code cache (code-cache.ts). `--version` needs only the small first module, not the
 * whole bundle.
 */
export async function start(): Promise<void> {
  let main: Main;
  if ('enableCompileCache' in nodeModule || asksOnlyVersion(process.argv.slice(2))) {
    // Not a literal: the bundler must leave the entry module to be loaded, not copy it in here.
    const entry = new URL('./stor.js', import.meta.url).href;
    ({ main } = (await import(entry)) as { main: Main });
  } else {
    main = loadWithCodeCache(fileURLToPath(new URL('./stor.cjs', import.meta.url)), process.env);
  }
  await main();
}
