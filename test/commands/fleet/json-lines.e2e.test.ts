/**
 * `--targets … --json-lines`: one JSON line per target as each finishes, then a summary line, from
 * the built binary against `stor serve` instances on loopback; and `plan`'s exit code over a fleet
 * (an error's code before drift's 7, the first error in LIST order before a later one).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { closedPort, importFleet, keyOf, streamStor } from '../../helpers/fleet.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';

interface TargetLine {
  target: string;
  url?: string;
  release: string | null;
  exit_code: number;
  result?: { ok?: boolean; username?: string };
  error?: { code: string; kind: string; message: string; hint?: string };
}

interface SummaryLine {
  summary: { targets: number; ok: number; failed: number; changed?: number; exit_code: number };
}

describe('--targets … --json-lines', () => {
  it('a mixed 25.10.1 + 26.0 fleet imported from one file: a line per target as each finishes (one held back comes last), a failing target fails its line only, then the summary', async () => {
    const [a, b, c] = await Promise.all([
      spawnServe(tempDir()),
      // TrueNAS 26 logs the key in with SCRAM, which names the key's user: the file says it.
      spawnServe(tempDir(), ['--emulate', 'truenas-26.0']),
      spawnServe(tempDir()),
    ]);
    const env = clientEnv();
    const dead = `ws://127.0.0.1:${await closedPort()}`;
    await importFleet(env, [
      { name: 'a', url: a.baseUrl, key: keyOf(a) },
      { name: 'b', url: b.baseUrl, key: keyOf(b), username: 'truenas_admin' },
      { name: 'c', url: c.baseUrl, key: keyOf(c) },
      { name: 'd', url: dead, key: keyOf(a) },
    ]);

    // b's server is stopped: its connection waits (well inside --timeout) until it runs again.
    b.child.kill('SIGSTOP');
    onTestFinished(() => void b.child.kill('SIGCONT'));
    const run = streamStor(['--targets', '@all', 'privilege', 'check', '--json-lines', '--timeout', '600'], env);
    const first = [await run.line(), await run.line(), await run.line()].map((l) => JSON.parse(l!) as TargetLine);
    // Every other target has its line out while b is still held back.
    expect(first.map((l) => l.target).sort()).toEqual(['a', 'c', 'd']);
    b.child.kill('SIGCONT');
    const rest = [await run.line(), await run.line(), await run.line()];
    const { code, stderr } = await run.done;
    expect(rest[2]).toBeUndefined();
    const held = JSON.parse(rest[0]!) as TargetLine;
    const summary = JSON.parse(rest[1]!) as SummaryLine;

    const byTarget = Object.fromEntries([...first, held].map((l) => [l.target, l]));
    for (const [name, server] of [
      ['a', a],
      ['c', c],
    ] as const) {
      expect(byTarget[name]).toMatchObject({ target: name, url: server.baseUrl, exit_code: 0, result: { ok: true } });
      expect(byTarget[name]!.release).toMatch(/^25\.10\./);
      expect(byTarget[name]).not.toHaveProperty('error');
    }
    expect(held).toMatchObject({ target: 'b', url: b.baseUrl, exit_code: 0, result: { ok: true } });
    expect(held.release).toMatch(/^26\./);
    expect(byTarget.d).toMatchObject({
      target: 'd',
      url: dead,
      release: null,
      exit_code: 3,
      error: { kind: 'unreachable' },
    });
    expect(byTarget.d).not.toHaveProperty('result');
    // The first failure's code, as --json and a person's run have it.
    expect(summary).toEqual({ summary: { targets: 4, ok: 3, failed: 1, exit_code: 3 } });
    expect(code).toBe(3);
    expect(stderr).toBe('');
    for (const key of [a, b, c].map(keyOf))
      expect(JSON.stringify([first, rest, stderr])).not.toContain(key.split('-')[1]!);
  });

  it("plan's fleet exit code: 0 with no drift, 7 with drift on any target, an error's code over drift, the first error in LIST order over a later one", async () => {
    const [p, q] = await Promise.all([spawnServe(tempDir()), spawnServe(tempDir())]);
    const env = clientEnv();
    const dead = `ws://127.0.0.1:${await closedPort()}`;
    await importFleet(env, [
      { name: 'p', url: p.baseUrl, key: keyOf(p) },
      { name: 'q', url: q.baseUrl, key: keyOf(q) },
      { name: 'dead', url: dead, key: keyOf(p) },
      // A key p does not know: its login fails (exit 4).
      { name: 'wrongkey', url: p.baseUrl, key: `1-${'x'.repeat(64)}` },
    ]);
    const made = await spawnStor(['--profile', 'p', 'group', 'create', 'planners'], { env });
    expect(made.code, made.stderr).toBe(0);
    const file = join(tempDir(), 'state.yaml');
    writeFileSync(file, 'stor_state: 1\ngroups:\n  - name: planners\n');

    const plan = async (targets: string) => {
      const r = await spawnStor(['--targets', targets, 'plan', '-f', file, '--json-lines'], { env });
      const lines = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as TargetLine & SummaryLine);
      return {
        code: r.code,
        stderr: r.stderr,
        targets: lines.slice(0, -1).map((l) => [l.target, l.exit_code]),
        summary: lines.at(-1)!.summary,
      };
    };
    expect(await plan('p')).toEqual({
      code: 0,
      stderr: '',
      targets: [['p', 0]],
      summary: { targets: 1, ok: 1, failed: 0, changed: 0, exit_code: 0 },
    });
    const drift = await plan('p,q');
    expect([drift.code, drift.summary]).toEqual([7, { targets: 2, ok: 2, failed: 0, changed: 1, exit_code: 7 }]);
    expect(new Map(drift.targets as [string, number][])).toEqual(
      new Map([
        ['p', 0],
        ['q', 7],
      ]),
    );
    const error = await plan('q,dead,p');
    expect([error.code, error.summary]).toEqual([3, { targets: 3, ok: 2, failed: 1, changed: 1, exit_code: 3 }]);
    expect((await plan('dead,wrongkey')).code).toBe(3);
    expect((await plan('wrongkey,dead')).code).toBe(4);
    // --json's run has the same code.
    expect((await spawnStor(['--targets', 'q,dead', 'plan', '-f', file, '--json'], { env })).code).toBe(3);
  });

  it('--json with --json-lines is a usage error; without --targets the one result is one line', async () => {
    const env = clientEnv();
    const both = await spawnStor(['profile', 'list', '--json', '--json-lines'], { env });
    expect(both.code).toBe(2);
    expect(JSON.parse(both.stderr).error).toMatchObject({ code: 'USAGE' });
    expect(both.stderr).toContain('--json-lines');
    const one = await spawnStor(['profile', 'list', '--json-lines'], { env });
    expect(one.code, one.stderr).toBe(0);
    const json = await spawnStor(['profile', 'list', '--json'], { env });
    expect(one.stdout).toBe(`${JSON.stringify(JSON.parse(json.stdout))}\n`);
  });
});
