import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SpawnResult } from '../helpers/bin.js';
import { clientEnv, remoteEnv } from '../helpers/client-env.js';
import { stor } from '../helpers/runbook.js';
import { storIn } from '../helpers/run-stor.js';
import { spawnServe } from '../helpers/serve-process.js';

const PASSWORD = 'Wh1te rabbit-at 9';

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) =>
    statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [join(dir, name)],
  );
}

/**
 * The accounts walk through `base`, on whichever target its environment points at: the built binary
 * (stor) or in-process (storIn, the same `run()` the binary calls); returns every output.
 */
async function accountsWalk(
  base: (args: string[], code?: number, stdin?: string) => Promise<SpawnResult>,
): Promise<string[]> {
  const outputs: SpawnResult[] = [];
  const run = async (args: string[], code = 0, stdin?: string) => {
    const r = await base(args, code, stdin);
    outputs.push(r);
    return r;
  };

  expect(JSON.parse((await run(['group', 'create', 'ops', '--json'])).stdout)).toMatchObject({
    name: 'ops',
    created: true,
    members: [],
  });
  const created = JSON.parse(
    (
      await run(
        [
          'user',
          'create',
          'alice',
          '--group',
          'ops',
          '--groups',
          'builtin_administrators',
          '--full-name',
          'Alice A',
          '--password-stdin',
          '--json',
        ],
        0,
        `${PASSWORD}\n`,
      )
    ).stdout,
  );
  expect(created).toMatchObject({
    username: 'alice',
    group: 'ops',
    full_name: 'Alice A',
    created: true,
    group_created: false,
    roles: ['FULL_ADMIN'],
  });
  expect(typeof created.uid).toBe('number');

  const again = await run(['user', 'create', 'alice', '--password-disabled', '--exist-ok', '--json']);
  expect(JSON.parse(again.stdout)).toEqual({ ...created, created: false });
  // Under --json the document says so (created: false) and stderr stays empty; a person is told.
  expect(again.stderr).toBe('');
  expect((await run(['user', 'create', 'alice', '--password-disabled', '--exist-ok'])).stderr).toContain(
    'nothing was changed',
  );

  const shown = JSON.parse((await run(['user', 'show', 'alice', '--json'])).stdout);
  expect(shown).toEqual({
    ...shown,
    uid: created.uid,
    group: 'ops',
    password_disabled: false,
    twofactor: false,
    api_keys: 0,
  });
  const listed = (await run(['user', 'list'])).stdout.split('\n');
  expect(listed.find((l) => l.split('\t')[1] === 'alice')).toBe(
    `${created.uid}\talice\tAlice A\tops\tbuiltin_administrators,builtin_users\tfalse\tfalse\tenabled\tfalse\t0`,
  );
  const group = JSON.parse((await run(['group', 'show', 'ops', '--json'])).stdout);
  expect(group).toMatchObject({ name: 'ops', builtin: false, members: ['alice'], privileges: [] });

  await run(['user', 'create', 'bob', '--password-disabled']);
  const updated = JSON.parse(
    (await run(['user', 'update', 'bob', '--name', 'robert', '--groups', 'ops', '--full-name', 'Robert', '--json']))
      .stdout,
  );
  expect(updated).toMatchObject({
    username: 'robert',
    full_name: 'Robert',
    group: 'bob',
    groups: ['ops'],
    changed: ['username', 'full_name', 'groups'],
  });
  expect(JSON.parse((await run(['group', 'show', 'ops', '--json'])).stdout).members).toEqual(['alice', 'robert']);
  // Replaced, not added to; primary members cannot be removed (MW/plugins/account.py:2431).
  expect(JSON.parse((await run(['group', 'update', 'ops', '--members', 'alice', '--json'])).stdout).members).toEqual([
    'alice',
  ]);
  expect((await run(['group', 'update', 'ops', '--members', ''], 1)).stderr).toContain(
    'This group is primary for the following users: alice',
  );

  const unconfirmed = await run(['user', 'delete', 'robert'], 2);
  expect(unconfirmed.stderr).toContain('--yes');
  expect((await run(['user', 'show', 'robert'])).code).toBe(0);
  expect(
    JSON.parse((await run(['user', 'delete', 'robert', '--delete-group', '--yes', '--json'])).stdout),
  ).toMatchObject({ username: 'robert', group: 'bob', group_deleted: true });
  await run(['user', 'show', 'robert'], 1);

  expect((await run(['user', 'delete', 'root', '--yes'], 1)).stderr).toContain(
    '[EINVAL] Cannot delete a built-in user',
  );
  expect((await run(['group', 'delete', 'builtin_users', '--yes'], 1)).stderr).toContain(
    'stor: A built-in group cannot be deleted.',
  );
  return outputs.flatMap((r) => [r.stdout, r.stderr]);
}

describe('stor user / stor group, end to end', () => {
  // In-process on the embedded appliance: the walk through the built binary is the next test's,
  // against stor serve; this one is about the embedded state files.
  it('walks accounts on the embedded appliance; the password is in no output or state file', async () => {
    const env = clientEnv();
    const outputs = await accountsWalk(storIn(env));
    for (const out of outputs) expect(out).not.toContain(PASSWORD);
    for (const file of [...filesUnder(env.STOR_HOME!), ...filesUnder(env.STOR_CONFIG_DIR!)])
      expect(readFileSync(file).includes(PASSWORD), file).toBe(false);
  });

  it('walks accounts against stor serve; the new user logs in with the password given on stdin', async () => {
    const server = await spawnServe(clientEnv().STOR_HOME!);
    const env = remoteEnv(server);
    const outputs = await accountsWalk(stor(env));

    const alice = clientEnv();
    const login = await stor(alice)(
      ['login', '--url', server.baseUrl, '--username', 'alice', '--password-stdin', '--json'],
      0,
      `${PASSWORD}\n`,
    );
    expect(JSON.parse(login.stdout)).toMatchObject({ username: 'alice', created: true });
    expect(JSON.parse((await stor(alice)(['whoami', '--json'])).stdout)).toMatchObject({ username: 'alice' });

    await server.stop();
    for (const out of [...outputs, login.stdout, login.stderr, server.stderr()]) expect(out).not.toContain(PASSWORD);
    for (const file of [
      ...filesUnder(server.stateDir),
      ...filesUnder(env.STOR_HOME!),
      ...filesUnder(alice.STOR_CONFIG_DIR!),
    ]) {
      expect(readFileSync(file).includes(PASSWORD), file).toBe(false);
    }
  });
});
