/**
 * `stor system info` and `stor pool list` with the built binary against two `stor serve`
 * processes, one at a time and with `--targets` (docs/COMMANDS.md "Commands").
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../helpers/bin.js';
import { clientEnv } from '../helpers/client-env.js';
import { spawnServe } from '../helpers/serve-process.js';
import { tempDir } from '../helpers/temp-dir.js';

interface Outcome<T> {
  target: string;
  ok: boolean;
  exit_code: number;
  data?: T;
}

async function twoTargets() {
  const servers = await Promise.all([spawnServe(tempDir()), spawnServe(tempDir())]);
  const env = clientEnv();
  for (const [i, s] of servers.entries()) {
    const key = readFileSync(s.adminKeyFile, 'utf8').trim();
    const login = await spawnStor(
      ['login', '--url', s.baseUrl, '--api-key-stdin', '--profile', `nas${i + 1}`, '--json'],
      { env, stdin: key },
    );
    expect(login.code, login.stderr).toBe(0);
  }
  return { servers, env };
}

describe('stor system info', () => {
  it("--json is system.info in 25.10.1's field names and order, times as ISO text, and the boot id; --targets gives each its own", async () => {
    const { env } = await twoTargets();
    const one = await spawnStor(['--profile', 'nas1', 'system', 'info', '--json'], { env });
    expect(one.code, one.stderr).toBe(0);
    const info = JSON.parse(one.stdout) as Record<string, unknown>;
    expect(Object.keys(info)).toEqual([
      'version',
      'buildtime',
      'hostname',
      'physmem',
      'model',
      'cores',
      'physical_cores',
      'loadavg',
      'uptime',
      'uptime_seconds',
      'system_serial',
      'system_product',
      'system_product_version',
      'license',
      'boottime',
      'datetime',
      'timezone',
      'system_manufacturer',
      'ecc_memory',
      'boot_id',
    ]);
    expect(info.version).toBe('25.10.1');
    expect(info.boottime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);

    const fleet = await spawnStor(['--targets', 'nas1,nas2', 'system', 'info', '--json'], { env });
    expect(fleet.code, fleet.stderr).toBe(0);
    const outcomes = JSON.parse(fleet.stdout) as Outcome<{ version: string; boot_id: string }>[];
    expect(outcomes.map((o) => [o.target, o.ok, o.data?.version])).toEqual([
      ['nas1', true, '25.10.1'],
      ['nas2', true, '25.10.1'],
    ]);
    // Each server is its own boot; nas1's is the one the single run saw.
    expect(outcomes[0]!.data!.boot_id).toBe(info.boot_id);
    expect(outcomes[1]!.data!.boot_id).not.toBe(info.boot_id);

    const human = await spawnStor(['--targets', 'nas1,nas2', 'system', 'info'], { env });
    expect(human.code, human.stderr).toBe(0);
    // A record per target, each under its name.
    expect(human.stdout).toMatch(/^== nas1 \(TrueNAS 25\.10\.1, stor emulator\) ==\nrelease\t25\.10\.1$/m);
    expect(human.stdout).toMatch(/^== nas2 \(TrueNAS 25\.10\.1, stor emulator\) ==\n(.*\n)*boot id\t[0-9a-f-]{36}$/m);
  });
});

describe('stor pool list', () => {
  it('shows health at a glance, marks a pool that is not healthy, and --targets runs it on each target', async () => {
    const { servers, env } = await twoTargets();
    const healthy = await spawnStor(['--profile', 'nas1', 'pool', 'list', '--json'], { env });
    expect(healthy.code, healthy.stderr).toBe(0);
    const [tank] = JSON.parse(healthy.stdout) as Record<string, unknown>[];
    expect(tank).toMatchObject({
      id: 1,
      name: 'tank',
      status: 'ONLINE',
      healthy: true,
      warning: false,
      status_detail: null,
      path: '/mnt/tank',
    });
    expect(tank!.size).toBe((tank!.allocated as number) + (tank!.free as number));

    // nas2's pool directory is gone: its pool answers OFFLINE and not healthy (docs/RELEASES.md "Emulator behaviours").
    rmSync(join(servers[1]!.stateDir, 'mnt', 'tank'), { recursive: true });
    const fleet = await spawnStor(['--targets', 'nas1,nas2', 'pool', 'list', '--json'], { env });
    expect(fleet.code, fleet.stderr).toBe(0);
    const outcomes = JSON.parse(fleet.stdout) as Outcome<
      { name: string; status: string; healthy: boolean; size: number | null }[]
    >[];
    expect(outcomes.map((o) => [o.target, o.ok, o.data?.map((p) => [p.name, p.status, p.healthy])])).toEqual([
      ['nas1', true, [['tank', 'ONLINE', true]]],
      ['nas2', true, [['tank', 'OFFLINE', false]]],
    ]);
    expect(outcomes[1]!.data![0]!.size).toBeNull();

    // Piped: one row per pool led by its target; the mark is a word, so it survives without colour.
    const human = await spawnStor(['--targets', 'nas1,nas2', 'pool', 'list'], { env });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^nas1\ttank\tok\tONLINE\t\d+\t\d+\t\d+\t$/m);
    expect(human.stdout).toMatch(/^nas2\ttank\tUNHEALTHY\tOFFLINE\t\t\t\t$/m);
  });
});
