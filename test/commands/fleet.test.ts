import { describe, expect, it } from 'vitest';
import { ProfileStore } from '../../src/core/config/profiles.js';
import { clientEnv } from '../helpers/client-env.js';
import { runStor } from '../helpers/run-stor.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** Saves a profile for each server, named nas1, nas2, …, with the administrator's key. */
async function profilesFor(servers: TestServer[], env: Record<string, string>): Promise<void> {
  const store = new ProfileStore(env.STOR_CONFIG_DIR!);
  for (const [i, s] of servers.entries()) await store.save(`nas${i + 1}`, { url: `ws://127.0.0.1:${s.port}`, apiKey: s.adminKey }, false);
}

describe('stor profile tag (issue 15, Deliver 1)', () => {
  it('adds and removes tags, lists them, and keeps them when the profile is saved again by a login', async () => {
    const env = clientEnv();
    const store = new ProfileStore(env.STOR_CONFIG_DIR!);
    await store.save('nas1', { url: 'ws://127.0.0.1:6000', apiKey: '1-secret' }, true);
    await store.save('nas2', { url: 'ws://127.0.0.1:6001', apiKey: '2-secret' }, false);

    const tagged = await runStor(['profile', 'tag', 'nas1', 'prod', 'eu', 'prod', '--json'], { env });
    expect(tagged.code).toBe(0);
    expect(JSON.parse(tagged.stdout)).toEqual({ profile: 'nas1', tags: ['eu', 'prod'] });
    const list = JSON.parse((await runStor(['profile', 'list', '--json'], { env })).stdout) as { name: string; tags: string[] }[];
    expect(list.map((p) => [p.name, p.tags])).toEqual([['nas1', ['eu', 'prod']], ['nas2', []]]);
    const piped = await runStor(['profile', 'list'], { env });
    expect(piped.stdout).toBe('*\tnas1\tws://127.0.0.1:6000\tnone\tws\teu,prod\n\tnas2\tws://127.0.0.1:6001\tnone\tws\t\n');
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
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stderr).error).toMatchObject({ code: 'UNKNOWN_PROFILE', hint: 'known profiles: nas1' });
  });
});

describe('--targets on read commands (issue 15, Deliver 2)', () => {
  it('runs whoami on each target with its own key, in list order, as one JSON array', async () => {
    const servers = [await startTestServer(), await startTestServer()];
    const env = clientEnv();
    await profilesFor(servers, env);
    // The variables that pick one target or one key are not what --targets runs against.
    const r = await runStor(['--targets', 'nas[1-2]', 'whoami', '--json'], { env: { ...env, STOR_URL: 'ws://127.0.0.1:9', STOR_API_KEY: '9-wrong' } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.map((o: { target: string; ok: boolean; exit_code: number }) => [o.target, o.ok, o.exit_code])).toEqual([['nas1', true, 0], ['nas2', true, 0]]);
    expect(out[0].data).toMatchObject({ username: 'truenas_admin', target: { kind: 'remote', url: `ws://127.0.0.1:${servers[0]!.port}`, profile: 'nas1' } });
    expect(out[1].data.target.url).toBe(`ws://127.0.0.1:${servers[1]!.port}`);
  });

  it('puts list output in one table led by the target, and a record per target in its own section', async () => {
    const servers = [await startTestServer(), await startTestServer()];
    const env = clientEnv();
    await profilesFor(servers, env);
    const table = await runStor(['--targets', 'all', 'privilege', 'list', '--parallel', '1'], { env });
    expect(table.code).toBe(0);
    const rows = table.stdout.trim().split('\n').map((l) => l.split('\t')[0]);
    expect(new Set(rows)).toEqual(new Set(['nas1', 'nas2']));
    expect(rows.filter((t) => t === 'nas1').length).toBe(rows.length / 2);
    expect(table.stderr).toBe('2 ok\n');

    const sections = await runStor(['--targets', 'nas2,nas1', 'whoami'], { env });
    expect(sections.code).toBe(0);
    expect(sections.stdout.startsWith('== nas2 ==\n')).toBe(true);
    expect(sections.stdout).toContain('\n== nas1 ==\n');
    expect(sections.stdout).toContain('truenas_admin');
  });

  it('refuses --targets for a command that changes things, and together with --url or --profile', async () => {
    const env = clientEnv();
    await new ProfileStore(env.STOR_CONFIG_DIR!).save('nas1', { url: 'ws://127.0.0.1:9', apiKey: 'k' }, false);
    const change = await runStor(['--targets', 'nas1', 'mkdir', '/mnt/tank/x', '--json'], { env });
    expect(change.code).toBe(2);
    expect(JSON.parse(change.stderr).error).toMatchObject({ code: 'BAD_TARGETS', message: '`stor mkdir` does not take --targets' });
    const both = await runStor(['--targets', 'nas1', '--profile', 'nas1', 'whoami', '--json'], { env });
    expect(both.code).toBe(2);
    expect(JSON.parse(both.stderr).error).toMatchObject({ code: 'BAD_TARGETS' });
    const alone = await runStor(['whoami', '--parallel', '2', '--json'], { env });
    expect(alone.code).toBe(2);
    expect(JSON.parse(alone.stderr).error).toMatchObject({ code: 'USAGE', message: '--parallel counts targets: it goes with --targets' });
    const unknown = await runStor(['--targets', 'nas[1-2]', 'whoami', '--json'], { env });
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stderr).error).toMatchObject({ code: 'UNKNOWN_PROFILE', message: 'no profile named "nas2"', hint: 'known profiles: nas1' });
  });
});
