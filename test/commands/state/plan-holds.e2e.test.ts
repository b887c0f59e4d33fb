import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { E } from '../../../src/core/error-catalogue.js';
import { clientEnv } from '../../helpers/client-env.js';
import { storIn } from '../../helpers/run-stor.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { answerOnTerminal } from '../../helpers/terminal.js';

const hasScript = spawnSync('script', ['--version']).status === 0;

/**
 * The question and the answer typed at it go through the built binary on a terminal
 * (answerOnTerminal); the commands that set the target up, change it while the question waits and
 * read it afterwards run in-process (storIn, the same `run()` the binary calls, the same state).
 */
function embedded() {
  const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
  return { env, run: storIn(env) };
}

const ids = async (run: ReturnType<typeof storIn>, args: string[]) =>
  (JSON.parse((await run(['--json', ...args])).stdout) as { id: string }[]).map((x) => x.id).sort();

describe.skipIf(!hasScript)('a change confirmed on a plan does no more than the plan showed', () => {
  it('snapshot rollback -r: a snapshot taken while the prompt waited stops the rollback, named; nothing is destroyed', async () => {
    const { env, run } = embedded();
    await run(['dataset', 'create', 'tank/a']);
    for (const s of ['s1', 's2']) await run(['snapshot', 'create', `tank/a@${s}`]);
    const r = await answerOnTerminal(['snapshot', 'rollback', 'tank/a@s1', '-r'], env, 'y', async () => {
      await run(['snapshot', 'create', 'tank/a@s3']);
    });
    expect(r.shown).toContain('and the later snapshot tank/a@s2? (y/N)');
    expect(r.shown).toContain(
      'stor: the target changed since the plan you confirmed: rolling back to tank/a@s1 would now also destroy tank/a@s3; nothing was changed',
    );
    expect(r.shown).toContain(
      'hint: review the new plan with `stor snapshot rollback tank/a@s1 -r --dry-run`, then run again',
    );
    expect(r.code).toBe(1);
    expect(await ids(run, ['snapshot', 'list', 'tank/a'])).toEqual(['tank/a@s1', 'tank/a@s2', 'tank/a@s3']);
  });

  it('dataset delete -r: a child created while the prompt waited stops the delete, named in --json details; nothing is deleted', async () => {
    const { env, run } = embedded();
    await run(['dataset', 'create', 'tank/v0/c', '--parents']);
    const r = await answerOnTerminal(['--json', 'dataset', 'delete', 'tank/v0', '-r'], env, 'y', async () => {
      await run(['dataset', 'create', 'tank/v0/new']);
    });
    expect(r.shown).toContain('Delete 2 datasets (tank/v0/c, tank/v0)');
    expect(r.code).toBe(1);
    const error = JSON.parse(r.shown.slice(r.shown.indexOf('{"error"')).split('\n')[0]!).error;
    expect(error).toMatchObject({ code: E.PLAN_CHANGED.code, kind: 'failed', details: ['tank/v0/new'] });
    expect(error.message).toContain('tank/v0 --recursive would now also delete tank/v0/new; nothing was changed');
    expect(await ids(run, ['dataset', 'list'])).toEqual(
      expect.arrayContaining(['tank/v0', 'tank/v0/c', 'tank/v0/new']),
    );
  });

  it("snapshot delete -r: a child's snapshot of that name taken while the prompt waited stops the delete; nothing is deleted", async () => {
    const { env, run } = embedded();
    await run(['dataset', 'create', 'tank/a/b', '--parents']);
    await run(['snapshot', 'create', 'tank/a@n', '-r']);
    await run(['dataset', 'create', 'tank/a/c']);
    const r = await answerOnTerminal(['snapshot', 'delete', 'tank/a@n', '-r'], env, 'y', async () => {
      await run(['snapshot', 'create', 'tank/a/c@n']);
    });
    expect(r.shown).toContain(
      'stor: the target changed since the plan you confirmed: tank/a@n -r would now also delete tank/a/c@n; nothing was changed',
    );
    expect(r.code).toBe(1);
    expect(await ids(run, ['snapshot', 'list'])).toEqual(['tank/a/b@n', 'tank/a/c@n', 'tank/a@n']);
  });

  it('answered yes on an unchanged plan, the change goes ahead as shown', async () => {
    const { env, run } = embedded();
    await run(['dataset', 'create', 'tank/a']);
    for (const s of ['s1', 's2']) await run(['snapshot', 'create', `tank/a@${s}`]);
    const r = await answerOnTerminal(['snapshot', 'rollback', 'tank/a@s1', '-r'], env, 'y');
    expect(r.code, r.shown).toBe(0);
    expect(await ids(run, ['snapshot', 'list', 'tank/a'])).toEqual(['tank/a@s1']);
  });

  it('privilege fix: a role added while the prompt waited stops the rewrite, which would have dropped it; the roles stay as they are', async () => {
    const { env, run } = embedded();
    await run(['privilege', 'create', 'ops', '--roles', 'READONLY_ADMIN,SHARING_READ', '--force']);
    const r = await answerOnTerminal(['privilege', 'fix', 'ops'], env, 'y', async () => {
      await run(['privilege', 'update', 'ops', '--roles', 'READONLY_ADMIN,SHARING_READ,ALERT_LIST_READ', '--force']);
    });
    expect(r.shown).toContain(
      'stor: the target changed since the plan you confirmed: privilege fix would now rewrite privilege',
    );
    expect(r.shown).toContain('"ops" with roles [READONLY_ADMIN, SHARING_READ, ALERT_LIST_READ]; nothing was changed');
    expect(r.code).toBe(1);
    expect(JSON.parse((await run(['--json', 'privilege', 'show', 'ops'])).stdout).listed_roles).toEqual([
      'READONLY_ADMIN',
      'SHARING_READ',
      'ALERT_LIST_READ',
    ]);
  });

  it('privilege delete: a group bound while the prompt waited stops the delete, named; the privilege stays', async () => {
    const { env, run } = embedded();
    await run(['group', 'create', 'staffers']);
    await run(['privilege', 'create', 'ops', '--roles', 'READONLY_ADMIN']);
    const r = await answerOnTerminal(['privilege', 'delete', 'ops'], env, 'y', async () => {
      await run(['privilege', 'update', 'ops', '--groups', 'staffers']);
    });
    expect(r.shown).toMatch(
      /stor: the target changed since the plan you confirmed: deleting privilege \d+ would now also take group staffers; nothing was changed/,
    );
    expect(r.code).toBe(1);
    expect((await run(['privilege', 'show', 'ops'])).code).toBe(0);
  });

  it('group delete --delete-users: a user who joined while the prompt waited stops the delete, named; no user is deleted', async () => {
    const { env, run } = embedded();
    await run(['user', 'create', 'erin', '--password-disabled', '--group', 'staffers', '--create-group']);
    const r = await answerOnTerminal(['group', 'delete', 'staffers', '--delete-users'], env, 'y', async () => {
      await run(['user', 'create', 'frank', '--password-disabled', '--group', 'staffers']);
    });
    expect(r.shown).toContain(
      'stor: the target changed since the plan you confirmed: deleting group staffers would now also take member frank; nothing was changed',
    );
    expect(r.code).toBe(1);
    for (const who of ['erin', 'frank']) expect((await run(['user', 'show', who])).code).toBe(0);
  });

  it('--targets: a target whose plan grew while the one question waited is not changed (PLAN_CHANGED); the others are', async () => {
    const servers = await Promise.all([spawnServe(tempDir()), spawnServe(tempDir())]);
    const env = clientEnv();
    for (const [i, s] of servers.entries())
      await storIn(env)(
        ['login', '--url', s.baseUrl, '--api-key-stdin', '--profile', `nas${i + 1}`, '--json'],
        0,
        readFileSync(s.adminKeyFile, 'utf8').trim(),
      );
    const on = (n: number) => storIn({ ...env, STOR_PROFILE: `nas${n}` });
    for (const n of [1, 2]) {
      await on(n)(['dataset', 'create', 'tank/a']);
      for (const s of ['s1', 's2']) await on(n)(['snapshot', 'create', `tank/a@${s}`]);
    }
    const r = await answerOnTerminal(
      ['--targets', 'nas[1-2]', '--json', 'snapshot', 'rollback', 'tank/a@s1', '-r', '--keep-going'],
      env,
      'y',
      async () => {
        await on(2)(['snapshot', 'create', 'tank/a@s3']);
      },
    );
    expect(r.code).toBe(1);
    const json = stripVTControlCharacters(r.shown);
    const outcomes = JSON.parse(json.slice(json.search(/^\[(\n|\{)/m)).trim()) as {
      target: string;
      ok: boolean;
      error?: { code: string; details?: string[] };
    }[];
    expect(outcomes.map((o) => [o.target, o.ok])).toEqual([
      ['nas1', true],
      ['nas2', false],
    ]);
    expect(outcomes[1]!.error).toMatchObject({ code: E.PLAN_CHANGED.code, details: ['tank/a@s3'] });
    expect(await ids(on(1), ['snapshot', 'list', 'tank/a'])).toEqual(['tank/a@s1']);
    expect(await ids(on(2), ['snapshot', 'list', 'tank/a'])).toEqual(['tank/a@s1', 'tank/a@s2', 'tank/a@s3']);
  });
});
