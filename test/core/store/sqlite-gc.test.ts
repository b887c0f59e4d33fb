import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/temp-dir.js';
import { EMBEDDED_MEANT } from '../../helpers/embedded-meant.js';

const storeModule = fileURLToPath(new URL('../../../dist/core/store/store.js', import.meta.url));

describe('the SQLite binding under garbage collection', () => {
  // better-sqlite3 12 built for Node >= 24.19 aborts the process (SIGABRT, "(env) != nullptr" in
  // RemoveEnvironmentCleanupHook) as soon as a GC collects one of its Statements or Databases; stor
  // opens it only on Node 20 now (node:sqlite elsewhere), and this keeps either binding honest.
  // Store.open leaves both behind (pragma statements, closed connections); a separate process on
  // the built store churns the heap so that a full GC collects them, on whatever Node runs the suite.
  it('a process that opens and closes the store many times, then collects the garbage, exits normally', async () => {
    const home = tempDir();
    const script = `
      const { Store } = await import(${JSON.stringify(storeModule)});
      for (let i = 0; i < 300; i++) Store.open(process.env.STOR_HOME).close();
      let heap = [];
      for (let i = 0; i < 1e6; i++) { heap.push({ i }); if (heap.length > 1e5) heap = []; }
      console.log('collected');
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, STOR_SESSION: 'off', ...EMBEDDED_MEANT, STOR_HOME: home },
    });
    expect(stdout.trim()).toBe('collected');
  });
});
