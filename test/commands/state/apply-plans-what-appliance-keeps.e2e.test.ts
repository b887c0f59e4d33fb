/**
 * `stor apply` plans what the appliance will keep and reports what it could not do: a group member
 * that is no user, user property values as written, an API key's expiry in whole seconds. Each test
 * failed before its fix. The built binary against real `stor serve` processes.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stor } from '../../helpers/runbook.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { serveStoppedAfterAll, envOf, file } from '../../helpers/served.js';

const serve = serveStoppedAfterAll();

describe('stor apply reports a group member it could not add', () => {
  it('a member who is no user on the target, nor one the file makes, is a failed change (exit 1), not "done" while the plan stays pending', async () => {
    const server = await serve();
    const run = stor(envOf(server));
    const dir = tempDir('stor-state-');
    const state = file(dir, 'state.yaml', 'stor_state: 1\ngroups:\n  - { name: ops, members: [ghost] }\n');
    const applied = JSON.parse((await run(['apply', '-f', state, '--yes', '--json'], 1)).stdout) as {
      results: { name: string; status: string; error?: string }[];
    };
    expect(applied.results).toEqual([
      expect.objectContaining({ name: 'ops', status: 'failed', error: expect.stringContaining('ghost') }),
    ]);
    // A member the file's users step makes is still expected only after that step: done, and no drift.
    const later = file(
      dir,
      'later.yaml',
      'stor_state: 1\ngroups:\n  - { name: devs, members: [bob] }\nusers:\n  - { name: bob, group: devs }\n',
    );
    const ok = JSON.parse((await run(['apply', '-f', later, '--yes', '--json'])).stdout) as {
      results: { name: string; status: string }[];
    };
    expect(ok.results.map((r) => `${r.name} ${r.status}`)).toEqual(['devs done', 'bob done']);
    await run(['plan', '-f', later]);
  });
});

describe("a desired-state dataset's user properties keep their value as written", () => {
  it('org.example:owner: alice is set as alice (not ALICE), on an existing dataset and on one the file makes; a second plan shows no change', async () => {
    const server = await serve();
    const run = stor(envOf(server));
    await run(['dataset', 'create', 'tank/old']);
    const dir = tempDir('stor-state-');
    const state = file(
      dir,
      'state.yaml',
      [
        'stor_state: 1',
        'datasets:',
        '  - { name: tank/old, properties: { "org.example:owner": alice } }',
        '  - { name: tank/new, properties: { "org.example:owner": Bob, compression: lz4 } }',
        '',
      ].join('\n'),
    );
    const plan = JSON.parse((await run(['plan', '-f', state, '--json'], 7)).stdout) as {
      changes: { name: string; changes: { field: string; to: unknown }[] }[];
    };
    expect(
      plan.changes.flatMap((c) => c.changes.filter((f) => f.field.includes(':')).map((f) => `${c.name} ${f.to}`)),
    ).toEqual(['tank/old alice', 'tank/new Bob']);
    await run(['apply', '-f', state, '--yes']);
    for (const [id, owner] of [
      ['tank/old', 'alice'],
      ['tank/new', 'Bob'],
    ]) {
      const entry = JSON.parse(
        (await run(['call', 'pool.dataset.query', JSON.stringify([['id', '=', id]]), '{"get":true}'])).stdout,
      ) as { user_properties: Record<string, { value: string }> };
      expect(entry.user_properties['org.example:owner']?.value).toBe(owner);
    }
    await run(['plan', '-f', state]);
  });
});

describe("an API key's expiry with a fraction of a second", () => {
  it('is planned as the whole second the appliance keeps (MW api_key.py stores int(timestamp)): apply is done, exit 0, and plans no change after', async () => {
    const server = await serve();
    const run = stor(envOf(server));
    const dir = tempDir('stor-state-');
    const state = file(
      dir,
      'state.yaml',
      'stor_state: 1\napi_keys:\n  - { name: ci, user: truenas_admin, expires: "2099-01-01T00:00:00.567+02:00" }\n',
    );
    const applied = JSON.parse(
      (await run(['apply', '-f', state, '--yes', '--keys-out', join(dir, 'keys.json'), '--json'])).stdout,
    ) as { results: { status: string }[] };
    expect(applied.results.map((r) => r.status)).toEqual(['done']);
    await run(['plan', '-f', state]);
  });
});
