import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { SessionPool } from '../../../src/core/session/pool.js';
import { localFile, remoteEnv } from '../../helpers/client-env.js';
import { makeUserWithPrivilege, stor } from '../../helpers/runbook.js';
import { storIn } from '../../helpers/run-stor.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';

// The walks run their commands in-process (storIn, the same `run()` the binary calls); a denial's
// exit 5 is also checked through the built binary.
type Run = ReturnType<typeof storIn>;

const json = async (p: Promise<{ stdout: string }>) => JSON.parse((await p).stdout);

/**
 * The rollback walk (docs/COMMANDS.md "Commands": snapshot create, rollback, clone) on whichever target `run` points at; `mnt` is that target's file
 * tree on this machine, where the bytes are read back.
 */
async function rollbackWalk(
  run: Run,
  mnt: string,
  refusal = "Failed to rollback snapshot: cannot rollback to 'tank/a@before': more recent snapshots or bookmarks exist",
) {
  await run(['dataset', 'create', 'tank/a']);
  await run(['upload', localFile('notes.txt', 'the old bytes\n'), '/mnt/tank/a/']);
  const taken = await json(run(['snapshot', 'create', 'tank/a@before', '--json']));
  expect(taken).toMatchObject({
    id: 'tank/a@before',
    dataset: 'tank/a',
    name: 'before',
    created: true,
    recursive: false,
    referenced: 14,
  });
  // A runbook re-running the step: --exist-ok says it found it; without it, the appliance's EEXIST.
  expect(await json(run(['snapshot', 'create', 'tank/a@before', '--exist-ok', '--json']))).toMatchObject({
    id: 'tank/a@before',
    created: false,
  });
  expect((await run(['snapshot', 'create', 'tank/a@before'], 1)).stderr).toContain(
    "[EEXIST] Failed to snapshot tank/a@before: cannot create snapshot 'tank/a@before': dataset already exists",
  );
  const bad = await run(['snapshot', 'create', 'tank/a'], 2);
  expect(bad.stderr).toContain('snapshots are named DATASET@NAME');
  expect(bad.stderr).toContain('e.g. tank/a@before-change');

  // Change the file and add one, then take a later snapshot.
  await run(['upload', localFile('notes.txt', 'new bytes, longer than the old ones\n'), '/mnt/tank/a/']);
  await run(['upload', localFile('added.txt', 'added after the snapshot\n'), '/mnt/tank/a/']);
  await run(['snapshot', 'create', 'tank/a@after']);
  const listed = await json(run(['snapshot', 'list', 'tank/a', '--json']));
  expect(listed.map((s: { id: string }) => s.id)).toEqual(['tank/a@before', 'tank/a@after']);
  expect(new Date(listed[0].creation).getTime()).not.toBeNaN();
  expect((await json(run(['snapshot', 'list', '--json']))).map((s: { id: string }) => s.id)).toEqual([
    'tank/a@before',
    'tank/a@after',
  ]);

  // A later snapshot stands in the way: zfs rollback's refusal (MW/plugins/zfs_/snapshot_actions.py:74-80), dry run or not, and nothing asked.
  const refused = await run(['snapshot', 'rollback', 'tank/a@before', '--yes'], 1);
  expect(refused.stderr).toContain(refusal);
  expect(refused.stderr).toContain('tank/a@after');
  expect(refused.stderr).toContain('Add -r to do so');
  expect((await run(['snapshot', 'rollback', 'tank/a@before', '--dry-run'], 1)).stderr).toBe(refused.stderr);
  // The dry run with -r says what goes; nothing changes.
  const dry = await json(run(['snapshot', 'rollback', 'tank/a@before', '-r', '--dry-run', '--json']));
  expect(dry).toEqual({ id: 'tank/a@before', dataset: 'tank/a', dry_run: true, destroyed: ['tank/a@after'] });
  expect((await run(['snapshot', 'rollback', 'tank/a@before', '-r'], 2)).stderr).toContain('--yes');
  expect(readFileSync(join(mnt, 'tank/a/notes.txt'), 'utf8')).toBe('new bytes, longer than the old ones\n');

  const rolled = await json(run(['snapshot', 'rollback', 'tank/a@before', '-r', '--yes', '--json']));
  expect(rolled).toEqual({
    target: expect.any(Object),
    id: 'tank/a@before',
    dataset: 'tank/a',
    dry_run: false,
    destroyed: ['tank/a@after'],
  });
  expect(readFileSync(join(mnt, 'tank/a/notes.txt'), 'utf8')).toBe('the old bytes\n');
  expect(existsSync(join(mnt, 'tank/a/added.txt'))).toBe(false);
  expect((await json(run(['stat', '/mnt/tank/a/notes.txt', '--json']))).size).toBe(14);
  expect((await json(run(['snapshot', 'list', 'tank/a', '--json']))).map((s: { id: string }) => s.id)).toEqual([
    'tank/a@before',
  ]);
}

/** Delete asks (exit 2 off a terminal), previews, then goes, leaving the files; -r takes the children's of the same name. */
async function deleteWalk(run: Run, mnt: string) {
  await run(['upload', localFile('notes.txt', 'the old bytes\n'), '/mnt/tank/a/']);
  await run(['snapshot', 'create', 'tank/a@before', '--exist-ok']);
  expect((await run(['snapshot', 'delete', 'tank/a@before'], 2)).stderr).toContain('not on a terminal');
  expect(await json(run(['snapshot', 'delete', 'tank/a@before', '--dry-run', '--json']))).toEqual({
    id: 'tank/a@before',
    dry_run: true,
    deleted: ['tank/a@before'],
  });
  expect(await json(run(['snapshot', 'delete', 'tank/a@before', '--yes', '--json']))).toEqual({
    target: expect.any(Object),
    id: 'tank/a@before',
    dry_run: false,
    deleted: ['tank/a@before'],
  });
  expect(await json(run(['snapshot', 'list', '--json']))).toEqual([]);
  const gone = await run(['snapshot', 'delete', 'tank/a@before', '--yes'], 1);
  expect(gone.stderr).toContain('no snapshot tank/a@before');
  expect(readFileSync(join(mnt, 'tank/a/notes.txt'), 'utf8')).toBe('the old bytes\n');

  await run(['dataset', 'create', 'tank/p/c', '--parents']);
  await run(['snapshot', 'create', 'tank/p@nightly', '-r']);
  expect((await json(run(['snapshot', 'list', 'tank/p', '--json']))).map((s: { id: string }) => s.id)).toEqual([
    'tank/p@nightly',
  ]);
  expect((await json(run(['snapshot', 'list', 'tank/p', '-r', '--json']))).map((s: { id: string }) => s.id)).toEqual([
    'tank/p@nightly',
    'tank/p/c@nightly',
  ]);
  const deleted = await json(run(['snapshot', 'delete', 'tank/p@nightly', '-r', '--yes', '--json']));
  expect(deleted.deleted).toEqual(['tank/p@nightly', 'tank/p/c@nightly']);
  expect(await json(run(['snapshot', 'list', '--json']))).toEqual([]);
}

describe('stor snapshot', () => {
  it('create, change a file, rollback: the old bytes are back (embedded)', async () => {
    const home = tempDir();
    const run = storIn({ STOR_HOME: home, STOR_CONFIG_DIR: tempDir() });
    await rollbackWalk(run, join(home, 'mnt'));
    await deleteWalk(run, join(home, 'mnt'));
  });

  // Two servers: one walk's invocations stay under the 20 logins a minute an address may make
  // (MW/main.py:873-901, MW/utils/rate_limit/cache.py:12-18).
  it('does the same against stor serve', async () => {
    const server = await spawnServe(tempDir());
    await rollbackWalk(storIn(remoteEnv(server)), join(server.stateDir, 'mnt'));
    const another = await spawnServe(tempDir());
    const run = storIn(remoteEnv(another));
    await run(['dataset', 'create', 'tank/a']);
    await deleteWalk(run, join(another.stateDir, 'mnt'));
  });

  // 26.0 lists a snapshot's properties only as `extra.properties` names them and answers a create
  // with creation and createtxg alone (MW/plugins/pool_/snapshot.py:215-223, MW/plugins/zfs/
  // snapshot_create_impl.py:122-133 at TS-26.0.0-BETA.3): the walks read the same dates and sizes.
  it('does the same against stor serve --emulate truenas-26.0', async () => {
    // On a session pool, as the agent runs them: a 26.0 key login is two login calls.
    const on26 = async () => {
      const server = await spawnServe(tempDir(), ['--emulate', 'truenas-26.0']);
      const pool = new SessionPool();
      onTestFinished(() => pool.closeAll());
      return { server, run: storIn({ ...remoteEnv(server), STOR_USER: 'truenas_admin' }, pool) };
    };
    const first = await on26();
    // rollback_impl's ValueError (MW/plugins/zfs/snapshot_rollback_impl.py:135-141 at TS-26.0.0-BETA.3), predicted as it words it.
    await rollbackWalk(
      first.run,
      join(first.server.stateDir, 'mnt'),
      'Cannot rollback: more recent snapshots or bookmarks exist. Please pass `recursive: true` to delete the following snapshots and bookmarks recursively:',
    );
    expect(await json(first.run(['snapshot', 'list', 'tank/a', '--json']))).toEqual([
      {
        id: 'tank/a@before',
        dataset: 'tank/a',
        name: 'before',
        creation: expect.any(String),
        referenced: 14,
        createtxg: expect.any(Number),
      },
    ]);
    const second = await on26();
    await second.run(['dataset', 'create', 'tank/a']);
    await deleteWalk(second.run, join(second.server.stateDir, 'mnt'));
  });

  it('dry runs fail as the real runs would for an identity without the roles (exit 5)', async () => {
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
    const admin = storIn(env);
    await admin(['snapshot', 'create', 'tank@base']);
    const key = await makeUserWithPrivilege(admin, 'rita', 'readers', ['READONLY_ADMIN']);
    const rita = storIn({ ...env, STOR_API_KEY: key });
    expect((await json(rita(['snapshot', 'list', '--json']))).map((s: { id: string }) => s.id)).toEqual(['tank@base']);
    const denied = await stor({ ...env, STOR_API_KEY: key })(['snapshot', 'rollback', 'tank@base', '--yes'], 5);
    expect(denied.stderr).toContain('[EACCES] Not authorized');
    expect((await rita(['snapshot', 'rollback', 'tank@base', '--dry-run'], 5)).stderr).toBe(denied.stderr);
    const notDeleted = await rita(['snapshot', 'delete', 'tank@base', '--yes'], 5);
    expect((await rita(['snapshot', 'delete', 'tank@base', '--dry-run'], 5)).stderr).toBe(notDeleted.stderr);
    expect((await rita(['snapshot', 'create', 'tank@mine'], 5)).stderr).toContain('[EACCES] Not authorized');
  });
});
