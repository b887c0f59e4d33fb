import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runStor } from '../../helpers/run-stor.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** An embedded appliance in a fresh STOR_HOME: `run` runs stor in-process against it, `mnt` is its file tree. */
function embedded() {
  const home = tempDir();
  const env = { STOR_HOME: home, STOR_CONFIG_DIR: tempDir() };
  const run = (args: string[], tty = false) => runStor(args, { env, tty });
  /** The snapshot ids the appliance holds, as pool.snapshot.query answers them. */
  const held = async (): Promise<string[]> => {
    const r = await run(['call', 'pool.snapshot.query', '[]', '{"select":["id"]}']);
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { id: string }[]).map((s) => s.id);
  };
  return { run, held, mnt: join(home, 'mnt') };
}

const json = (r: { code: number; stdout: string; stderr: string }) => {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

describe('stor snapshot create', () => {
  it('takes DATASET@NAME, which the appliance then holds; --exist-ok re-runs without change', async () => {
    const { run, held } = embedded();
    await run(['dataset', 'create', 'tank/a']);
    expect(json(await run(['snapshot', 'create', 'tank/a@before', '--json']))).toMatchObject({
      id: 'tank/a@before',
      dataset: 'tank/a',
      name: 'before',
      created: true,
      recursive: false,
    });
    expect(await held()).toEqual(['tank/a@before']);
    expect(json(await run(['snapshot', 'create', 'tank/a@before', '--exist-ok', '--json']))).toMatchObject({
      id: 'tank/a@before',
      created: false,
    });
    expect(await held()).toEqual(['tank/a@before']);
  });

  it("a name without @ is a usage error (exit 2) and nothing is taken; a second create of the same name is the appliance's EEXIST", async () => {
    const { run, held } = embedded();
    await run(['dataset', 'create', 'tank/a']);
    const bad = await run(['snapshot', 'create', 'tank/a']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('snapshots are named DATASET@NAME');
    expect(await held()).toEqual([]);
    await run(['snapshot', 'create', 'tank/a@once']);
    const again = await run(['snapshot', 'create', 'tank/a@once']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('[EEXIST]');
  });
});

describe('stor snapshot list', () => {
  it("lists a dataset's snapshots in the order taken; -r adds its children's", async () => {
    const { run } = embedded();
    await run(['dataset', 'create', 'tank/p/c', '--parents']);
    await run(['snapshot', 'create', 'tank/p@one']);
    await run(['snapshot', 'create', 'tank/p@nightly', '-r']);
    const ids = (r: { id: string }[]) => r.map((s) => s.id);
    expect(ids(json(await run(['snapshot', 'list', 'tank/p', '--json'])))).toEqual(['tank/p@one', 'tank/p@nightly']);
    expect(ids(json(await run(['snapshot', 'list', 'tank/p', '-r', '--json'])))).toEqual([
      'tank/p@one',
      'tank/p@nightly',
      'tank/p/c@nightly',
    ]);
    expect(ids(json(await run(['snapshot', 'list', 'tank/p/c', '--json'])))).toEqual(['tank/p/c@nightly']);
  });

  it('of a dataset with none: an empty list, and a terminal is told so', async () => {
    const { run } = embedded();
    await run(['dataset', 'create', 'tank/a']);
    expect(json(await run(['snapshot', 'list', 'tank/a', '--json']))).toEqual([]);
    const piped = await run(['snapshot', 'list', 'tank/a']);
    expect(piped).toMatchObject({ code: 0, stdout: '' });
    const human = await run(['snapshot', 'list', 'tank/a'], true);
    expect(human.stdout + human.stderr).toContain('No snapshots of tank/a.');
  });
});

describe('stor snapshot delete', () => {
  it('asks first (exit 2 off a terminal), previews with --dry-run, then deletes with --yes; the files stay', async () => {
    const { run, held, mnt } = embedded();
    await run(['dataset', 'create', 'tank/a']);
    writeFileSync(join(mnt, 'tank/a/notes.txt'), 'kept\n');
    await run(['snapshot', 'create', 'tank/a@before']);
    const asked = await run(['snapshot', 'delete', 'tank/a@before']);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain('not on a terminal');
    expect(json(await run(['snapshot', 'delete', 'tank/a@before', '--dry-run', '--json']))).toEqual({
      id: 'tank/a@before',
      dry_run: true,
      deleted: ['tank/a@before'],
    });
    expect(await held()).toEqual(['tank/a@before']);
    expect(json(await run(['snapshot', 'delete', 'tank/a@before', '--yes', '--json']))).toEqual({
      target: expect.any(Object),
      id: 'tank/a@before',
      dry_run: false,
      deleted: ['tank/a@before'],
    });
    expect(await held()).toEqual([]);
    expect(readFileSync(join(mnt, 'tank/a/notes.txt'), 'utf8')).toBe('kept\n');
  });

  it('a snapshot that is not there: exit 1, naming it', async () => {
    const { run } = embedded();
    const gone = await run(['snapshot', 'delete', 'tank@never', '--yes']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('no snapshot tank@never');
  });
});

describe('stor snapshot rollback', () => {
  it("puts the dataset's files back as they were; a later snapshot is refused without -r, and -r --yes destroys it", async () => {
    const { run, held, mnt } = embedded();
    await run(['dataset', 'create', 'tank/a']);
    const notes = join(mnt, 'tank/a/notes.txt');
    writeFileSync(notes, 'the old bytes\n');
    await run(['snapshot', 'create', 'tank/a@before']);
    writeFileSync(notes, 'new bytes\n');
    writeFileSync(join(mnt, 'tank/a/added.txt'), 'added\n');
    await run(['snapshot', 'create', 'tank/a@after']);

    const refused = await run(['snapshot', 'rollback', 'tank/a@before', '--yes']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('more recent snapshots or bookmarks exist');
    expect(readFileSync(notes, 'utf8')).toBe('new bytes\n');
    expect(await held()).toEqual(['tank/a@before', 'tank/a@after']);

    expect(json(await run(['snapshot', 'rollback', 'tank/a@before', '-r', '--yes', '--json']))).toEqual({
      target: expect.any(Object),
      id: 'tank/a@before',
      dataset: 'tank/a',
      dry_run: false,
      destroyed: ['tank/a@after'],
    });
    expect(readFileSync(notes, 'utf8')).toBe('the old bytes\n');
    expect(existsSync(join(mnt, 'tank/a/added.txt'))).toBe(false);
    expect(await held()).toEqual(['tank/a@before']);
  });
});
