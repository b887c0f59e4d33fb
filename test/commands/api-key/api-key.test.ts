import { describe, expect, it } from 'vitest';
import { Appliance } from '../../../src/core/appliance/appliance.js';
import { runStor } from '../../helpers/run-stor.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('stor api-key create on a terminal', () => {
  it('shows a record with the key, and the once-only warning on stderr; --quiet keeps the key and drops the warning', async () => {
    const home = tempDir();
    Appliance.open({ stateDir: home }).close();
    const env = { STOR_HOME: home, NO_COLOR: '1' };
    const r = await runStor(
      ['api-key', 'create', 'admin-2', '--user', 'truenas_admin', '--expires', '2031-03-04T05:06'],
      { env: { ...env, TZ: 'UTC' }, tty: true, color: 0 },
    );
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^API key \d+ "admin-2" for truenas_admin$/);
    expect(lines[1]).toMatch(/^expires: +2031-03-04T05:06:00\+00:00$/);
    expect(lines[2]).toMatch(/^key: +\d+-[A-Za-z0-9]{64}$/);
    expect(r.stderr).toBe(
      'This key is shown only now and cannot be shown again: store it (e.g. in a file only you can read).\n',
    );
    const quiet = await runStor(['api-key', 'create', 'admin-3', '--user', 'truenas_admin', '--quiet'], { env });
    expect(quiet.stdout).toMatch(/^\d+-[A-Za-z0-9]{64}\n$/);
    expect(quiet.stderr).toBe('');
  });
});

describe('stor api-key list and revoke', () => {
  it('lists the keys the appliance holds; revoke asks first, then removes the key, which the list no longer shows; a second revoke is NOT_FOUND', async () => {
    const home = tempDir();
    Appliance.open({ stateDir: home }).close();
    const env = { STOR_HOME: home, STOR_CONFIG_DIR: tempDir() };
    const run = (args: string[]) => runStor(args, { env });
    const names = async () =>
      (JSON.parse((await run(['api-key', 'list', '--json'])).stdout) as { name: string }[]).map((k) => k.name);
    expect((await run(['api-key', 'create', 'ci', '--user', 'truenas_admin', '--json'])).code).toBe(0);
    expect(await names()).toContain('ci');

    const asked = await run(['api-key', 'revoke', 'ci']);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain('--yes');
    expect(await names()).toContain('ci');

    const revoked = await run(['api-key', 'revoke', 'ci', '--yes', '--json']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ name: 'ci' });
    expect(await names()).not.toContain('ci');
    const again = await run(['api-key', 'revoke', 'ci', '--yes', '--json']);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stderr).error.code).toBe('NOT_FOUND');
  });
});
