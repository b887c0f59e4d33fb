/**
 * The order, refusals, checks and shapes of `stor plan` / `stor apply` / `stor export` as they are,
 * pinned end to end on the built binary and the embedded appliance (a temp STOR_HOME each), so a
 * rewrite of how the plan is built or carried out (one adapter per kind, an ordered table) cannot
 * change them unseen. docs/COMMANDS.md "Desired state" and `stor apply --help` promise the order:
 * groups, users, privileges, datasets, API keys; deletes (--prune) in reverse.
 *
 * STOR_BIN_UNDER_TEST runs another build's bin/stor.js (a branch's) against the same expectations.
 * Without it, the scenarios run their commands in-process (embeddedCommandsUnderTest, the same
 * `run()` the binary calls), and the exit codes are pinned on the built binary.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { embeddedCommandsUnderTest as appliance, embeddedUnderTest } from '../../helpers/stor-under-test.js';
import { tempDir } from '../../helpers/temp-dir.js';

const file = (name: string, text: string): string => {
  const path = join(tempDir('stor-order-file-'), name);
  writeFileSync(path, text);
  return path;
};

interface Change {
  kind: string;
  name: string;
  action: string;
  changes: { field: string; from: unknown; to: unknown }[];
}
interface Plan {
  pending: boolean;
  release: string | null;
  catalogue: string;
  changes: Change[];
  notes: string[];
  overlaps: unknown[];
}
interface Applied {
  plan: Plan;
  results: (Change & { status: string; error?: string })[];
  keys: { name: string; user: string; id: number; key?: string }[];
}

const line = (c: { action: string; kind: string; name: string }) => `${c.action} ${c.kind} ${c.name}`;
type Run = ReturnType<typeof appliance>;
const planOf = async (run: Run, args: string[], code = 7) =>
  JSON.parse((await run(['plan', ...args, '--json'], code)).stdout) as Plan;
const applyOf = async (run: Run, args: string[], code = 0) =>
  JSON.parse((await run(['apply', ...args, '--yes', '--json'], code)).stdout) as Applied;

/** Every kind, each section written in the reverse of the dependency order, and each object depending on an earlier kind. */
const EVERY_KIND_REVERSED = [
  'stor_state: 1',
  'api_keys:',
  '  - { name: carol-ci, user: carol, expires: "2031-01-02T03:04:05Z" }',
  'datasets:',
  '  - { name: tank/proj, comments: projects }',
  '  - { name: tank/proj/web, properties: { quota: 1G } }',
  'privileges:',
  '  - { name: webops, groups: [web, ops], roles: [READONLY_ADMIN] }',
  'users:',
  '  - { name: carol, group: ops, groups: [web], full_name: Carol Example }',
  'groups:',
  '  - { name: web, members: [carol] }',
  '  - { name: ops, gid: 4321 }',
  '',
].join('\n');

/** Its plan on a fresh appliance: dependency order, each kind in the file's order. */
const EVERY_KIND_CREATES = [
  'create groups web',
  'create groups ops',
  'create users carol',
  'create privileges webops',
  'create datasets tank/proj',
  'create datasets tank/proj/web',
  'create api_keys carol-ci',
];

describe('stor plan / apply: creates in dependency order, whatever order the file writes', () => {
  it("groups, users, privileges, datasets, API keys; each kind in the file's order; applied in that order, verified, and a second run changes nothing", async () => {
    // Fails if the plan kept the file's section order (api_keys first: carol would not exist yet),
    // or sorted a kind's objects by name (web before ops here is the file's order).
    const run = appliance();
    const state = file('every.yaml', EVERY_KIND_REVERSED);
    const plan = await planOf(run, ['-f', state]);
    expect(plan.changes.map(line)).toEqual(EVERY_KIND_CREATES);
    // The fields a create shows, in their order (the plan's table and --json are built from them).
    expect(plan.changes.map((c) => c.changes.map((f) => f.field))).toEqual([
      ['members'],
      ['gid'],
      ['full_name', 'group', 'groups', 'password_disabled'],
      ['groups', 'roles', 'web_shell'],
      ['comments'],
      ['quota'],
      ['user', 'expires'],
    ]);
    expect(plan.changes[3]!.changes[0]).toEqual({ field: 'groups', from: [], to: ['ops', 'web'] });

    const keysOut = join(tempDir('stor-order-keys-'), 'keys.json');
    const applied = await applyOf(run, ['-f', state, '--keys-out', keysOut]);
    expect(applied.results.map((r) => `${line(r)} ${r.status}`)).toEqual(plan.changes.map((c) => `${line(c)} done`));
    expect(applied.keys.map((k) => [k.name, k.user, 'key' in k])).toEqual([['carol-ci', 'carol', false]]);
    // carol, a member of web the users step made, is in web after one run: nothing left to do.
    expect(await planOf(run, ['-f', state], 0)).toEqual({
      ...plan,
      changed: false,
      comment: '0 to create, 0 to update, 0 to delete on the embedded appliance',
      pending: false,
      changes: [],
    });
    expect((await run(['apply', '-f', state, '--yes'])).stderr).toContain('no changes: the target matches the file');
  }, 120_000);

  it('export → apply on a fresh appliance → export again: the same file, and no plan left on either', async () => {
    // Fails if export or apply lost a field (gid, members, aux groups, expiry, a nested dataset's quota) on the way.
    const a = appliance();
    await a([
      'apply',
      '-f',
      file('every.yaml', EVERY_KIND_REVERSED),
      '--yes',
      '--keys-out',
      join(tempDir('stor-order-keys-'), 'k.json'),
    ]);
    const exported = (await a(['export'])).stdout;
    const state = file('exported.yaml', exported);
    await a(['plan', '-f', state]);

    const b = appliance();
    // The embedded appliance's own key and group are on B too: only what A added is planned.
    expect((await planOf(b, ['-f', state])).changes.map(line)).toEqual(EVERY_KIND_CREATES);
    await b(['apply', '-f', state, '--yes', '--keys-out', join(tempDir('stor-order-keys-'), 'k.json')]);
    await b(['plan', '-f', state]);
    expect((await b(['export'])).stdout).toBe(exported);
  }, 120_000);
});

/** A user property on the pool root saying stor made this object (src/commands/state/ownership.ts), as a hand could forge it. */
const forgedMark = (kind: string, name: string, id: number) => ({
  key: `stor.own:${kind}:${createHash('sha256').update(name).digest('hex').slice(0, 16)}`,
  value: `${id} ${name}`,
});

describe('stor plan / apply --prune: deletes after every create and update, in reverse dependency order', () => {
  it('API keys, datasets (child before parent), privileges, users, groups; a create in the same file comes first; all done, then nothing left', async () => {
    // Fails if deletes ran in the creates' order (a group deleted while its user stays, a parent
    // dataset before its child: pool.dataset.delete is not recursive), or before the creates.
    const run = appliance();
    await run([
      'apply',
      '-f',
      file('every.yaml', EVERY_KIND_REVERSED),
      '--yes',
      '--keys-out',
      join(tempDir('stor-order-keys-'), 'k.json'),
    ]);
    const next = file('next.yaml', 'stor_state: 1\ngroups:\n  - { name: newcomers }\n');
    const plan = await planOf(run, ['-f', next, '--prune']);
    expect(plan.changes.map(line)).toEqual([
      'create groups newcomers',
      'delete api_keys carol-ci',
      'delete datasets tank/proj/web',
      'delete datasets tank/proj',
      'delete privileges webops',
      'delete users carol',
      // Groups (as each kind's deletes) in the target's order, not the reverse of the file's.
      'delete groups web',
      'delete groups ops',
    ]);
    expect(plan.changes.filter((c) => c.action === 'delete').every((c) => c.changes.length === 0)).toBe(true);
    const applied = await applyOf(run, ['-f', next, '--prune']);
    expect(applied.results.map((r) => r.status)).toEqual(plan.changes.map(() => 'done'));
    await run(['plan', '-f', next, '--prune']);
  }, 120_000);

  it('a group stays while a privilege or user that stays uses it; deleting those takes it too', async () => {
    // Fails if prune deleted a group in use (group.delete would move a kept user to nogroup) or never deleted it.
    const run = appliance();
    await run([
      'apply',
      '-f',
      file('every.yaml', EVERY_KIND_REVERSED),
      '--yes',
      '--keys-out',
      join(tempDir('stor-order-keys-'), 'k.json'),
    ]);
    const keepPrivilege = file('keep-p.yaml', 'stor_state: 1\nprivileges:\n  - { name: webops }\n');
    expect((await planOf(run, ['-f', keepPrivilege, '--prune'])).changes.map(line)).toEqual([
      'delete api_keys carol-ci',
      'delete datasets tank/proj/web',
      'delete datasets tank/proj',
      'delete users carol',
    ]);
    const keepUser = file('keep-u.yaml', 'stor_state: 1\nusers:\n  - { name: carol }\n');
    // ops is carol's primary group and stays; web is only an auxiliary group of hers, and goes.
    expect((await planOf(run, ['-f', keepUser, '--prune'])).changes.map(line)).toEqual([
      'delete api_keys carol-ci',
      'delete datasets tank/proj/web',
      'delete datasets tank/proj',
      'delete privileges webops',
      'delete groups web',
    ]);
  }, 120_000);

  it('never a built-in group, user or privilege, even one a forged mark says stor made', async () => {
    // Fails if the builtin filters went (`!g.builtin`, `!u.builtin`, `builtin_name === null`): the mark alone would delete them.
    const run = appliance();
    const id = async (method: string, field: string, value: string) =>
      (JSON.parse((await run(['call', method, JSON.stringify([[field, '=', value]])])).stdout) as { id: number }[])[0]!
        .id;
    const marks = [
      forgedMark('group', 'builtin_users', await id('group.query', 'name', 'builtin_users')),
      forgedMark('user', 'root', await id('user.query', 'username', 'root')),
      forgedMark(
        'privilege',
        'Read-Only Administrator',
        await id('privilege.query', 'name', 'Read-Only Administrator'),
      ),
    ];
    await run(['call', 'pool.dataset.update', 'tank', JSON.stringify({ user_properties_update: marks })]);
    const empty = file('empty.yaml', 'stor_state: 1\n');
    expect(await planOf(run, ['-f', empty, '--prune'], 0)).toEqual({
      changed: false,
      comment: '0 to create, 0 to update, 0 to delete on the embedded appliance',
      pending: false,
      release: '25.10.1',
      catalogue: 'target',
      changes: [],
      notes: [],
      overlaps: [],
    });
  }, 120_000);
});

describe('stor apply: a refused plan changes nothing, not even the steps before the refused one', () => {
  it('PLAN_REFUSED (no administrator left) and UNKNOWN_ROLE stop apply before the group that comes first (exits 1 and 2); --force applies what the appliance takes', async () => {
    // Fails if the checks moved into the run (per step) instead of before it: the group would be made.
    const run = appliance();
    const noAdmin = file(
      'no-admin.yaml',
      'stor_state: 1\ngroups:\n  - { name: first }\nusers:\n  - { name: truenas_admin, password_disabled: true }\n',
    );
    const refused = JSON.parse((await run(['apply', '-f', noAdmin, '--yes', '--json'], 1)).stderr) as {
      error: { code: string; message: string };
    };
    expect(refused.error.code).toBe('PLAN_REFUSED');
    expect(refused.error.message).toContain('nothing was changed');
    const unknown = file(
      'unknown.yaml',
      'stor_state: 1\ngroups:\n  - { name: first }\nprivileges:\n  - { name: p, roles: [NO_SUCH_ROLE] }\n',
    );
    expect(JSON.parse((await run(['apply', '-f', unknown, '--yes', '--json'], 2)).stderr).error.code).toBe(
      'UNKNOWN_ROLE',
    );
    expect((await run(['group', 'list', '--json'])).stdout).not.toContain('"first"');
    // --force lets it through (a warning on stderr): the group is made, and the appliance's own check
    // refuses the user's change (MW/plugins/account_/privilege.py:301): failed, exit 1.
    const forced = await run(['apply', '-f', noAdmin, '--yes', '--force', '--json'], 1);
    expect(forced.stderr).toContain('stor: warning (--force): it leaves no unlocked, password-enabled administrator');
    expect((JSON.parse(forced.stdout) as Applied).results.map((r) => `${line(r)} ${r.status}`)).toEqual([
      'create groups first done',
      'update users truenas_admin failed',
    ]);
    expect((await run(['group', 'list', '--json'])).stdout).toContain('"first"');
  }, 120_000);
});

describe('stor plan: what is reported and never changed in place', () => {
  it("a differing gid and an API key's user are notes, not changes (exit 0)", async () => {
    // Fails if the plan turned a note into a change (a gid or a key's user changed in place) or dropped it.
    const run = appliance();
    await run([
      'apply',
      '-f',
      file(
        'base.yaml',
        'stor_state: 1\ngroups:\n  - { name: ops }\nusers:\n  - { name: alice, group: ops }\n  - { name: bob, group: ops }\nprivileges:\n  - { name: ops, groups: [ops], roles: [READONLY_ADMIN] }\n',
      ),
      '--yes',
    ]);
    await run(['call', 'api_key.create', JSON.stringify({ name: 'one', username: 'alice' })]);
    const gid = (
      JSON.parse((await run(['call', 'group.query', '[["name","=","ops"]]'])).stdout) as { gid: number }[]
    )[0]!.gid;
    const state = file(
      'notes.yaml',
      `stor_state: 1\ngroups:\n  - { name: ops, gid: ${gid + 1} }\napi_keys:\n  - { name: one, user: bob }\n`,
    );
    const plan = await planOf(run, ['-f', state], 0);
    expect(plan.changes).toEqual([]);
    expect(plan.notes).toEqual([
      `group ops: gid is ${gid} on the target, ${gid + 1} in the file; a gid is never changed in place`,
      "api key one: belongs to alice on the target, bob in the file; a key's user is never changed",
    ]);
    const shown = await run(['plan', '-f', state]);
    expect(shown.stderr).toContain(`note: group ops: gid is ${gid} on the target`);
  }, 120_000);
});

describe("stor plan / apply / export: exit codes and the file's refusals", () => {
  it('0 no change, 7 drift, 1 a failed change or refusal, 2 a bad file or usage; --json keys as documented', async () => {
    // Fails if an exit code or a --json key changed. The built binary's exit codes, always.
    const run = embeddedUnderTest();
    const empty = file('empty.yaml', 'stor_state: 1\n');
    expect(Object.keys(await planOf(run, ['-f', empty], 0))).toEqual([
      'changed',
      'comment',
      'pending',
      'release',
      'catalogue',
      'changes',
      'notes',
      'overlaps',
    ]);
    const one = file('one.yaml', 'stor_state: 1\ngroups:\n  - { name: g1 }\n');
    expect((await planOf(run, ['-f', one])).pending).toBe(true);
    const dry = JSON.parse((await run(['apply', '-f', one, '--dry-run', '--json'])).stdout) as Applied;
    expect(Object.keys(dry)).toEqual(['changed', 'comment', 'plan', 'results', 'keys']);
    expect(dry.results).toEqual([]);
    const applied = await applyOf(run, ['-f', one]);
    expect(applied.results).toEqual([{ kind: 'groups', name: 'g1', action: 'create', changes: [], status: 'done' }]);
    const failing = await applyOf(
      run,
      [
        '-f',
        file('fail.yaml', 'stor_state: 1\nprivileges:\n  - { name: p, groups: [nosuch], roles: [READONLY_ADMIN] }\n'),
      ],
      1,
    );
    expect(failing.results).toEqual([
      expect.objectContaining({
        kind: 'privileges',
        name: 'p',
        status: 'failed',
        error: 'no local group named "nosuch"',
      }),
    ]);

    const bad = async (text: string, words: string) => {
      const r = await run(['plan', '-f', file('bad.yaml', text), '--json'], 2);
      expect(JSON.parse(r.stderr).error).toMatchObject({
        code: 'BAD_STATE_FILE',
        message: expect.stringContaining(words),
      });
    };
    await bad('stor_state: 1\ngroups:\n  - { name: a }\n  - { name: a }\n', 'groups[1].name: "a" is named twice');
    await bad('stor_state: 2\n', 'stor_state');
    await bad('stor_state: 1\nvolumes: []\n', 'volumes: unknown key');
    await bad('stor_state: 1\ngroups: [{ name: "" }]\n', 'groups[0].name');
    await bad('stor_state: 1\ngroups: {', 'not YAML or JSON');
    expect(JSON.parse((await run(['plan', '--json'], 2)).stderr).error.code).toBe('USAGE');
    expect(JSON.parse((await run(['export', '--only', 'volumes', '--json'], 2)).stderr).error.code).toBe('USAGE');
  }, 120_000);
});

describe('stor export --only', () => {
  it("writes the sections asked for in the file's fixed order (api-keys or api_keys), and nothing of the others", async () => {
    // Fails if --only followed the order it was given in, or refused the dashed spelling.
    const run = appliance();
    await run(['group', 'create', 'ops']);
    const text = (await run(['export', '--only', 'api-keys,groups'])).stdout;
    expect(text.split('\n').filter((l) => /^\w/.test(l))).toEqual(['stor_state: 1', 'groups:', 'api_keys:']);
    expect(JSON.parse((await run(['export', '--only', 'privileges', '--json'])).stdout)).toEqual({
      stor_state: 1,
      privileges: [],
    });
  }, 120_000);

  it('a section exported without what it names plans a create, and apply fails it by name (exit 1): dependencies are not followed', async () => {
    // Pins that --only does not pull in dependencies and plan does not refuse the missing group up front.
    const a = appliance();
    await a(['group', 'create', 'ops']);
    await a(['privilege', 'create', 'ops', '--groups', 'ops', '--roles', 'READONLY_ADMIN']);
    const state = file('p.yaml', (await a(['export', '--only', 'privileges'])).stdout);
    const b = appliance();
    expect((await planOf(b, ['-f', state])).changes.map(line)).toEqual(['create privileges ops']);
    const applied = await applyOf(b, ['-f', state], 1);
    expect(applied.results.map((r) => [r.status, r.error])).toEqual([['failed', 'no local group named "ops"']]);
  }, 120_000);
});
