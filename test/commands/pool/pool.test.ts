import { describe, expect, it } from 'vitest';
import { runStor } from '../../helpers/run-stor.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('stor pool list', () => {
  it("lists the embedded appliance's pool, healthy, its size what is allocated and free", async () => {
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
    const r = await runStor(['pool', 'list', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const [tank, ...others] = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(others).toEqual([]);
    expect(tank).toMatchObject({ name: 'tank', status: 'ONLINE', healthy: true, path: '/mnt/tank' });
    expect(tank!.size).toBe((tank!.allocated as number) + (tank!.free as number));
  });

  it('an argument it does not take is a usage error (exit 2)', async () => {
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
    const r = await runStor(['pool', 'list', 'tank'], { env });
    expect(r.code).toBe(2);
  });
});
