import { spawnSync } from 'node:child_process';
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { makeUserWithPrivilege, stor } from '../../helpers/runbook.js';
import { runStor, storIn } from '../../helpers/run-stor.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { sessionEnv } from '../../helpers/session.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { answerOnTerminal } from '../../helpers/terminal.js';

/**
 * The commands run in-process (storIn, the same `run()` the binary calls) where a scenario checks
 * what they do; the built binary where it checks the process: against `stor serve` through the
 * session agent, a denial's exit 5, the terminal's question, the completion script.
 */
type Run = ReturnType<typeof stor> | ReturnType<typeof storIn>;
type Shown = {
  properties: Record<string, { parsed: unknown; value: string | null; source: string; source_info: string | null }>;
  user_properties: Record<string, string | null>;
  comments: string | null;
  children: string[];
  snapshot_count: number;
};

const GiB = 1024 ** 3;
const show = async (run: Run, id: string): Promise<Shown> =>
  JSON.parse((await run(['dataset', 'show', id, '--json'])).stdout);

/** A walk of `dataset show` and `dataset update`, on whichever target `run` points at; `mnt` is its file tree. */
async function updateWalk(run: Run, mnt: string) {
  await run(['dataset', 'create', 'tank/a/b', '--parents']);
  const all = [
    '--comments',
    'c1',
    '--quota',
    '10G',
    '--refquota',
    '5G',
    '--reservation',
    '512M',
    '--compression',
    'zstd',
    '--atime',
    'off',
    '--readonly',
    'on',
    '--recordsize',
    '1M',
    '--sync',
    'always',
    '--exec',
    'off',
    '--set',
    'org.example:owner=al',
  ];
  const updated = JSON.parse((await run(['dataset', 'update', 'tank/a', ...all, '--yes', '--json'])).stdout);
  expect(updated).toMatchObject({ id: 'tank/a', dry_run: false, changed: true });
  expect(updated.changes).toContainEqual({ property: 'quota', old: 0, new: 10 * GiB });
  expect(updated.changes).toContainEqual({ property: 'compression', old: 'LZ4', new: 'ZSTD' });
  // Each flag round-trips: show has it, set locally.
  const a = await show(run, 'tank/a');
  const local = (name: string) => [a.properties[name]!.value, a.properties[name]!.source];
  expect(local('compression')).toEqual(['ZSTD', 'LOCAL']);
  expect(local('atime')).toEqual(['OFF', 'LOCAL']);
  expect(local('readonly')).toEqual(['ON', 'LOCAL']);
  expect(local('recordsize')).toEqual(['1M', 'LOCAL']);
  expect(local('sync')).toEqual(['ALWAYS', 'LOCAL']);
  expect(local('exec')).toEqual(['OFF', 'LOCAL']);
  expect([a.properties.quota!.parsed, a.properties.refquota!.parsed, a.properties.reservation!.parsed]).toEqual([
    10 * GiB,
    5 * GiB,
    512 * 1024 ** 2,
  ]);
  expect(a.comments).toBe('c1');
  expect(a.user_properties['org.example:owner']).toBe('al');
  expect(a.children).toEqual(['tank/a/b']);
  expect(a.snapshot_count).toBe(0);

  // The same update again changes nothing and exits 0.
  const again = JSON.parse((await run(['dataset', 'update', 'tank/a', ...all, '--yes', '--json'])).stdout);
  expect(again).toEqual({ target: expect.any(Object), id: 'tank/a', dry_run: false, changed: false, changes: [] });

  // The child inherits; --inherit takes a local value back to the parent's, with its source.
  expect((await show(run, 'tank/a/b')).properties.compression).toMatchObject({
    value: 'ZSTD',
    source: 'INHERITED',
    source_info: 'tank/a',
  });
  await run(['dataset', 'update', '/mnt/tank/a/b', '--compression', 'gzip', '--yes']);
  expect((await show(run, 'tank/a/b')).properties.compression).toMatchObject({ value: 'GZIP', source: 'LOCAL' });
  const inherited = JSON.parse(
    (await run(['dataset', 'update', 'tank/a/b', '--inherit', 'compression', '--yes', '--json'])).stdout,
  );
  expect(inherited.changes).toEqual([{ property: 'compression', old: 'GZIP', new: 'INHERIT' }]);
  expect(inherited.now).toEqual({ compression: { value: 'ZSTD', source: 'inherited from tank/a' } });
  expect((await show(run, 'tank/a/b')).properties.compression).toMatchObject({
    value: 'ZSTD',
    source: 'INHERITED',
    source_info: 'tank/a',
  });
  await run(['dataset', 'update', 'tank/a', '--inherit', 'org.example:owner', '--yes']);
  expect((await show(run, 'tank/a')).user_properties).not.toHaveProperty('org.example:owner');

  // A dry run shows the change and changes nothing.
  const dry = JSON.parse(
    (await run(['dataset', 'update', 'tank/a', '--compression', 'lz4', '--dry-run', '--json'])).stdout,
  );
  expect(dry).toEqual({
    id: 'tank/a',
    dry_run: true,
    changed: true,
    changes: [{ property: 'compression', old: 'ZSTD', new: 'LZ4' }],
  });
  expect((await show(run, 'tank/a')).properties.compression!.value).toBe('ZSTD');
  // Off a terminal without --yes: refused, nothing changed.
  expect((await run(['dataset', 'update', 'tank/a', '--compression', 'lz4'], 2)).stderr).toContain('--yes');
  expect((await show(run, 'tank/a')).properties.compression!.value).toBe('ZSTD');

  // Refusals in 25.10.1's words, exit 1; the dry run predicts each word for word.
  const refused = async (args: string[], words: string) => {
    const real = await run(['dataset', 'update', ...args, '--yes'], 1);
    expect(real.stderr).toContain(words);
    expect((await run(['dataset', 'update', ...args, '--dry-run'], 1)).stderr).toBe(real.stderr);
  };
  await refused(['tank/a', '--compression', 'foo'], "data.compression: Input should be 'ON', 'OFF', 'LZ4'");
  await refused(['tank/a', '--recordsize', '100K'], "pool_dataset_update.recordsize: '100K' is an invalid recordsize.");
  const big = join(mnt, 'tank/a/b/big');
  writeFileSync(big, '');
  truncateSync(big, 2 * GiB);
  await refused(
    ['tank/a/b', '--quota', '1G'],
    `[EFAULT] Failed to update properties: ZFSException("cannot set property for 'tank/a/b': size is less than current used or reserved space")`,
  );
  await run(['dataset', 'update', 'tank/a/b', '--quota', '3G', '--yes']);
  await refused(
    ['tank/a/b', '--reservation', '4G'],
    `[EFAULT] Failed to update properties: ZFSException("cannot set property for 'tank/a/b': size is greater than available space")`,
  );
  const b = await show(run, 'tank/a/b');
  expect([b.properties.quota!.parsed, b.properties.reservation!.parsed, b.properties.recordsize!.value]).toEqual([
    3 * GiB,
    null,
    '1M',
  ]);
  expect((await show(run, 'tank/a')).properties.recordsize!.value).toBe('1M');
}

describe('stor dataset show / update', () => {
  it('round-trips every flag, inherits, refuses as 25.10.1 does, on the embedded target', async () => {
    const home = tempDir();
    await updateWalk(storIn({ STOR_HOME: home }), join(home, 'mnt'));
  }, 120_000);

  it('does the same against stor serve', async () => {
    const server = await spawnServe(tempDir());
    // Through the session agent: the walk makes more calls than 20 logins a minute allow.
    const run = stor({
      STOR_HOME: tempDir(),
      STOR_URL: server.baseUrl,
      STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
      ...sessionEnv().env,
    });
    await updateWalk(run, join(server.stateDir, 'mnt'));
  }, 120_000);

  it('refuses an update without DATASET_WRITE (exit 5) before anything changes; show is a read', async () => {
    const server = await spawnServe(tempDir());
    const admin = storIn({
      STOR_HOME: tempDir(),
      STOR_URL: server.baseUrl,
      STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
    });
    await admin(['dataset', 'create', 'tank/r']);
    const key = await makeUserWithPrivilege(admin, 'rita', 'readers', ['DATASET_READ']);
    const ritaEnv = { STOR_HOME: tempDir(), STOR_URL: server.baseUrl, STOR_API_KEY: key };
    const rita = storIn(ritaEnv);
    expect((await show(rita, 'tank/r')).properties.compression!.value).toBe('LZ4');
    const denied = await stor(ritaEnv)(['dataset', 'update', 'tank/r', '--compression', 'zstd', '--yes'], 5);
    expect(denied.stderr).toContain('DATASET_WRITE');
    expect((await rita(['dataset', 'update', 'tank/r', '--compression', 'zstd', '--dry-run'], 5)).stderr).toBe(
      denied.stderr,
    );
    // Refused before the question too: off a terminal without --yes it is still the denial, not CONFIRMATION_REQUIRED.
    expect((await rita(['dataset', 'update', 'tank/r', '--compression', 'zstd'], 5)).stderr).toBe(denied.stderr);
    expect((await show(admin, 'tank/r')).properties.compression!.source).toBe('DEFAULT');
  });

  it('fans out with --targets: show as a read, update planned, confirmed once, applied', async () => {
    const servers = await Promise.all([spawnServe(tempDir()), spawnServe(tempDir())]);
    const env = clientEnv();
    for (const [i, s] of servers.entries()) {
      const login = await runStor(
        ['login', '--url', s.baseUrl, '--api-key-stdin', '--profile', `nas${i + 1}`, '--json'],
        { env, stdin: readFileSync(s.adminKeyFile, 'utf8').trim() },
      );
      expect(login.code, login.stderr).toBe(0);
    }
    const fleet = (args: string[]) => runStor(['--targets', 'nas1,nas2', ...args], { env });
    const plan = await fleet(['dataset', 'update', 'tank', '--atime', 'off']);
    expect(plan.code).toBe(2);
    expect(plan.stderr).toContain('atime');
    const applied = await fleet(['dataset', 'update', 'tank', '--atime', 'off', '--yes', '--json']);
    expect(applied.code, applied.stderr).toBe(0);
    const outcomes = JSON.parse(applied.stdout) as { target: string; ok: boolean; data: { changed: boolean } }[];
    expect(outcomes.map((o) => [o.target, o.ok, o.data.changed])).toEqual([
      ['nas1', true, true],
      ['nas2', true, true],
    ]);
    const shown = JSON.parse((await fleet(['dataset', 'show', 'tank', '--json'])).stdout) as {
      target: string;
      data: Shown;
    }[];
    expect(shown.map((o) => [o.target, o.data.properties.atime!.value])).toEqual([
      ['nas1', 'OFF'],
      ['nas2', 'OFF'],
    ]);
    const rerun = JSON.parse(
      (await fleet(['dataset', 'update', 'tank', '--atime', 'off', '--yes', '--json'])).stdout,
    ) as { data: { changed: boolean } }[];
    expect(rerun.map((o) => o.data.changed)).toEqual([false, false]);
  });
});

describe('stor dataset update completion', () => {
  it('offers dataset names for the argument, property names for --inherit and 25.10.1 words for values', async () => {
    const script = (await spawnStor(['completion', 'bash'])).stdout;
    const line = script.split('\n').find((l) => l.includes("'dataset update')"))!;
    expect(line).toContain('--compression:=ON,OFF,LZ4,');
    expect(line).toContain('--recordsize:=512,512B,1K,');
    expect(line).toContain('--inherit:=compression,atime,readonly,recordsize,sync,exec');
    expect(line).toContain("args='dataset'");
    expect(script.split('\n').find((l) => l.includes("'dataset show')"))).toContain("args='dataset'");
  });
});

const hasScript = spawnSync('script', ['--version']).status === 0;

describe.skipIf(!hasScript)('stor dataset update on a terminal', () => {
  it('asks with the changes; no changes nothing, yes applies, a value changed meanwhile stops it (PLAN_CHANGED)', async () => {
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
    const run = stor(env);
    await run(['dataset', 'create', 'tank/t']);
    const declined = await answerOnTerminal(['dataset', 'update', 'tank/t', '--compression', 'zstd'], env, 'n');
    expect(declined.shown).toContain(
      'Safe first step: preview with `stor dataset update tank/t --compression zstd --dry-run`',
    );
    expect(declined.shown).toContain('Update tank/t: compression: LZ4 → ZSTD?');
    expect(declined.code).toBe(1);
    expect((await show(run, 'tank/t')).properties.compression!.value).toBe('LZ4');
    const accepted = await answerOnTerminal(['dataset', 'update', 'tank/t', '--compression', 'zstd'], env, 'y');
    expect(accepted.code, accepted.shown).toBe(0);
    expect((await show(run, 'tank/t')).properties.compression!.value).toBe('ZSTD');
    // Someone else sets it while the question waits: what was confirmed (ZSTD → GZIP) is no longer the change.
    const moved = await answerOnTerminal(
      ['dataset', 'update', 'tank/t', '--compression', 'gzip'],
      env,
      'y',
      async () => {
        await run(['dataset', 'update', 'tank/t', '--compression', 'lz4', '--yes']);
      },
    );
    expect(moved.shown).toContain(
      'the target changed since the plan you confirmed: tank/t now has compression: LZ4 → GZIP; nothing was changed',
    );
    expect((await show(run, 'tank/t')).properties.compression!.value).toBe('LZ4');
  });
});
