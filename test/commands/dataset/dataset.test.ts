import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createUserWithKey, openTestAppliance } from '../../helpers/appliance.js';
import { runStor, type RunResult } from '../../helpers/run-stor.js';
import { tempDir } from '../../helpers/temp-dir.js';

function embedded() {
  const home = tempDir();
  const env = { STOR_HOME: home, STOR_CONFIG_DIR: tempDir() };
  const run = (args: string[], extra: Record<string, string> = {}) => runStor(args, { env: { ...env, ...extra } });
  return { home, run };
}

const outcome = (r: RunResult) => ({ code: r.code, stderr: r.stderr });

describe('stor dataset create --parents is safe to re-run', () => {
  it("twice in a row: exit 0 both times, created then already there; without --parents an existing dataset stays the appliance's error", async () => {
    const { home, run } = embedded();
    const first = await run(['dataset', 'create', 'tank/a/b', '--parents', '--comments', 'first', '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      id: 'tank/a/b',
      mountpoint: '/mnt/tank/a/b',
      comments: 'first',
      created: true,
      target: { kind: 'embedded', stateDir: home },
    });

    const second = await run(['dataset', 'create', 'tank/a/b', '--parents', '--comments', 'second', '--json']);
    expect(second.code, second.stderr).toBe(0);
    // Left as it is, as mkdir -p leaves an existing directory: the comment given the second time is not applied.
    expect(JSON.parse(second.stdout)).toEqual({
      id: 'tank/a/b',
      mountpoint: '/mnt/tank/a/b',
      comments: 'first',
      created: false,
      target: { kind: 'embedded', stateDir: home },
    });
    const human = await run(['dataset', 'create', 'tank/a/b', '--parents']);
    expect(human.code).toBe(0);
    // Piped: the data as label<TAB>value lines; the explanation on stderr.
    expect(human.stdout).toContain('created\tfalse\n');
    expect(human.stderr).toBe('stor: dataset tank/a/b already exists; nothing changed\n');

    // MW/plugins/pool_/dataset.py:471: "Path /mnt/… already exists", a validation error (exit 1).
    const plain = await run(['dataset', 'create', 'tank/a/b', '--json']);
    expect(plain.code).toBe(1);
    expect(JSON.parse(plain.stderr).error).toMatchObject({
      code: 'EINVAL',
      details: ['* pool_dataset_create.name: Path /mnt/tank/a/b already exists'],
    });

    const listed = JSON.parse((await run(['dataset', 'list', '--json'])).stdout) as { id: string }[];
    expect(listed.map((d) => d.id)).toEqual(['tank', 'tank/a', 'tank/a/b']);
    expect(existsSync(join(home, 'mnt/tank/a/b'))).toBe(true);
  });

  it('fails as zfs destroy does when the dataset has snapshots and no --recursive (MW/plugins/zfs_/dataset.py:229-240)', async () => {
    const { home, run } = embedded();
    expect((await run(['dataset', 'create', 'tank/snapped'])).code).toBe(0);
    const snap = await run(['call', 'pool.snapshot.create', '{"dataset":"tank/snapped","name":"before"}']);
    expect(snap.code, snap.stderr).toBe(0);
    const dry = await run(['dataset', 'delete', 'tank/snapped', '--dry-run']);
    const real = await run(['dataset', 'delete', 'tank/snapped', '--yes']);
    expect(outcome(dry)).toEqual(outcome(real));
    expect(dry.code).toBe(1);
    expect(dry.stderr).toContain("cannot destroy 'tank/snapped': filesystem has children");
    expect(dry.stderr).toContain('tank/snapped@before');
    expect(existsSync(join(home, 'mnt/tank/snapped'))).toBe(true);
    const recursive = await run(['dataset', 'delete', 'tank/snapped', '--recursive', '--dry-run']);
    expect(recursive.code, recursive.stderr).toBe(0);
  });

  it('--parents still fails where the path is there but is no dataset (a plain directory)', async () => {
    const { run } = embedded();
    expect((await run(['upload', 'README.md', '/mnt/tank/plain/'])).code).toBe(0);
    const r = await run(['dataset', 'create', 'tank/plain', '--parents']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Path /mnt/tank/plain already exists');
  });
});

describe('stor dataset delete --dry-run predicts the real delete', () => {
  it('fails where the delete fails, with the same error and exit code: children without --recursive, a pool root, no such dataset', async () => {
    const { home, run } = embedded();
    expect((await run(['dataset', 'create', 'tank/a/b', '--parents'])).code).toBe(0);
    const cases = [
      {
        name: 'children without --recursive (MW/plugins/pool_/dataset.py:821-824)',
        args: ['tank/a'],
        code: 1,
        text: "[ENOTEMPTY] Failed to delete dataset: cannot destroy 'tank/a': filesystem has children",
      },
      { name: 'a pool root', args: ['tank'], code: 1, text: "'tank' is the root dataset of pool tank" },
      { name: 'no such dataset', args: ['tank/nope'], code: 1, text: 'no dataset tank/nope' },
    ];
    // The pool root with no children, so that only the root rule applies.
    const bare = embedded();
    for (const c of cases) {
      const where = c.name === 'a pool root' ? bare.run : run;
      const dry = await where(['dataset', 'delete', ...c.args, '--dry-run']);
      const real = await where(['dataset', 'delete', ...c.args, '--yes']);
      expect({ case: c.name, ...outcome(dry) }).toEqual({ case: c.name, ...outcome(real) });
      expect({ case: c.name, code: dry.code }).toEqual({ case: c.name, code: c.code });
      expect(dry.stderr).toContain(c.text);
      expect(dry.stdout).toBe('');
      const dryJson = await where(['--json', 'dataset', 'delete', ...c.args, '--dry-run']);
      const realJson = await where(['--json', 'dataset', 'delete', ...c.args, '--yes']);
      expect(outcome(dryJson)).toEqual(outcome(realJson));
    }
    expect(existsSync(join(home, 'mnt/tank/a/b'))).toBe(true);
  });

  it('fails as the real delete does (exit 5) when the caller lacks the role for pool.dataset.delete', async () => {
    const { home, run } = embedded();
    expect((await run(['dataset', 'create', 'tank/keep'])).code).toBe(0);
    const t = await openTestAppliance(undefined, home);
    const { key } = await createUserWithKey(t, 'reader', { privilegeRoles: ['DATASET_READ', 'POOL_READ'] });
    t.appliance.close();
    const dry = await run(['dataset', 'delete', 'tank/keep', '--dry-run'], { STOR_API_KEY: key });
    const real = await run(['dataset', 'delete', 'tank/keep', '--yes'], { STOR_API_KEY: key });
    expect(outcome(dry)).toEqual(outcome(real));
    expect(dry.code).toBe(5);
    expect(dry.stderr).toContain('[EACCES] Not authorized');
    expect(existsSync(join(home, 'mnt/tank/keep'))).toBe(true);
  });

  it('succeeds where the delete succeeds, says it is a dry run, and deletes nothing until the real run', async () => {
    const { home, run } = embedded();
    expect((await run(['dataset', 'create', 'tank/a/b', '--parents'])).code).toBe(0);
    const dry = await run(['dataset', 'delete', 'tank/a', '--recursive', '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ id: 'tank/a', dry_run: true, deleted: ['tank/a/b', 'tank/a'] });
    const human = await run(['dataset', 'delete', 'tank/a', '--recursive', '--dry-run']);
    expect(human.stdout).toContain('dry run\ttrue\n');
    expect(human.stdout).toContain('tank/a/b,tank/a');
    expect(human.stderr).toBe('stor: dry run: nothing was deleted\n');
    expect(existsSync(join(home, 'mnt/tank/a/b'))).toBe(true);

    const real = await run(['dataset', 'delete', 'tank/a', '--recursive', '--yes', '--json']);
    expect(real.code, real.stderr).toBe(0);
    expect(JSON.parse(real.stdout)).toMatchObject({ id: 'tank/a', dry_run: false, deleted: ['tank/a/b', 'tank/a'] });
    expect(existsSync(join(home, 'mnt/tank/a'))).toBe(false);
  });
});

describe('stor dataset list DATASET lists that dataset and its children', () => {
  it('a dataset below a pool lists it and what is below it, not its siblings; a missing one is the not-found error', async () => {
    const { run } = embedded();
    for (const id of ['tank/a/b', 'tank/a/c', 'tank/ab'])
      expect((await run(['dataset', 'create', id, '--parents'])).code).toBe(0);
    const ids = async (args: string[]) =>
      (JSON.parse((await run([...args, '--json'])).stdout) as { id: string }[]).map((d) => d.id);
    expect(await ids(['dataset', 'list', 'tank/a'])).toEqual(['tank/a', 'tank/a/b', 'tank/a/c']);
    expect(await ids(['dataset', 'list', '/mnt/tank/a/b'])).toEqual(['tank/a/b']);
    expect(await ids(['dataset', 'list', 'tank'])).toEqual(['tank', 'tank/a', 'tank/a/b', 'tank/a/c', 'tank/ab']);

    // As `dataset delete` of a missing dataset reports it (NOT_FOUND), not an empty list and exit 0.
    const missing = await run(['dataset', 'list', 'tank/zz', '--json']);
    const deleted = await run(['dataset', 'delete', 'tank/zz', '--yes', '--json']);
    expect(missing.code).not.toBe(0);
    expect(missing.stdout).toBe('');
    expect({ code: missing.code, error: JSON.parse(missing.stderr).error }).toEqual({
      code: deleted.code,
      error: JSON.parse(deleted.stderr).error,
    });
    const pool = await run(['dataset', 'list', 'nopool']);
    expect(pool.code).toBe(missing.code);
  });
});

describe('stor dataset show', () => {
  it("shows a dataset's properties with their source, its children and snapshot count; a path under /mnt names it too", async () => {
    const { run } = embedded();
    await run(['dataset', 'create', 'tank/a', '--comments', 'team']);
    await run(['dataset', 'create', 'tank/a/b']);
    const shown = await run(['dataset', 'show', 'tank/a', '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    const a = JSON.parse(shown.stdout);
    expect(a).toMatchObject({ id: 'tank/a', comments: 'team', children: ['tank/a/b'], snapshot_count: 0 });
    expect(a.properties.compression).toMatchObject({ value: 'LZ4' });
    expect(JSON.parse((await run(['dataset', 'show', '/mnt/tank/a', '--json'])).stdout).id).toBe('tank/a');
  });

  it('a dataset that is not there is NOT_FOUND (exit 1)', async () => {
    const { run } = embedded();
    const r = await run(['dataset', 'show', 'tank/none', '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining('tank/none'),
    });
  });
});

describe('stor dataset update', () => {
  const show = async (run: (args: string[]) => Promise<RunResult>, id: string) =>
    JSON.parse((await run(['dataset', 'show', id, '--json'])).stdout);

  it("sets what it is given, which the appliance then holds; the same update again changes nothing; --inherit takes the parent's back", async () => {
    const { run } = embedded();
    await run(['dataset', 'create', 'tank/a/b', '--parents']);
    const updated = await run([
      'dataset',
      'update',
      'tank/a',
      '--compression',
      'zstd',
      '--comments',
      'c1',
      '--yes',
      '--json',
    ]);
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({
      id: 'tank/a',
      dry_run: false,
      changed: true,
      changes: expect.arrayContaining([{ property: 'compression', old: 'LZ4', new: 'ZSTD' }]),
    });
    const a = await show(run, 'tank/a');
    expect([a.properties.compression.value, a.properties.compression.source, a.comments]).toEqual([
      'ZSTD',
      'LOCAL',
      'c1',
    ]);
    expect((await show(run, 'tank/a/b')).properties.compression).toMatchObject({
      value: 'ZSTD',
      source: 'INHERITED',
      source_info: 'tank/a',
    });

    const again = await run([
      'dataset',
      'update',
      'tank/a',
      '--compression',
      'zstd',
      '--comments',
      'c1',
      '--yes',
      '--json',
    ]);
    expect(JSON.parse(again.stdout)).toEqual({
      target: expect.any(Object),
      id: 'tank/a',
      dry_run: false,
      changed: false,
      changes: [],
    });

    await run(['dataset', 'update', 'tank/a/b', '--compression', 'gzip', '--yes']);
    const inherited = JSON.parse(
      (await run(['dataset', 'update', 'tank/a/b', '--inherit', 'compression', '--yes', '--json'])).stdout,
    );
    expect(inherited.changes).toEqual([{ property: 'compression', old: 'GZIP', new: 'INHERIT' }]);
    expect((await show(run, 'tank/a/b')).properties.compression).toMatchObject({ value: 'ZSTD', source: 'INHERITED' });
  });

  it('without --yes off a terminal: refused (exit 2) and nothing changed; --dry-run shows the change and makes none', async () => {
    const { run } = embedded();
    await run(['dataset', 'create', 'tank/a']);
    expect((await run(['dataset', 'update', 'tank/a', '--compression', 'gzip'])).code).toBe(2);
    const dry = JSON.parse(
      (await run(['dataset', 'update', 'tank/a', '--compression', 'gzip', '--dry-run', '--json'])).stdout,
    );
    expect(dry).toEqual({
      id: 'tank/a',
      dry_run: true,
      changed: true,
      changes: [{ property: 'compression', old: 'LZ4', new: 'GZIP' }],
    });
    expect((await show(run, 'tank/a')).properties.compression.value).toBe('LZ4');
  });

  it('a value the appliance refuses is its error (exit 1), predicted word for word by the dry run', async () => {
    const { run } = embedded();
    await run(['dataset', 'create', 'tank/a']);
    const real = await run(['dataset', 'update', 'tank/a', '--recordsize', '100K', '--yes']);
    expect(real.code).toBe(1);
    expect(real.stderr).toContain("pool_dataset_update.recordsize: '100K' is an invalid recordsize.");
    expect((await run(['dataset', 'update', 'tank/a', '--recordsize', '100K', '--dry-run'])).stderr).toBe(real.stderr);
    expect((await show(run, 'tank/a')).properties.recordsize.value).toBe('128K');
  });
});
