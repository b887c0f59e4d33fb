import { describe, expect, it } from 'vitest';
import { clientEnv } from '../../helpers/client-env.js';
import { runStor } from '../../helpers/run-stor.js';

/**
 * A `--shell` the appliance refuses ("Please select a valid shell.", MW/plugins/account.py:1638-1640,
 * TS-25.10.1, its words kept) is answered with the shells it would take, from `user.shell_choices`
 * (:1112-1144) asked with the user's groups, as the validation asks it.
 */
describe('user create and update with a --shell the appliance does not offer', () => {
  it("keep the appliance's error and hint the valid shells", async () => {
    const env = clientEnv();
    const created = await runStor(
      ['user', 'create', 'shelly', '--password-disabled', '--shell', '/bin/nope', '--json'],
      { env },
    );
    expect(created.code).toBe(1);
    const error = JSON.parse(created.stderr).error;
    expect(error.details).toEqual(['* user_create.shell: Please select a valid shell.']);
    expect(error.hint).toBe(
      'valid shells: /usr/sbin/nologin, /usr/bin/bash, /usr/bin/rbash, /usr/bin/dash, /usr/bin/sh, /usr/bin/zsh, /usr/bin/tmux',
    );
    expect((await runStor(['user', 'show', 'shelly'], { env })).code).toBe(1);

    expect((await runStor(['user', 'create', 'shelly', '--password-disabled'], { env })).code).toBe(0);
    const updated = await runStor(['user', 'update', 'shelly', '--shell', 'bash'], { env });
    expect(updated.code).toBe(1);
    expect(updated.stderr).toContain('* user_update.shell: Please select a valid shell.\n');
    expect(updated.stderr).toContain('hint: valid shells: /usr/sbin/nologin, /usr/bin/bash,');
  });

  it('another validation error gets no shell hint', async () => {
    const env = clientEnv();
    const r = await runStor(['user', 'create', 'bad:name', '--password-disabled', '--json'], { env });
    expect(r.code).not.toBe(0);
    expect(JSON.parse(r.stderr).error.hint ?? '').not.toContain('valid shells');
  });
});
