import { describe, expect, it } from 'vitest';
import { runStor } from '../../helpers/run-stor.js';
import { tempDir } from '../../helpers/temp-dir.js';

function embedded() {
  const home = tempDir();
  return (args: string[]) => runStor(['--profile', 'embedded', ...args], { env: { STOR_HOME: home } });
}

const groupNames = async (run: ReturnType<typeof embedded>) =>
  (JSON.parse((await run(['group', 'list', '--json'])).stdout) as { name: string }[]).map((g) => g.name);

describe('user create --group names a group that does not exist', () => {
  it('is refused, naming the group and how to make it; no user and no group is created', async () => {
    const run = embedded();
    const refused = await run(['user', 'create', 'bob', '--group', 'staf', '--password-disabled', '--json']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    const error = JSON.parse(refused.stderr).error;
    expect(error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('"staf"') });
    expect(error.hint).toContain('--create-group');
    expect(error.hint).toContain('stor group create staf');
    expect(await groupNames(run)).not.toContain('staf');
    expect((await run(['user', 'show', 'bob'])).code).toBe(1);
  });

  it('--create-group creates it; a group named like the user is created as before, without the flag', async () => {
    const run = embedded();
    const made = await run([
      'user',
      'create',
      'bob',
      '--group',
      'crew',
      '--create-group',
      '--password-disabled',
      '--json',
    ]);
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ username: 'bob', group: 'crew', group_created: true });
    const own = await run(['user', 'create', 'carol', '--group', 'carol', '--password-disabled', '--json']);
    expect(own.code, own.stderr).toBe(0);
    expect(JSON.parse(own.stdout)).toMatchObject({ group: 'carol', group_created: true });
    const existing = await run(['user', 'create', 'dan', '--group', 'crew', '--password-disabled', '--json']);
    expect(JSON.parse(existing.stdout)).toMatchObject({ group: 'crew', group_created: false });
  });
});
