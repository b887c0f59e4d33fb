import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runStor } from '../../helpers/run-stor.js';

describe('command line usage', () => {
  it('prints the version and help with exit 0', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
    expect(await runStor(['--version'])).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
    const help = await runStor(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('whoami');
    expect(help.stdout).toContain('Examples:');
  });

  it('exits 2 for an unknown command, suggesting the nearest', async () => {
    const { code, stderr } = await runStor(['whoamii']);
    expect(code).toBe(2);
    expect(stderr).toContain("unknown command 'whoamii'");
    expect(stderr).toContain('whoami');
  });

  it('exits 2 for an unknown option, a missing argument and a bad --timeout', async () => {
    expect((await runStor(['whoami', '--jsn'])).code).toBe(2);
    expect((await runStor(['call'])).code).toBe(2);
    const bad = await runStor(['--timeout', 'soon', 'whoami']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--timeout takes a positive number of seconds');
  });

  it('exits 2 for a bad `serve --ws-idle-timeout` and a bad STOR_WS_KEEPALIVE, before listening or connecting', async () => {
    const idle = await runStor(['serve', '--port', '0', '--ws-idle-timeout', '0']);
    expect(idle.code).toBe(2);
    expect(idle.stdout).toBe('');
    expect(idle.stderr).toContain('--ws-idle-timeout takes a positive number of seconds, not "0"');

    // A port nobody listens on is never tried: the setting is refused first.
    const keepalive = await runStor(['--json', 'whoami'], {
      env: { STOR_URL: 'ws://127.0.0.1:9', STOR_API_KEY: `1-${'x'.repeat(64)}`, STOR_WS_KEEPALIVE: 'often' },
    });
    expect(keepalive.code).toBe(2);
    expect(JSON.parse(keepalive.stderr).error).toMatchObject({ code: 'BAD_KEEPALIVE', kind: 'usage' });
  });
});
