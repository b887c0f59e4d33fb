import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeUserWithPrivilege, stor } from '../../helpers/runbook.js';
import { storIn } from '../../helpers/run-stor.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';

type Run = ReturnType<typeof storIn>;

/**
 * The dataset acceptance walk, on whichever target `run` points at; `mnt` is the server's file tree.
 * It runs in-process (storIn, the same `run()` the binary calls): it is about what the verbs do. The
 * exit codes of a refused delete (5, 2) are also checked through the built binary below.
 */
async function datasetWalk(run: Run, mnt: string) {
  const created = JSON.parse(
    (await run(['dataset', 'create', 'tank/a/b', '--parents', '--comments', 'walk', '--json'])).stdout,
  );
  expect(created).toEqual({
    target: expect.any(Object),
    id: 'tank/a/b',
    mountpoint: '/mnt/tank/a/b',
    comments: 'walk',
    created: true,
  });
  // --parents is safe to re-run, as mkdir -p; without it an existing dataset stays an error (MW/plugins/pool_/dataset.py:471).
  const again = JSON.parse((await run(['dataset', 'create', 'tank/a/b', '--parents', '--json'])).stdout);
  expect(again).toEqual({
    target: expect.any(Object),
    id: 'tank/a/b',
    mountpoint: '/mnt/tank/a/b',
    comments: 'walk',
    created: false,
  });
  const exists = await run(['dataset', 'create', 'tank/a/b'], 1);
  expect(exists.stderr).toContain('Path /mnt/tank/a/b already exists');
  const listed = JSON.parse((await run(['dataset', 'list', 'tank', '--json'])).stdout) as {
    id: string;
    comments: string | null;
  }[];
  expect(listed.map((d) => [d.id, d.comments])).toEqual([
    ['tank', null],
    ['tank/a', null],
    ['tank/a/b', 'walk'],
  ]);
  // On the wire, as 25.10.1 sends it: no top-level comments, the comment in user_properties
  // (MW/plugins/pool_/dataset_query_utils.py:534-548, 762-766).
  const raw = JSON.parse((await run(['call', 'pool.dataset.get_instance', 'tank/a/b'])).stdout);
  expect(raw).not.toHaveProperty('comments');
  expect(raw.user_properties.comments).toEqual({
    parsed: 'walk',
    rawvalue: 'walk',
    value: 'walk',
    source: 'LOCAL',
    source_info: null,
  });
  await run(['upload', 'README.md', '/mnt/tank/a/b/']);
  expect(existsSync(join(mnt, 'tank/a/b/README.md'))).toBe(true);

  const refused = await run(['dataset', 'delete', 'tank/a'], 1);
  expect(refused.stderr).toContain(
    "[ENOTEMPTY] Failed to delete dataset: cannot destroy 'tank/a': filesystem has children",
  );
  // The dry run predicts that refusal word for word.
  expect((await run(['dataset', 'delete', 'tank/a', '--dry-run'], 1)).stderr).toBe(refused.stderr);
  const unconfirmed = await run(['dataset', 'delete', 'tank/a', '--recursive'], 2);
  expect(unconfirmed.stderr).toContain('--yes');
  expect(existsSync(join(mnt, 'tank/a/b/README.md'))).toBe(true);

  const gone = JSON.parse((await run(['dataset', 'delete', 'tank/a', '--recursive', '--yes', '--json'])).stdout);
  expect(gone.deleted).toEqual(['tank/a/b', 'tank/a']);
  expect(existsSync(join(mnt, 'tank/a'))).toBe(false);
  expect(JSON.parse((await run(['dataset', 'list', '--json'])).stdout).map((d: { id: string }) => d.id)).toEqual([
    'tank',
  ]);
}

describe('stor dataset', () => {
  it('creates, lists, fills and deletes datasets on the embedded target', async () => {
    const home = tempDir();
    await datasetWalk(storIn({ STOR_HOME: home }), join(home, 'mnt'));
  });

  it('does the same against stor serve', async () => {
    const server = await spawnServe(tempDir());
    const run = storIn({
      STOR_HOME: tempDir(),
      STOR_URL: server.baseUrl,
      STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
    });
    await datasetWalk(run, join(server.stateDir, 'mnt'));
  });

  it('lets a SHARING_ADMIN create a dataset but not delete one (exit 5)', async () => {
    const server = await spawnServe(tempDir());
    // Setting sally up is not the subject: in-process. Her refused delete goes through the binary.
    const admin = storIn({
      STOR_HOME: tempDir(),
      STOR_URL: server.baseUrl,
      STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
    });
    const key = await makeUserWithPrivilege(admin, 'sally', 'sharers', ['SHARING_ADMIN']);
    const sally = stor({ STOR_HOME: tempDir(), STOR_URL: server.baseUrl, STOR_API_KEY: key });
    await sally(['dataset', 'create', 'tank/shares']);
    const denied = await sally(['dataset', 'delete', 'tank/shares', '--yes'], 5);
    expect(denied.stderr).toContain('[EACCES] Not authorized');
    // The appliance's EACCES names no role; stor names the method's, from the contract.
    expect(denied.stderr).toContain('lacks the role this call needs: DATASET_DELETE (or FULL_ADMIN)');
    expect((await sally(['dataset', 'delete', 'tank/shares', '--dry-run'], 5)).stderr).toBe(denied.stderr);
    expect(existsSync(join(server.stateDir, 'mnt/tank/shares'))).toBe(true);
  });

  it('refuses a delete off a terminal without --yes (exit 2) and deletes nothing', async () => {
    const home = tempDir();
    const run = stor({ STOR_HOME: home });
    await run(['dataset', 'create', 'tank/a']);
    const r = await run(['dataset', 'delete', 'tank/a'], 2);
    expect(r.stderr).toContain('not on a terminal');
    expect(existsSync(join(home, 'mnt/tank/a'))).toBe(true);
    expect(JSON.parse((await run(['dataset', 'list', '--json'])).stdout)).toHaveLength(2);
  });
});
