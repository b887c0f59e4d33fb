import { describe, expect, it } from 'vitest';
import { ProfileStore } from '../../../src/core/config/profiles.js';
import { E } from '../../../src/core/error-catalogue.js';
import { clientEnv } from '../../helpers/client-env.js';
import { runStor } from '../../helpers/run-stor.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/** Saves a profile for each server, named nas1, nas2, …, with the administrator's key. */
async function profilesFor(servers: TestServer[], env: Record<string, string>): Promise<void> {
  const store = new ProfileStore(env.STOR_CONFIG_DIR!);
  for (const [i, s] of servers.entries())
    await store.save(`nas${i + 1}`, { url: `ws://127.0.0.1:${s.port}`, apiKey: s.adminKey }, false);
}

describe('stor profile tag', () => {
  it('adds and removes tags, lists them, and keeps them when the profile is saved again by a login', async () => {
    const env = clientEnv();
    const store = new ProfileStore(env.STOR_CONFIG_DIR!);
    await store.save('nas1', { url: 'ws://127.0.0.1:6000', apiKey: '1-secret' }, true);
    await store.save('nas2', { url: 'ws://127.0.0.1:6001', apiKey: '2-secret' }, false);

    const tagged = await runStor(['profile', 'tag', 'nas1', 'prod', 'eu', 'prod', '--json'], { env });
    expect(tagged.code).toBe(0);
    expect(JSON.parse(tagged.stdout)).toEqual({ profile: 'nas1', tags: ['eu', 'prod'] });
    const list = JSON.parse((await runStor(['profile', 'list', '--json'], { env })).stdout) as {
      name: string;
      tags: string[];
    }[];
    expect(list.map((p) => [p.name, p.tags])).toEqual([
      ['embedded', []],
      ['nas1', ['eu', 'prod']],
      ['nas2', []],
    ]);
    const piped = await runStor(['profile', 'list'], { env });
    expect(piped.stdout).toBe(
      `\tembedded\t(embedded) ${env.STOR_HOME}\tnone\t\t\n*\tnas1\tws://127.0.0.1:6000\tnone\tws\teu,prod\n\tnas2\tws://127.0.0.1:6001\tnone\tws\t\n`,
    );
    expect(piped.stdout + tagged.stdout).not.toContain('secret');

    await store.save('nas1', { url: 'ws://127.0.0.1:6000', apiKey: '1-other' }, true);
    expect((await store.read()).profiles.nas1!.tags).toEqual(['eu', 'prod']);

    const removed = await runStor(['profile', 'tag', 'nas1', 'eu', '--remove', '--json'], { env });
    expect(JSON.parse(removed.stdout)).toEqual({ profile: 'nas1', tags: ['prod'] });
  });

  it('refuses a tag that --targets could not select, and an unknown profile', async () => {
    const env = clientEnv();
    await new ProfileStore(env.STOR_CONFIG_DIR!).save('nas1', { url: 'ws://127.0.0.1:6000', apiKey: 'k' }, false);
    for (const bad of ['@prod', 'a,b', 'x[1]']) {
      const r = await runStor(['profile', 'tag', 'nas1', bad, '--json'], { env });
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'USAGE' });
    }
    const unknown = await runStor(['profile', 'tag', 'nas9', 'prod', '--json'], { env });
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr).error).toMatchObject({ code: 'NOT_FOUND', hint: 'known profiles: nas1' });
  });
});

describe('--targets on read commands', () => {
  it('runs whoami on each target with its own key, in list order, as one JSON array', async () => {
    const servers = [await startTestServer(), await startTestServer()];
    const env = clientEnv();
    await profilesFor(servers, env);
    // The variables that pick one target or one key are not what --targets runs against.
    const r = await runStor(['--targets', 'nas[1-2]', 'whoami', '--json'], {
      env: { ...env, STOR_URL: 'ws://127.0.0.1:9', STOR_API_KEY: '9-wrong' },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.map((o: { target: string; ok: boolean; exit_code: number }) => [o.target, o.ok, o.exit_code])).toEqual([
      ['nas1', true, 0],
      ['nas2', true, 0],
    ]);
    expect(out[0].data).toMatchObject({
      username: 'truenas_admin',
      target: { kind: 'remote', url: `ws://127.0.0.1:${servers[0]!.port}`, profile: 'nas1' },
    });
    expect(out[1].data.target.url).toBe(`ws://127.0.0.1:${servers[1]!.port}`);
  });

  it('puts list output in one table led by the target, and a record per target in its own section', async () => {
    const servers = [await startTestServer(), await startTestServer()];
    const env = clientEnv();
    await profilesFor(servers, env);
    const table = await runStor(['--targets', 'all', 'privilege', 'list', '--parallel', '1'], { env });
    expect(table.code).toBe(0);
    const rows = table.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t')[0]);
    expect(new Set(rows)).toEqual(new Set(['nas1', 'nas2']));
    expect(rows.filter((t) => t === 'nas1').length).toBe(rows.length / 2);
    expect(table.stderr).toBe('2 ok\n');

    const sections = await runStor(['--targets', 'nas2,nas1', 'whoami'], { env });
    expect(sections.code).toBe(0);
    expect(sections.stdout.startsWith('== nas2 (TrueNAS 25.10.1, stor emulator) ==\n')).toBe(true);
    expect(sections.stdout).toContain('\n== nas1 (TrueNAS 25.10.1, stor emulator) ==\n');
    expect(sections.stdout).toContain('truenas_admin');
  });

  it('refuses --targets for a command that changes things, and together with --url or --profile', async () => {
    const env = clientEnv();
    await new ProfileStore(env.STOR_CONFIG_DIR!).save('nas1', { url: 'ws://127.0.0.1:9', apiKey: 'k' }, false);
    // api-key create would make one secret per target; rm makes nothing anywhere.
    for (const words of [
      ['api-key', 'create', 'k', '--user', 'root'],
      ['rm', '/mnt/tank/x'],
    ]) {
      const change = await runStor(['--targets', 'nas1', ...words, '--json'], { env });
      expect(change.code).toBe(2);
      expect(JSON.parse(change.stderr).error).toMatchObject({
        code: 'BAD_TARGETS',
        message: `\`stor ${words.slice(0, words[0] === 'rm' ? 1 : 2).join(' ')}\` does not take --targets`,
      });
    }
    const both = await runStor(['--targets', 'nas1', '--profile', 'nas1', 'whoami', '--json'], { env });
    expect(both.code).toBe(2);
    expect(JSON.parse(both.stderr).error).toMatchObject({ code: 'BAD_TARGETS' });
    const alone = await runStor(['whoami', '--parallel', '2', '--json'], { env });
    expect(alone.code).toBe(2);
    expect(JSON.parse(alone.stderr).error).toMatchObject({
      code: 'USAGE',
      message: '--parallel counts targets: it goes with --targets',
    });
    const unknown = await runStor(['--targets', 'nas[1-2]', 'whoami', '--json'], { env });
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stderr).error).toMatchObject({
      code: 'BAD_TARGETS',
      message: '--targets: no profile named "nas2"',
      hint: 'known profiles: nas1',
    });
    const one = await runStor(['--targets', 'nas9', 'whoami'], { env });
    expect(one.code).toBe(2);
  });
});

interface Outcome {
  target: string;
  ok: boolean;
  exit_code: number;
  data?: any;
  error?: { code: string; kind: string; message: string; hint?: string; details?: string[] };
  plan?: any;
}

const outcomesOf = (stdout: string) => JSON.parse(stdout) as Outcome[];
const brief = (outcomes: Outcome[]) => outcomes.map((o) => [o.target, o.exit_code, o.error?.code ?? null]);

async function datasetsOn(env: Record<string, string>, profile: string): Promise<string[]> {
  const r = await runStor(['--profile', profile, 'dataset', 'list', '--json'], { env });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { id: string }[]).map((d) => d.id);
}

describe('--targets on changes', () => {
  it('plans on every target, refuses off a terminal without --yes (nothing changed), then applies with --yes', async () => {
    const servers = [await startTestServer(), await startTestServer()];
    const env = clientEnv();
    await profilesFor(servers, env);

    const refused = await runStor(['--targets', 'all', 'dataset', 'create', 'tank/fleet'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('plan: `stor dataset create tank/fleet` on nas1, nas2\n');
    expect(refused.stderr).toContain('add --yes to confirm');
    for (const p of ['nas1', 'nas2']) expect(await datasetsOn(env, p)).not.toContain('tank/fleet');

    const applied = await runStor(['--targets', 'all', 'dataset', 'create', 'tank/fleet', '--yes', '--json'], { env });
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const outcomes = outcomesOf(applied.stdout);
    expect(brief(outcomes)).toEqual([
      ['nas1', 0, null],
      ['nas2', 0, null],
    ]);
    for (const o of outcomes)
      expect(o).toMatchObject({
        ok: true,
        plan: { action: 'stor dataset create tank/fleet' },
        data: { id: 'tank/fleet', created: true },
      });
    for (const p of ['nas1', 'nas2']) expect(await datasetsOn(env, p)).toContain('tank/fleet');

    // Re-run with --parents: the verb's own idempotence, per target, in one table led by the target.
    const again = await runStor(['--targets', 'all', 'dataset', 'create', 'tank/fleet', '--parents', '-y'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.startsWith('== nas1 (TrueNAS 25.10.1, stor emulator) ==\n')).toBe(true);
    expect(again.stdout.match(/^created\tfalse$/gm)).toHaveLength(2);
    expect(again.stderr.trim().split('\n').at(-1)).toBe('2 ok');
  });

  it('--json-lines: a line per target with its plan and result, nothing on stdout when the question is refused; the summary counts the targets changed', async () => {
    const servers = [await startTestServer(), await startTestServer()];
    const env = clientEnv();
    await profilesFor(servers, env);
    await new ProfileStore(env.STOR_CONFIG_DIR!).save(
      'nas3',
      { url: 'ws://127.0.0.1:9', apiKey: servers[0]!.adminKey },
      false,
    );
    const lines = (out: string) =>
      out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);

    const refused = await runStor(['--targets', 'all', 'dataset', 'create', 'tank/lines', '--json-lines'], { env });
    expect([refused.code, refused.stdout]).toEqual([2, '']);

    const made = await runStor(['--targets', 'all', 'dataset', 'create', 'tank/lines', '--yes', '--json-lines'], {
      env,
    });
    expect(made.code).toBe(3);
    const byTarget = new Map(lines(made.stdout).map((l) => [l.target ?? 'summary', l]));
    for (const t of ['nas1', 'nas2'])
      expect(byTarget.get(t)).toMatchObject({
        exit_code: 0,
        release: '25.10.1',
        plan: { action: 'stor dataset create tank/lines' },
        result: { id: 'tank/lines', created: true },
      });
    expect(byTarget.get('nas3')).toMatchObject({ exit_code: 3, release: null, error: { kind: 'unreachable' } });
    expect(byTarget.get('summary')).toEqual({ summary: { targets: 3, ok: 2, failed: 1, changed: 2, exit_code: 3 } });
    expect(lines(made.stdout).at(-1)).toHaveProperty('summary');

    // Nothing to do on either: ran to the end, changed none.
    const again = await runStor(
      ['--targets', 'nas1,nas2', 'dataset', 'create', 'tank/lines', '--parents', '--yes', '--json-lines'],
      { env },
    );
    expect(again.code, again.stderr).toBe(0);
    expect(lines(again.stdout).at(-1)).toEqual({ summary: { targets: 2, ok: 2, failed: 0, changed: 0, exit_code: 0 } });
  });

  it('does not apply where the plan failed (unreachable), and names the target in its hints', async () => {
    const servers = [await startTestServer()];
    const env = clientEnv();
    await profilesFor(servers, env);
    const store = new ProfileStore(env.STOR_CONFIG_DIR!);
    // Port 9 (discard) refuses connections on loopback: unreachable. nas3 has a key the appliance does not know.
    await store.save('nas2', { url: 'ws://127.0.0.1:9', apiKey: `1-${'a'.repeat(64)}` }, false);
    await store.save('nas3', { url: `ws://127.0.0.1:${servers[0]!.port}`, apiKey: `99-${'b'.repeat(64)}` }, false);

    const r = await runStor(['--targets', 'nas[1-3]', 'mkdir', '/mnt/tank/planned', '--yes', '--json'], { env });
    expect(r.code).toBe(3);
    const outcomes = outcomesOf(r.stdout);
    expect(brief(outcomes)).toEqual([
      ['nas1', 0, null],
      ['nas2', 3, E.UNREACHABLE.code],
      ['nas3', 4, E.KEY_REJECTED.code],
    ]);
    expect(outcomes[0]!.data).toEqual({ directories: [{ path: '/mnt/tank/planned', created: true, mode: '0755' }] });
    expect(outcomes[2]!.error!.hint).toContain('`stor --profile nas3 api-key create NAME --user USER`');
    expect(outcomes[2]).not.toHaveProperty('plan');

    const human = await runStor(['--targets', 'nas[1-3]', 'mkdir', '/mnt/tank/planned2', '--yes'], { env });
    expect(human.code).toBe(3);
    expect(human.stderr).toContain(
      'plan: `stor mkdir /mnt/tank/planned2` on nas1; not on nas2 (unreachable), nas3 (auth)\n',
    );
    expect(human.stderr).toMatch(/^nas3: hint: .*`stor --profile nas3 api-key create/m);
    expect(human.stderr.trim().split('\n').at(-1)).toBe('1 ok, 1 unreachable, 1 auth');
  });

  it('stops starting targets after the first failure, unless --keep-going', async () => {
    const servers = [await startTestServer(), await startTestServer(), await startTestServer()];
    const env = clientEnv();
    await profilesFor(servers, env);
    // Already on nas2: creating it again (no --parents) is the appliance's error there.
    expect((await runStor(['--profile', 'nas2', 'dataset', 'create', 'tank/dup'], { env })).code).toBe(0);

    const stopped = await runStor(
      ['--targets', 'nas[1-3]', 'dataset', 'create', 'tank/dup', '--fan-out', '1', '--yes', '--json'],
      { env },
    );
    expect(stopped.code).toBe(1);
    const outcomes = outcomesOf(stopped.stdout);
    expect(brief(outcomes)).toEqual([
      ['nas1', 0, null],
      ['nas2', 1, outcomes[1]!.error!.code],
      ['nas3', 1, E.NOT_ATTEMPTED.code],
    ]);
    expect(outcomes[1]!.error!.kind).toBe('failed');
    // The appliance's own reason travels with the target's error, as it does without --targets.
    expect(outcomes[1]!.error!.details).toEqual(['* pool_dataset_create.name: Path /mnt/tank/dup already exists']);
    expect(outcomes[2]).toMatchObject({ ok: false, plan: { action: 'stor dataset create tank/dup' } });
    expect(await datasetsOn(env, 'nas3')).not.toContain('tank/dup');

    const human = await runStor(
      ['--targets', 'nas[1-3]', 'dataset', 'create', 'tank/dup2', '--fan-out', '1', '--yes'],
      { env },
    );
    expect(human.code).toBe(0);
    const rerun = await runStor(
      ['--targets', 'nas[1-3]', 'dataset', 'create', 'tank/dup2', '--parallel', '1', '--yes'],
      { env },
    );
    expect(rerun.code).toBe(1);
    expect(rerun.stderr.trim().split('\n').at(-1)).toBe('0 ok, 1 failed, 2 not attempted');
    expect(rerun.stderr).toContain('nas1: * pool_dataset_create.name: Path /mnt/tank/dup2 already exists');

    const kept = await runStor(
      ['--targets', 'nas[1-3]', 'dataset', 'create', 'tank/dup', '--fan-out', '1', '--keep-going', '--yes', '--json'],
      { env },
    );
    expect(kept.code).toBe(1);
    expect(brief(outcomesOf(kept.stdout)).map(([t, code]) => [t, code])).toEqual([
      ['nas1', 1],
      ['nas2', 1],
      ['nas3', 0],
    ]);
    expect(await datasetsOn(env, 'nas3')).toContain('tank/dup');
  });

  it('a verb with --dry-run plans with it: --dry-run alone stops there, and a predicted error leaves that target alone', async () => {
    const servers = [await startTestServer(), await startTestServer()];
    const env = clientEnv();
    await profilesFor(servers, env);
    expect((await runStor(['--profile', 'nas1', 'dataset', 'create', 'tank/old'], { env })).code).toBe(0);

    const dry = await runStor(['--targets', 'all', 'dataset', 'delete', 'tank/old', '--dry-run', '--json'], { env });
    expect(dry.code).toBe(1);
    const planned = outcomesOf(dry.stdout);
    expect(planned[0]).toMatchObject({
      target: 'nas1',
      ok: true,
      data: { id: 'tank/old', dry_run: true, deleted: ['tank/old'] },
    });
    expect(planned[1]).toMatchObject({ target: 'nas2', ok: false, exit_code: 1 });
    expect(await datasetsOn(env, 'nas1')).toContain('tank/old');

    // Off a terminal the refusal points to the dry run, with the list quoted for the shell.
    const unconfirmed = await runStor(['--targets', 'nas[1-2]', 'dataset', 'delete', 'tank/old'], { env });
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain("`stor --targets 'nas[1-2]' dataset delete tank/old --dry-run`");

    const applied = await runStor(['--targets', 'all', 'dataset', 'delete', 'tank/old', '--yes', '--json'], { env });
    expect(applied.code).toBe(1);
    const outcomes = outcomesOf(applied.stdout);
    expect(outcomes[0]).toMatchObject({
      target: 'nas1',
      ok: true,
      plan: { dry_run: true, deleted: ['tank/old'] },
      data: { dry_run: false, deleted: ['tank/old'] },
    });
    expect(outcomes[1]).toEqual(planned[1]);
    expect(await datasetsOn(env, 'nas1')).not.toContain('tank/old');
  });

  it('call --targets runs read methods only; --fan-out and --parallel count targets and go with --targets', async () => {
    const servers = [await startTestServer(), await startTestServer()];
    const env = clientEnv();
    await profilesFor(servers, env);
    const read = await runStor(['--targets', 'all', 'call', 'privilege.query', '[]', '{"count":true}', '--json'], {
      env,
    });
    expect(read.code, read.stderr).toBe(0);
    expect(outcomesOf(read.stdout).map((o) => [o.target, typeof o.data])).toEqual([
      ['nas1', 'number'],
      ['nas2', 'number'],
    ]);
    const me = await runStor(['--targets', 'all', 'call', 'auth.me', '--json'], { env });
    expect(me.code, me.stderr).toBe(0);

    const write = await runStor(['--targets', 'all', 'call', 'privilege.delete', '4', '--json'], { env });
    expect(write.code).toBe(2);
    expect(JSON.parse(write.stderr).error).toMatchObject({
      code: 'BAD_TARGETS',
      message: expect.stringContaining('privilege.delete changes things'),
    });
    const unknown = await runStor(['--targets', 'all', 'call', 'pool.scrub.run', '--json'], { env });
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stderr).error).toMatchObject({
      code: 'BAD_TARGETS',
      hint: expect.stringContaining('--profile'),
    });

    const both = await runStor(['--targets', 'all', 'whoami', '--parallel', '2', '--fan-out', '2', '--json'], { env });
    expect(both.code).toBe(2);
    const alone = await runStor(['dataset', 'create', 'tank/x', '--fan-out', '2', '--json'], { env });
    expect(alone.code).toBe(2);
    expect(JSON.parse(alone.stderr).error).toMatchObject({
      code: 'USAGE',
      message: '--fan-out counts targets: it goes with --targets',
    });
    const secret = await runStor(['--targets', 'all', 'user', 'create', 'bob', '--password-stdin', '--json'], {
      env,
      stdin: 'pw\n',
    });
    expect(secret.code).toBe(2);
    expect(JSON.parse(secret.stderr).error).toMatchObject({ code: 'BAD_TARGETS' });
    const upload = await runStor(['upload', '--help'], { env });
    expect(upload.stdout).toMatch(/--parallel <n>\s+transfers at once/);
    expect(upload.stdout).toMatch(/--fan-out <n>\s+with --targets: targets at once/);
  });
});

describe('--targets says a shared preamble once', () => {
  it('privilege check: `judged as …` once for targets of one model, once per model when they differ', async () => {
    const env = clientEnv();
    await profilesFor(
      [await startTestServer(), await startTestServer(), await startTestServer({ roleExpansion: 'truenas-25.10.1' })],
      env,
    );
    const same = await runStor(['--targets', 'nas1,nas2', 'privilege', 'check'], { env });
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr.match(/judged as /g)).toHaveLength(1);
    const mixed = await runStor(['--targets', 'nas[1-3]', 'privilege', 'check'], { env });
    expect(mixed.stderr.match(/judged as /g)).toHaveLength(2);
    expect(mixed.stderr.trim().split('\n').at(-1)).toBe('3 ok');
  });
});
