import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { spawnStor } from './helpers/bin.js';
import { spawnServe } from './helpers/serve-process.js';
import { tempDir } from './helpers/temp-dir.js';

// scripts/bundle.mjs keeps the packages only some commands run out of stor.cjs (docs/ARCHITECTURE.md,
// "Layout"): a command that runs none of them reads none of them. esbuild names each bundled file
// in a comment (`// node_modules/undici/index.js`), so the files a run opened say what it loaded.
const RECORDER = fileURLToPath(new URL('./helpers/record-bundle-reads.cjs', import.meta.url));
const PACKAGES = ['undici', 'form-data', 'busboy', 'yaml', 'conf', '@inquirer', 'otpauth'];

/** `stor ARGS` with `env`; the bundle files it read and which of PACKAGES they hold. */
async function packagesRead(args: string[], env: Record<string, string>) {
  const record = join(tempDir(), 'reads');
  const run = await spawnStor(args, {
    env: { ...env, NODE_OPTIONS: `--require ${RECORDER}`, STOR_TEST_BUNDLE_READS: record },
  });
  expect(run.code, run.stderr).toBe(0);
  const files = readFileSync(record, 'utf8').split('\n');
  expect(files.some((f) => f.endsWith('/stor.cjs'))).toBe(true);
  const held = PACKAGES.filter((p) => files.some((f) => readFileSync(f, 'latin1').includes(`// node_modules/${p}/`)));
  return { run, held };
}

describe('what a command loads', () => {
  it('a remote whoami reads no HTTP client, multipart, YAML, profile store, prompt or TOTP package', async () => {
    const state = tempDir();
    const serve = await spawnServe(state);
    const { run, held } = await packagesRead(['whoami', '--json'], {
      STOR_HOME: tempDir(),
      STOR_URL: serve.url,
      STOR_API_KEY: readFileSync(serve.adminKeyFile, 'utf8').trim(),
    });
    expect(JSON.parse(run.stdout)).toMatchObject({ username: 'truenas_admin' });
    expect(held).toEqual([]);
  });

  it('an embedded whoami reads none of them either: its emulator loads TOTP only for a two-factor login', async () => {
    const { held } = await packagesRead(['whoami'], { STOR_HOME: tempDir() });
    expect(held).toEqual([]);
  });
});
