import { describe, expect, it } from 'vitest';
import { runStor, type RunResult } from '../helpers/run-stor.js';
import { tempDir } from '../helpers/temp-dir.js';

function embedded() {
  const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
  return (args: string[]) => runStor(args, { env });
}

/** The appliance methods a run called, from its `-v` trace (`stor: trace: call pool.dataset.query: 0.4 ms`). */
const called = (r: RunResult) => [...r.stderr.matchAll(/^stor: trace: call (\S+):/gm)].map((m) => m[1]!);

/** Methods that change something: every one a destructive verb could reach for. */
const CHANGING = /\.(delete|update|rollback|create|job_abort|setperm|chown|mkdir)$/;

describe('nothing destructive happens before consent', () => {
  it('dataset delete without -r, refused for its children, never calls pool.dataset.delete to find out', async () => {
    const run = embedded();
    await run(['dataset', 'create', 'tank/v0']);
    await run(['dataset', 'create', 'tank/v0/c']);
    const refused = await run(['-v', 'dataset', 'delete', 'tank/v0']);
    // The appliance's own words (MW/plugins/pool_/dataset.py:821-824), predicted from reads: had the
    // children gone meanwhile, a "probe" delete would have deleted tank/v0 with nobody asked.
    expect(refused.stderr).toContain(
      "stor: [ENOTEMPTY] Failed to delete dataset: cannot destroy 'tank/v0': filesystem has children",
    );
    expect(refused.code).toBe(1);
    expect(called(refused)).not.toContain('pool.dataset.delete');
    expect(called(refused)).toContain('pool.dataset.query');
  });

  it('dataset delete without -r, refused for its snapshots, never calls pool.dataset.delete to find out', async () => {
    const run = embedded();
    await run(['dataset', 'create', 'tank/v0']);
    await run(['snapshot', 'create', 'tank/v0@s1']);
    const refused = await run(['-v', 'dataset', 'delete', 'tank/v0']);
    expect(refused.code).toBe(1);
    // The appliance's line breaks break the line, later lines indented (docs/COMMANDS.md "A target's text cannot pass for stor's own").
    expect(refused.stderr).toContain(
      "cannot destroy 'tank/v0': filesystem has children\n  use '-r' to destroy the following datasets:\n  tank/v0@s1\n",
    );
    expect(called(refused)).not.toContain('pool.dataset.delete');
  });

  it("built-in privileges, users and groups are refused in the appliance's words without calling their delete", async () => {
    const run = embedded();
    // The built-in group keeps the appliance's words but not its EACCES, which says "lacks the role" (exit 5): BUILTIN_GROUP, exit 1.
    const cases: [string[], string, number][] = [
      [['privilege', 'delete', '1'], '[EPERM] Unable to delete built-in privilege', 1],
      [['user', 'delete', 'root'], '[EINVAL] Cannot delete a built-in user', 1],
      [['user', 'delete', 'truenas_admin'], '[EINVAL] Cannot delete the currently active user', 1],
      [['group', 'delete', 'builtin_users'], 'A built-in group cannot be deleted.', 1],
    ];
    for (const [args, words, code] of cases) {
      const refused = await run(['-v', ...args]);
      expect(refused.stderr, args.join(' ')).toContain(`stor: ${words}`);
      expect(refused.code, args.join(' ')).toBe(code);
      expect(
        called(refused).filter((m) => CHANGING.test(m)),
        args.join(' '),
      ).toEqual([]);
    }
  });

  it('every destructive verb, off a terminal without --yes, calls no changing method at all', async () => {
    const run = embedded();
    for (const setup of [
      ['dataset', 'create', 'tank/a/b', '--parents'],
      ['snapshot', 'create', 'tank/a@s1', '-r'],
      ['snapshot', 'create', 'tank/a@s2'],
      ['privilege', 'create', 'ops', '--roles', 'READONLY_ADMIN'],
      ['group', 'create', 'staffers'],
      ['user', 'create', 'erin', '--password-disabled'],
      ['api-key', 'create', 'k1', '--user', 'truenas_admin'],
      ['snapshot', 'task', 'create', 'tank/a/b'],
    ]) {
      const r = await run(setup);
      expect(r.code, `${setup.join(' ')}: ${r.stderr}`).toBe(0);
    }
    for (const args of [
      ['dataset', 'delete', 'tank/a'],
      ['dataset', 'delete', 'tank/a', '-r'],
      ['snapshot', 'delete', 'tank/a@s1', '-r'],
      ['snapshot', 'rollback', 'tank/a@s1'],
      ['snapshot', 'rollback', 'tank/a@s1', '-r'],
      ['privilege', 'delete', 'ops'],
      ['privilege', 'delete', '1'],
      ['user', 'delete', 'erin'],
      ['user', 'delete', 'root'],
      ['user', 'delete', 'truenas_admin'],
      ['group', 'delete', 'staffers'],
      ['group', 'delete', 'builtin_users'],
      ['api-key', 'revoke', 'k1'],
      ['snapshot', 'task', 'delete', '1'],
    ]) {
      const r = await run(['-v', ...args]);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).not.toBe(0);
      expect(
        called(r).filter((m) => CHANGING.test(m)),
        args.join(' '),
      ).toEqual([]);
    }
    // And everything is still there.
    const snapshots = JSON.parse((await run(['--json', 'snapshot', 'list'])).stdout) as { id: string }[];
    expect(snapshots.map((s) => s.id).sort()).toEqual(['tank/a/b@s1', 'tank/a@s1', 'tank/a@s2']);
    expect((await run(['user', 'show', 'erin'])).code).toBe(0);
    expect((await run(['snapshot', 'task', 'show', '1'])).code).toBe(0);
  });
});
