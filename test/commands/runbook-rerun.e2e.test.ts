import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientEnv } from '../helpers/client-env.js';
import { runBash } from '../helpers/runbook.js';
import { runStor } from '../helpers/run-stor.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * An operator's runbook under `set -euo pipefail` that sets up a team —
 * a group, a user in it, a privilege for the group, a dataset, an upload, a snapshot — and is
 * run again in full: exit 0 both times, nothing changed the second time. Then the teardown,
 * twice, the second time with --ignore-not-found on every delete.
 */
const SETUP = String.raw`
stor group create rb-ops --exist-ok
stor user create rb-carol --group rb-ops --password-disabled --exist-ok
stor privilege create rb-ops --groups rb-ops --roles READONLY_ADMIN --exist-ok
stor dataset create tank/rb/data --parents
stor upload --skip-existing "$W/report.txt" /mnt/tank/rb/data/
stor snapshot create tank/rb/data@rb-1 --exist-ok
echo SETUP-DONE
`;

const teardown = (extra: string) => String.raw`
stor snapshot delete tank/rb/data@rb-1 --yes ${extra}
stor dataset delete tank/rb --recursive --yes ${extra}
stor privilege delete rb-ops --yes ${extra}
stor user delete rb-carol --yes ${extra}
stor group delete rb-ops --yes ${extra}
echo TEARDOWN-DONE
`;

/**
 * What the runbook set up, as `--json` reads it: equal before and after a re-run when nothing
 * changed. Read in-process (runStor, the same `run()` the binary calls): the runbook's own commands
 * are the built binary under bash, the subject; these reads only look at what they left.
 */
async function state(env: Record<string, string>): Promise<Record<string, unknown>> {
  const read = async (args: string[]) => {
    const r = await runStor([...args, '--json'], { env });
    return r.code === 0 ? JSON.parse(r.stdout) : { exit: r.code };
  };
  return {
    group: await read(['group', 'show', 'rb-ops']),
    user: await read(['user', 'show', 'rb-carol']),
    privilege: await read(['privilege', 'show', 'rb-ops']),
    // Free space is the host disk's, which other processes change: not the runbook's doing.
    datasets: withoutAvailable(await read(['dataset', 'list', 'tank/rb'])),
    files: await read(['ls', '/mnt/tank/rb/data']),
    file: await read(['stat', '/mnt/tank/rb/data/report.txt']),
    snapshots: await read(['snapshot', 'list', 'tank/rb/data']),
  };
}

function withoutAvailable(read: unknown): unknown {
  return Array.isArray(read) ? read.map(({ available: _free, ...rest }: { available?: unknown }) => rest) : read;
}

function setup() {
  const env = clientEnv();
  const w = tempDir('stor-runbook-');
  writeFileSync(join(w, 'report.txt'), 'quarterly numbers\n'.repeat(50));
  return { env, vars: { ...env, W: w } };
}

describe('a set-up runbook re-runs in full without change, and its teardown re-runs too', () => {
  it('sets up, then runs again in full: exit 0 both times, nothing changed the second time', async () => {
    const { env, vars } = setup();
    const first = await runBash(SETUP, vars);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.trim().split('\n').at(-1)).toBe('SETUP-DONE');
    const before = await state(env);
    expect(before.datasets).toEqual([
      expect.objectContaining({ id: 'tank/rb' }),
      expect.objectContaining({ id: 'tank/rb/data' }),
    ]);
    expect(before.files).toEqual([expect.objectContaining({ name: 'report.txt', size: 900 })]);
    expect(before.snapshots).toEqual([expect.objectContaining({ id: 'tank/rb/data@rb-1' })]);
    expect(before.user).toMatchObject({ username: 'rb-carol' });
    expect(before.privilege).toMatchObject({ name: 'rb-ops' });

    const second = await runBash(SETUP, vars);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout.trim().split('\n').at(-1)).toBe('SETUP-DONE');
    expect(await state(env)).toEqual(before);
  });

  // needs ux2 flags: `--ignore-not-found` on every delete and `privilege create --exist-ok`.
  it('tears everything down, then again with --ignore-not-found: exit 0 both times, nothing left', async () => {
    const { env, vars } = setup();
    expect((await runBash(SETUP, vars)).code).toBe(0);
    const down = await runBash(teardown(''), vars);
    expect(down.code, down.stderr).toBe(0);
    const again = await runBash(teardown('--ignore-not-found'), vars);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.trim().split('\n').at(-1)).toBe('TEARDOWN-DONE');
    const left = await state(env);
    // Each object is gone: its read fails; the snapshot listing of a dataset that is gone is empty.
    const { snapshots, ...objects } = left;
    expect(snapshots).toEqual([]);
    for (const [what, read] of Object.entries(objects)) expect(read, what).toMatchObject({ exit: expect.any(Number) });
    // Without it, the re-run stops at the first delete of what is gone.
    const strict = await runBash(teardown(''), vars);
    expect(strict.code).not.toBe(0);
  });
});
