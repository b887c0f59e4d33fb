import * as nodeModule from 'node:module';
import { fileURLToPath } from 'node:url';
import { loadWithCodeCache } from './code-cache.js';
import { endWhenOutputFails } from './output-errors.js';
import { asksOnlyVersion, writeVersion } from './version-only.js';

type Main = () => Promise<void>;

/**
 * What bin/stor.js runs: the CLI's `main` (bin-entry.ts), loaded the fastest way this Node has.
 * Node ≥ 22.1 loads the ES module bundle and keeps its compiled code itself (enableCompileCache,
 * turned on in main); Node 20 has no such cache, so it runs the same code from the CommonJS bundle
 * with V8's code cache (code-cache.ts). `--version` is answered here, before either loads.
 */
export async function start(): Promise<void> {
  if (asksOnlyVersion(process.argv.slice(2))) {
    endWhenOutputFails(process.stdout, 'stdout');
    writeVersion(import.meta.url);
    return;
  }
  let main: Main;
  if ('enableCompileCache' in nodeModule) {
    // Not a literal: the bundler must leave the entry module to be loaded, not copy it in here.
    const entry = new URL('./stor.js', import.meta.url).href;
    ({ main } = (await import(entry)) as { main: Main });
  } else {
    main = loadWithCodeCache(fileURLToPath(new URL('./stor.cjs', import.meta.url)), process.env);
  }
  await main();
}
