/**
 * Saved plans (docs/STATE.md "Saved plans"): `stor plan -f FILE --out PLAN` writes the plan with a
 * fingerprint of what it read; `stor apply PLAN` applies exactly that plan, or refuses
 * (PLAN_CHANGED) and changes nothing when the target no longer matches what was read, and refuses
 * a plan made for another target (PLAN_TARGET) or a file it cannot trust (PLAN_FILE_INVALID).
 * Single-target `plan --json` / `apply --json` carry top-level `changed` and `comment`.
 * Against `stor serve` on port 0 and the embedded appliance; the commands run in-process (storIn,
 * the same `run()` the binary calls), the first plan's --out (its 0600 file, its exit 7) through
 * the built binary.
 */
import { chmodSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeUserWithPrivilege, stor } from '../../helpers/runbook.js';
import { clientEnv } from '../../helpers/client-env.js';
import { storIn } from '../../helpers/run-stor.js';
import { EMBEDDED_MEANT } from '../../helpers/embedded-meant.js';
import { spawnServe, type ServeProcess } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';

const servers: ServeProcess[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

async function serve(): Promise<ServeProcess> {
  const server = await spawnServe(tempDir());
  servers.push(server);
  return server;
}

const keyOf = (server: ServeProcess) => readFileSync(server.adminKeyFile, 'utf8').trim();

const remote = (server: ServeProcess) => ({
  ...clientEnv(),
  STOR_URL: server.baseUrl,
  STOR_API_KEY: keyOf(server),
  STOR_USER: 'truenas_admin',
  STOR_SESSION: 'off',
});
const on = (server: ServeProcess) => storIn(remote(server));

const STATE = [
  'stor_state: 1',
  'groups:',
  '  - { name: web }',
  'datasets:',
  '  - { name: tank/proj, comments: projects }',
  '',
].join('\n');

function files() {
  const dir = tempDir('stor-saved-plan-');
  const state = join(dir, 'state.yaml');
  writeFileSync(state, STATE);
  return { dir, state, plan: join(dir, 'state.plan') };
}

const errorOf = (stderr: string) => (JSON.parse(stderr) as { error: { code: string; message: string } }).error;

interface PlanJson {
  changed: boolean;
  comment: string;
  pending: boolean;
  changes: { kind: string; name: string; action: string }[];
}

describe('stor plan --out / stor apply PLAN', () => {
  it('a hand change after the plan: apply PLAN refuses with PLAN_CHANGED, names the object, changes nothing', async () => {
    const server = await serve();
    const run = on(server);
    const { state, plan } = files();
    const planned = await stor(remote(server))(['plan', '-f', state, '--out', plan, '--json'], 7);
    const json = JSON.parse(planned.stdout) as PlanJson;
    expect(json.changed).toBe(true);
    expect(json.comment).toMatch(/^2 to create, 0 to update, 0 to delete on /);
    expect(statSync(plan).mode & 0o777).toBe(0o600);
    const text = readFileSync(plan, 'utf8');
    expect(text).not.toContain(keyOf(server));
    expect(text).not.toContain(keyOf(server).split('-')[1]);

    // By hand, on the target: the group the plan read as absent now exists.
    await run(['group', 'create', 'web']);
    const refused = await run(['apply', plan, '--yes', '--json'], 1);
    const error = errorOf(refused.stderr);
    expect(error.code).toBe('PLAN_CHANGED');
    expect(error.message).toContain('group web');
    // Nothing of the plan was applied: the dataset is still missing.
    const datasets = JSON.parse((await run(['dataset', 'list', '--json'])).stdout) as { id?: string; name?: string }[];
    expect(datasets.map((d) => d.id ?? d.name)).not.toContain('tank/proj');
  });

  it('without a hand change: apply PLAN applies exactly the saved plan, then the target matches', async () => {
    const server = await serve();
    const run = on(server);
    const { state, plan } = files();
    const saved = JSON.parse((await run(['plan', '-f', state, '--out', plan, '--json'], 7)).stdout) as PlanJson;
    // The state file changes after the plan: the plan holds what was approved, not the file's new text.
    writeFileSync(state, `${STATE}  - { name: tank/other }\n`);
    const applied = JSON.parse((await run(['apply', plan, '--yes', '--json'])).stdout) as {
      changed: boolean;
      comment: string;
      results: { kind: string; name: string; action: string; status: string }[];
    };
    expect(applied.changed).toBe(true);
    expect(applied.comment).toMatch(/^2 done, 0 failed, 0 not attempted on /);
    expect(applied.results.map((r) => `${r.action} ${r.kind} ${r.name} ${r.status}`)).toEqual(
      saved.changes.map((c) => `${c.action} ${c.kind} ${c.name} done`),
    );
    const datasets = JSON.parse((await run(['dataset', 'list', '--json'])).stdout) as { id?: string; name?: string }[];
    expect(datasets.map((d) => d.id ?? d.name)).not.toContain('tank/other');
    const after = JSON.parse((await run(['plan', '-f', state, '--json'], 7)).stdout) as PlanJson;
    expect(after.changes.map((c) => c.name)).toEqual(['tank/other']);
    // The plan is spent: applying it again finds the world it read changed.
    expect(errorOf((await run(['apply', plan, '--yes', '--json'], 1)).stderr).code).toBe('PLAN_CHANGED');
  });

  it('least privilege: a plan saved with a read-only key is applied with a key that may write', async () => {
    const server = await serve();
    const admin = on(server);
    const auditorKey = await makeUserWithPrivilege(admin, 'auditor', 'auditors', ['READONLY_ADMIN']);
    const auditor = storIn({ ...clientEnv(), STOR_URL: server.baseUrl, STOR_API_KEY: auditorKey, STOR_SESSION: 'off' });
    const { state, plan } = files();
    await auditor(['plan', '-f', state, '--out', plan, '--json'], 7);
    // The read-only key cannot apply it: the appliance refuses the first write …
    const refused = JSON.parse((await auditor(['apply', plan, '--yes', '--json'], 1)).stdout) as {
      changed: boolean;
      results: { status: string; error?: string }[];
    };
    expect(refused.changed).toBe(false);
    expect(refused.results[0]).toMatchObject({ status: 'failed', error: expect.stringContaining('Not authorized') });
    // … the administrator's can: who reads is not part of what was read.
    const applied = JSON.parse((await admin(['apply', plan, '--yes', '--json'])).stdout) as { changed: boolean };
    expect(applied.changed).toBe(true);
    expect(JSON.parse((await admin(['plan', '-f', state, '--json'])).stdout)).toMatchObject({ changed: false });
  });

  it('a hand change to a field the plan compared is PLAN_CHANGED; a change to an object it did not read is not', async () => {
    const server = await serve();
    const run = on(server);
    const { state, plan } = files();
    await run(['plan', '-f', state, '--out', plan], 7);
    // Not read: a group the file does not name (no --prune); the plan still applies.
    await run(['group', 'create', 'elsewhere']);
    await run(['apply', plan, '--yes']);
    // Now the dataset matches the file: a plan of no change, which still read its comments.
    await run(['plan', '-f', state, '--out', plan]);
    await run(['dataset', 'update', 'tank/proj', '--comments', 'by hand', '--yes']);
    const error = errorOf((await run(['apply', plan, '--yes', '--json'], 1)).stderr);
    expect(error.code).toBe('PLAN_CHANGED');
    expect(error.message).toContain('dataset tank/proj');
    expect((await run(['dataset', 'show', 'tank/proj', '--json'])).stdout).toContain('by hand');
  });

  it('a saved plan takes no -f, --prune, --normalize or --force, and --out is one target’s (refused with --targets)', async () => {
    const server = await serve();
    const run = on(server);
    const { state, plan } = files();
    await run(['plan', '-f', state, '--out', plan], 7);
    for (const extra of [['-f', state], ['--prune'], ['--force']])
      expect(errorOf((await run(['apply', plan, ...extra, '--yes', '--json'], 2)).stderr).code).toBe('USAGE');
    expect(errorOf((await run(['apply', '--yes', '--json'], 2)).stderr).message).toContain('saved plan (PLAN)');
    const fleet = await run(['--targets', server.baseUrl, 'plan', '-f', state, '--out', plan, '--json'], 2);
    expect(fleet.stderr).toContain('--out');
    await run(['plan', '-f', state], 7);
  });

  it('a plan made for one target is refused on another (PLAN_TARGET), and nothing is changed there', async () => {
    const [a, b] = await Promise.all([serve(), serve()]);
    const { state, plan } = files();
    await on(a)(['plan', '-f', state, '--out', plan], 7);
    const refused = await on(b)(['apply', plan, '--yes', '--json'], 2);
    const error = errorOf(refused.stderr);
    expect(error.code).toBe('PLAN_TARGET');
    expect(error.message).toContain(a.baseUrl.replace(/^ws/, ''));
    await on(b)(['plan', '-f', state], 7);
  });

  it('a plan file that is not 0600, or corrupt, or a state file, is refused before the target is touched', async () => {
    const server = await serve();
    const run = on(server);
    const { state, plan } = files();
    await run(['plan', '-f', state, '--out', plan], 7);
    chmodSync(plan, 0o644);
    expect(errorOf((await run(['apply', plan, '--yes', '--json'], 2)).stderr).code).toBe('PLAN_FILE_INVALID');
    chmodSync(plan, 0o600);
    const good = readFileSync(plan, 'utf8');
    writeFileSync(plan, good.replace('"name": "web"', '"name": "wab"'));
    expect(errorOf((await run(['apply', plan, '--yes', '--json'], 2)).stderr).code).toBe('PLAN_FILE_INVALID');
    writeFileSync(plan, good.slice(0, 100));
    expect(errorOf((await run(['apply', plan, '--yes', '--json'], 2)).stderr).code).toBe('PLAN_FILE_INVALID');
    chmodSync(state, 0o600);
    const stateAsPlan = errorOf((await run(['apply', state, '--yes', '--json'], 2)).stderr);
    expect(stateAsPlan.code).toBe('PLAN_FILE_INVALID');
    expect(stateAsPlan.message).toContain('-f');
    await run(['plan', '-f', state], 7);
  });

  it('--out replaces a symbolic link placed at the path instead of writing through it', async () => {
    const server = await serve();
    const { dir, state, plan } = files();
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'keep me\n');
    symlinkSync(victim, plan);
    await on(server)(['plan', '-f', state, '--out', plan], 7);
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n');
    expect(statSync(plan).mode & 0o777).toBe(0o600);
  });

  it('on the embedded appliance: the plan names its state directory; another one refuses it; its own applies it', async () => {
    const { state, plan } = files();
    const home = tempDir('stor-embedded-home-');
    const env = { ...clientEnv(), STOR_HOME: home, STOR_SESSION: 'off', ...EMBEDDED_MEANT };
    const run = storIn(env);
    const other = storIn({ ...clientEnv(), STOR_SESSION: 'off', ...EMBEDDED_MEANT });
    const planned = JSON.parse((await run(['plan', '-f', state, '--out', plan, '--json'], 7)).stdout) as PlanJson;
    expect(planned.comment).toBe('2 to create, 0 to update, 0 to delete on the embedded appliance');
    expect(readFileSync(plan, 'utf8')).toContain(home);
    expect(errorOf((await other(['apply', plan, '--yes', '--json'], 2)).stderr).code).toBe('PLAN_TARGET');
    await run(['apply', plan, '--yes']);
    const none = JSON.parse((await run(['plan', '-f', state, '--json'])).stdout) as PlanJson;
    expect(none.changed).toBe(false);
    expect(none.comment).toBe('0 to create, 0 to update, 0 to delete on the embedded appliance');
    const noop = JSON.parse((await run(['apply', '-f', state, '--yes', '--json'])).stdout) as PlanJson;
    expect(noop.changed).toBe(false);
  });
});
