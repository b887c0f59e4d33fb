import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('bin/stor on a fresh machine', () => {
  it('reports the seeded administrator from a fresh STOR_HOME', async () => {
    const home = tempDir();
    const { code, stdout, stderr } = await spawnStor(['whoami', '--json'], { env: { STOR_HOME: home } });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const me = JSON.parse(stdout);
    expect(me.username).toBe('truenas_admin');
    expect(me.account_attributes).toEqual(['LOCAL', 'API_KEY', 'SYS_ADMIN']);
    expect(me.role_count).toBe(141);
  });

  it('uses the XDG data directory when STOR_HOME is unset', async () => {
    const data = tempDir();
    const { code, stdout } = await spawnStor(['whoami', '--json'], { env: { XDG_DATA_HOME: data } });
    expect(code).toBe(0);
    expect(JSON.parse(stdout).target.stateDir).toBe(`${data}/stor`);
  });
});
