/**
 * `stor apply --prune` deletes only what stor made itself, never the API key it logs in with. Each
 * test failed before its fix. Real `stor serve` processes; the commands run in-process (storIn, the
 * same `run()` the binary calls), but for the refused prune, whose exit code is checked through the
 * built binary.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stor } from '../../helpers/runbook.js';
import { storIn } from '../../helpers/run-stor.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { serveStoppedAfterAll, envOf, file } from '../../helpers/served.js';

const serve = serveStoppedAfterAll();

describe('stor apply --prune: a mark names the object stor made, not every later object of its name', () => {
  it('a group, user, privilege and API key stor made, deleted by hand and made again by hand, survive --prune', async () => {
    const server = await serve();
    const run = storIn(envOf(server));
    const dir = tempDir('stor-state-');
    const state = file(
      dir,
      'state.yaml',
      [
        'stor_state: 1',
        'groups: [{ name: ops }]',
        'users: [{ name: carol, group: ops }]',
        'privileges: [{ name: ops-read, groups: [ops], roles: [READONLY_ADMIN] }]',
        'api_keys: [{ name: ci, user: carol }]',
        '',
      ].join('\n'),
    );
    await run(['apply', '-f', state, '--yes', '--keys-out', join(dir, 'keys.json')]);
    // Someone removes them by hand, then makes objects of the same names by hand.
    await run([
      'call',
      'api_key.delete',
      JSON.stringify(
        JSON.parse((await run(['call', 'api_key.query', '[["name","=","ci"]]', '{"get":true}'])).stdout).id,
      ),
    ]);
    await run(['privilege', 'delete', 'ops-read', '--yes']);
    await run(['user', 'delete', 'carol', '--yes']);
    await run(['group', 'delete', 'ops', '--yes']);
    await run(['group', 'create', 'ops']);
    await run(['user', 'create', 'carol', '--group', 'ops', '--password-disabled']);
    await run(['privilege', 'create', 'ops-read', '--groups', 'ops', '--roles', 'READONLY_ADMIN']);
    await run(['api-key', 'create', 'ci', '--user', 'carol']);
    const empty = file(dir, 'empty.yaml', 'stor_state: 1\n');
    const plan = JSON.parse((await run(['plan', '-f', empty, '--prune', '--json'])).stdout) as { changes: unknown[] };
    expect(plan.changes).toEqual([]);
  });

  it('what stor made itself is still pruned', async () => {
    const server = await serve();
    const run = storIn(envOf(server));
    const dir = tempDir('stor-state-');
    const state = file(dir, 'state.yaml', 'stor_state: 1\ngroups: [{ name: ops }]\nusers: [{ name: dave }]\n');
    await run(['apply', '-f', state, '--yes']);
    await run(['apply', '-f', file(dir, 'empty.yaml', 'stor_state: 1\n'), '--prune', '--yes']);
    const groups = (await run(['group', 'list', '--json'])).stdout;
    expect(groups).not.toContain('"ops"');
    expect(groups).not.toContain('"dave"');
  });
});

describe('stor apply --prune: the API key stor logs in with', () => {
  it('a plan that deletes it is refused (PLAN_REFUSED, exit 1, nothing changed); a run logged in with another key prunes it', async () => {
    const server = await serve();
    const admin = storIn(envOf(server));
    const dir = tempDir('stor-state-');
    const keysOut = join(dir, 'keys.json');
    await admin([
      'apply',
      '-f',
      file(dir, 'with.yaml', 'stor_state: 1\napi_keys:\n  - { name: ci, user: truenas_admin }\n'),
      '--keys-out',
      keysOut,
      '--yes',
    ]);
    const ci = (JSON.parse(readFileSync(keysOut, 'utf8')) as { key: string }[])[0]!.key;
    // The runbook now logs in with the key stor made, then applies a file that no longer names it.
    const asCi = stor({ ...envOf(server), STOR_API_KEY: ci });
    const without = file(dir, 'without.yaml', 'stor_state: 1\n');
    const refused = await asCi(['apply', '-f', without, '--prune', '--yes', '--json'], 1);
    expect(JSON.parse(refused.stderr).error).toMatchObject({
      code: 'PLAN_REFUSED',
      message: expect.stringContaining('it deletes API key ci, the key stor is logged in with'),
    });
    expect((await admin(['api-key', 'list', '--json'])).stdout).toContain('"ci"');
    // Another key's run prunes it as before.
    await admin(['apply', '-f', without, '--prune', '--yes']);
    expect((await admin(['api-key', 'list', '--json'])).stdout).not.toContain('"ci"');
  });
});
