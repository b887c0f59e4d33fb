import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { E } from '../../../src/core/error-catalogue.js';
import { spawnStor } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { makeUserWithPrivilege } from '../../helpers/runbook.js';
import { storIn } from '../../helpers/run-stor.js';
import { spawnServe, type ServeProcess } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';

interface Outcome {
  target: string;
  ok: boolean;
  exit_code: number;
  data?: { ok: boolean; privileges: { name: string; locks_out: boolean }[] };
  error?: { code: string; kind: string; message: string };
}

describe('a fleet of six stor serve instances', () => {
  it('privilege check --targets nas[1-6]: every target present, the lockout and the unreachable one reported, exit 3', async () => {
    // nas3 emulates 25.10.1's role expansion, under which a self-including role breaks login.
    const servers: ServeProcess[] = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        spawnServe(tempDir(), i === 2 ? ['--role-expansion', 'truenas-25.10.1'] : []),
      ),
    );
    const env = clientEnv();
    // The set-up (profiles, nas3's privilege, profile tags) and the read-backs run in-process
    // (storIn, the same `run()` the binary calls); every `--targets` command is the built binary.
    const inProcess = storIn(env);
    const keys = servers.map((s) => readFileSync(s.adminKeyFile, 'utf8').trim());
    for (const [i, s] of servers.entries())
      await inProcess(
        ['login', '--url', s.baseUrl, '--api-key-stdin', '--profile', `nas${i + 1}`, '--json'],
        0,
        keys[i]!,
      );
    // A privilege with PRIVILEGE_WRITE, which includes itself: a lockout under that model (as in lockout-models.test.ts).
    const nas3 = storIn({
      STOR_HOME: tempDir(),
      STOR_CONFIG_DIR: tempDir(),
      STOR_URL: servers[2]!.baseUrl,
      STOR_API_KEY: keys[2]!,
    });
    await makeUserWithPrivilege(nas3, 'sam', 'selfish', ['POOL_READ']);
    await nas3(['privilege', 'update', 'selfish', '--roles', 'PRIVILEGE_WRITE,POOL_READ', '--force']);
    // nas5 is stopped: nothing listens at its address any more.
    expect(await servers[4]!.stop()).toBe(0);

    const json = await spawnStor(['--targets', 'nas[1-6]', 'privilege', 'check', '--json'], { env });
    // Some target failed (nas5 unreachable): the first failure's exit code, 3, whatever the findings.
    expect(json.code).toBe(3);
    expect(json.stderr).toBe('');
    const outcomes = JSON.parse(json.stdout) as Outcome[];
    expect(outcomes.map((o) => [o.target, o.ok, o.exit_code])).toEqual([
      ['nas1', true, 0],
      ['nas2', true, 0],
      ['nas3', false, 6],
      ['nas4', true, 0],
      ['nas5', false, 3],
      ['nas6', true, 0],
    ]);
    expect(outcomes[2]!.data).toMatchObject({ ok: false, privileges: [{ name: 'selfish', locks_out: true }] });
    expect(outcomes[4]!.error).toMatchObject({ kind: 'unreachable' });
    expect(outcomes[4]).not.toHaveProperty('data');
    for (const o of [0, 1, 3, 5]) expect(outcomes[o]!.data).toMatchObject({ ok: true, privileges: [] });

    const human = await spawnStor(['--targets', 'nas[1-6]', 'privilege', 'check', '--parallel', '2'], { env });
    expect(human.code).toBe(3);
    // Piped: one table of findings, led by the target.
    expect(human.stdout).toMatch(/^nas3\t4\tselfish\tLOCKOUT\t.*PRIVILEGE_WRITE includes itself/m);
    expect(
      human.stdout
        .trim()
        .split('\n')
        .every((line) => line.startsWith('nas3\t')),
    ).toBe(true);
    expect(human.stderr).toContain('nas3: next: stor --profile nas3 privilege fix 4 --drop-self-including\n');
    expect(human.stderr).toMatch(/^stor: nas5: unreachable: /m);
    expect(human.stderr.trim().split('\n').at(-1)).toBe('4 ok, 1 lockout, 1 unreachable');

    // Without the stopped target, a lockout alone is exit 6; without it too, 0.
    const findings = await spawnStor(['--targets', 'nas[1-4],nas6', 'privilege', 'check', '--json'], { env });
    expect(findings.code).toBe(6);
    const clean = await spawnStor(['--targets', 'nas1,nas2,nas4', 'privilege', 'check'], { env });
    expect(clean.code).toBe(0);
    expect(clean.stderr.trim().split('\n').at(-1)).toBe('3 ok');

    // Changes (Deliver 3): the lab is nas1, nas2 and nas4.
    for (const p of ['nas1', 'nas2', 'nas4']) await inProcess(['profile', 'tag', p, 'lab']);
    const unconfirmed = await spawnStor(['--targets', '@lab', 'dataset', 'create', 'tank/fleet'], { env });
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('plan: `stor dataset create tank/fleet` on nas1, nas2, nas4\n');
    const datasetsOf = async (p: string) =>
      (JSON.parse((await inProcess(['--profile', p, 'dataset', 'list', '--json'])).stdout) as { id: string }[]).map(
        (d) => d.id,
      );
    expect(await datasetsOf('nas1')).not.toContain('tank/fleet');
    const created = await spawnStor(['--targets', '@lab', 'dataset', 'create', 'tank/fleet', '--yes'], { env });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr.trim().split('\n').at(-1)).toBe('3 ok');
    for (const p of ['nas1', 'nas2', 'nas4']) expect(await datasetsOf(p)).toContain('tank/fleet');
    expect(await datasetsOf('nas6')).not.toContain('tank/fleet');
    // Again without --parents: the appliance's "exists" on the first target stops the rest; with --keep-going each says it.
    const again = await spawnStor(
      ['--targets', '@lab', 'dataset', 'create', 'tank/fleet', '--yes', '--fan-out', '1', '--json'],
      { env },
    );
    expect(again.code).toBe(1);
    expect(
      (JSON.parse(again.stdout) as Outcome[]).map((o) => [o.target, o.error?.code === E.NOT_ATTEMPTED.code]),
    ).toEqual([
      ['nas1', false],
      ['nas2', true],
      ['nas4', true],
    ]);
    const kept = await spawnStor(
      ['--targets', '@lab', 'dataset', 'create', 'tank/fleet', '--yes', '--fan-out', '1', '--keep-going'],
      { env },
    );
    expect(kept.code).toBe(1);
    expect(kept.stderr.trim().split('\n').at(-1)).toBe('0 ok, 3 failed');
    const parents = await spawnStor(['--targets', '@lab', 'dataset', 'create', 'tank/fleet', '--parents', '--yes'], {
      env,
    });
    expect(parents.code, parents.stderr).toBe(0);

    // No key in any output.
    for (const out of [json, human, findings, clean, unconfirmed, created, again, kept, parents])
      for (const key of keys) expect(out.stdout + out.stderr).not.toContain(key.split('-')[1]!);
  });

  it('profile import of a YAML file through the built binary, then --targets by its tags', async () => {
    const servers = await Promise.all([spawnServe(tempDir()), spawnServe(tempDir())]);
    const env = clientEnv();
    const dir = tempDir();
    const keys = servers.map((s) => readFileSync(s.adminKeyFile, 'utf8').trim());
    writeFileSync(join(dir, 'b.key'), `${keys[1]}\n`, { mode: 0o600 });
    writeFileSync(
      join(dir, 'fleet.yaml'),
      `- name: a\n  url: ${servers[0]!.baseUrl}\n  key_stdin: true\n  tags: [lab]\n- name: b\n  url: ${servers[1]!.baseUrl}\n  key_file: b.key\n  tags: [lab, prod]\n`,
    );
    const imported = await spawnStor(['profile', 'import', join(dir, 'fleet.yaml')], { env, stdin: `${keys[0]}\n` });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toBe(`a\t${servers[0]!.baseUrl}\ttrue\tlab\nb\t${servers[1]!.baseUrl}\ttrue\tlab,prod\n`);
    const lab = await spawnStor(['--targets', '@lab', 'dataset', 'list'], { env });
    expect(lab.code, lab.stderr).toBe(0);
    expect(lab.stderr).toBe('2 ok\n');
    expect(
      new Set(
        lab.stdout
          .trim()
          .split('\n')
          .map((l) => l.split('\t')[0]),
      ),
    ).toEqual(new Set(['a', 'b']));
    for (const out of [imported, lab])
      for (const key of keys) expect(out.stdout + out.stderr).not.toContain(key.split('-')[1]!);
  });
});
