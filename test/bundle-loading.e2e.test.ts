import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { spawnStor } from './helpers/bin.js';
import { spawnServe } from './helpers/serve-process.js';
import { tempDir } from './helpers/temp-dir.js';

// scripts/bundle.mjs keeps the packages only some commands run out of stor.cjs (docs/ARCHITECTURE.md,
// "Layout"): a command that runs none of them reads none of them. esbuild names each bundled file
// in a comment (`// node_modules/undici/index.js`), so the files a run opened say what it loaded.
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RECORDER = fileURLToPath(new URL('./helpers/record-bundle-reads.cjs', import.meta.url));
const PACKAGES = ['undici', 'form-data', 'busboy', 'yaml', 'conf', '@inquirer', 'otpauth'];
const BUILTINS_RECORDER = fileURLToPath(new URL('./helpers/record-builtins.cjs', import.meta.url));
const MISSED_RECORDER = fileURLToPath(new URL('./helpers/record-failed-requires.cjs', import.meta.url));

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

  // The ws package loads node:crypto at its top, and looks for the optional bufferutil package; in
  // stor.cjs its files, and remote.ts's call ids, take src/core/transport/light-crypto.ts instead,
  // and bufferutil is not looked for (scripts/bundle.mjs): a cold whoami no longer spends either
  // before its login frame leaves.
  it('a remote whoami over WebSocket loads no node:crypto and looks for no package it does not bundle', async () => {
    const serve = await spawnServe(tempDir());
    const record = join(tempDir(), 'builtins');
    const missed = join(tempDir(), 'missed');
    const run = await spawnStor(['whoami', '--json'], {
      env: {
        STOR_HOME: tempDir(),
        STOR_URL: serve.url,
        STOR_API_KEY: readFileSync(serve.adminKeyFile, 'utf8').trim(),
        NODE_OPTIONS: `--require ${BUILTINS_RECORDER} --require ${MISSED_RECORDER}`,
        STOR_TEST_BUILTINS: record,
        STOR_TEST_FAILED_REQUIRES: missed,
      },
      stdinFrom: '/dev/null',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ username: 'truenas_admin' });
    const loaded = readFileSync(record, 'utf8').split('\n');
    expect(loaded).toContain('http'); // ws's upgrade request: the record is there
    expect(loaded).not.toContain('crypto');
    expect(readFileSync(missed, 'utf8')).toBe('');
  });

  // scripts/undici-entry.cjs: what stor bundles of undici is its client and request API; the
  // package's index would also bring fetch, WebSocket, EventSource, the caches and the mock agents.
  it('a remote upload reads undici without its fetch, WebSocket, cache or mock code', async () => {
    const serve = await spawnServe(tempDir());
    const file = join(tempDir(), 'small.txt');
    writeFileSync(file, 'abc\n');
    const { run, held } = await packagesRead(['upload', file, '/mnt/tank/'], {
      STOR_HOME: tempDir(),
      STOR_URL: serve.url,
      STOR_API_KEY: readFileSync(serve.adminKeyFile, 'utf8').trim(),
    });
    expect(run.stdout).toContain('/mnt/tank/small.txt');
    expect(held).toContain('undici');
    const undici = readFileSync(join(ROOT, 'dist/bundle/vendor/undici.cjs'), 'latin1');
    expect(undici).toContain('// node_modules/undici/lib/dispatcher/agent.js');
    expect(undici).toContain('// node_modules/undici/lib/api/api-request.js');
    // (Its request API's answer bodies take a few of the fetch files: body, formdata, webidl.)
    const unused =
      /^\/\/ node_modules\/undici\/lib\/(web\/(fetch\/index|websocket|eventsource|cache)|mock|cache|interceptor)\/.*$/mu;
    expect(undici.match(unused)).toBeNull();
  });

  it('an embedded whoami reads none of them either: its emulator loads TOTP only for a two-factor login', async () => {
    const { held } = await packagesRead(['whoami'], { STOR_HOME: tempDir() });
    expect(held).toEqual([]);
  });

  // scripts/bundle.mjs: stor.cjs loads these built-ins where one of their exports is first read, and
  // the embedded appliance draws its boot, session and login ids when first asked for (appliance.ts,
  // session.ts); io.ts makes process.stdin when a command reads it (a file's stream loads
  // fs/promises). A whoami on a seeded state reads none of them.
  it('an embedded whoami loads no node:crypto, child_process, fs/promises or readline', async () => {
    const env = { STOR_HOME: tempDir() };
    expect((await spawnStor(['whoami'], { env })).code).toBe(0); // seeds the state: a new key takes crypto
    const record = join(tempDir(), 'builtins');
    const run = await spawnStor(['whoami', '--json'], {
      env: { ...env, NODE_OPTIONS: `--require ${BUILTINS_RECORDER}`, STOR_TEST_BUILTINS: record },
      stdinFrom: '/dev/null',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ username: 'truenas_admin' });
    const loaded = readFileSync(record, 'utf8').split('\n');
    expect(loaded).toContain('vm'); // start.cjs compiles the bundle with it: the record is there
    expect(loaded.filter((m) => ['crypto', 'child_process', 'fs/promises', 'readline'].includes(m))).toEqual([]);
  });
});
