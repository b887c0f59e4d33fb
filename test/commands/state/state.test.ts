import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runStor } from '../../helpers/run-stor.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** Two embedded appliances, each in its own STOR_HOME: `run(on, args)` runs stor in-process against one. */
function twoAppliances() {
  const envs = [0, 1].map(() => ({ STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() }));
  return (on: 0 | 1, args: string[]) => runStor(args, { env: envs[on]! });
}

const stateFile = (text: string): string => {
  const path = join(tempDir(), 'state.yaml');
  writeFileSync(path, text);
  return path;
};

describe('stor export', () => {
  it('writes the groups, users and datasets the appliance holds as a state file', async () => {
    const run = twoAppliances();
    await run(0, ['group', 'create', 'ops']);
    await run(0, ['dataset', 'create', 'tank/ops', '--comments', 'ops share']);
    const r = await run(0, ['export']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('stor_state: 1');
    expect(r.stdout).toMatch(/name: ops\b/);
    expect(r.stdout).toContain('tank/ops');
  });
});

describe('stor plan', () => {
  it('says what applying the file would change (exit 7) and changes nothing; the file the appliance matches plans no change (exit 0)', async () => {
    const run = twoAppliances();
    const state = stateFile('stor_state: 1\ngroups:\n  - { name: ops }\n');
    const planned = await run(0, ['plan', '-f', state, '--json']);
    expect(planned.code, planned.stderr).toBe(7);
    expect(JSON.parse(planned.stdout)).toMatchObject({
      pending: true,
      changes: [{ kind: 'groups', name: 'ops', action: 'create' }],
    });
    expect(
      JSON.parse((await run(0, ['group', 'list', '--json'])).stdout).map((g: { name: string }) => g.name),
    ).not.toContain('ops');
    await run(0, ['group', 'create', 'ops']);
    expect((await run(0, ['plan', '-f', state])).code).toBe(0);
  });

  it('a file that is no state file is refused (exit 2) before any change', async () => {
    const run = twoAppliances();
    const r = await run(0, ['plan', '-f', stateFile('groups: [ { name: ops } ]\n'), '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error.message).toContain('stor_state');
  });
});

describe('stor apply', () => {
  it('what one appliance exported, applied to another: made there with --yes, and a second plan shows no change', async () => {
    const run = twoAppliances();
    await run(0, ['group', 'create', 'ops']);
    await run(0, ['dataset', 'create', 'tank/ops']);
    const state = stateFile((await run(0, ['export'])).stdout);
    const refused = await run(1, ['apply', '-f', state]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    expect(
      JSON.parse((await run(1, ['group', 'list', '--json'])).stdout).map((g: { name: string }) => g.name),
    ).not.toContain('ops');

    const applied = await run(1, ['apply', '-f', state, '--yes']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(
      JSON.parse((await run(1, ['group', 'list', '--json'])).stdout).map((g: { name: string }) => g.name),
    ).toContain('ops');
    expect(JSON.parse((await run(1, ['dataset', 'show', 'tank/ops', '--json'])).stdout).id).toBe('tank/ops');
    expect((await run(1, ['plan', '-f', state])).code).toBe(0);
    expect((await run(1, ['apply', '-f', state, '--yes'])).stderr).toContain('no changes');
  });
});
