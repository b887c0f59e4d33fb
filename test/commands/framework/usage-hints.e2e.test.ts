import { describe, expect, it } from 'vitest';
import { stor } from '../../helpers/runbook.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** A usage error's hint names the help of the command that failed (kubectl's "See 'kubectl get -h'"). */
describe('usage-error hints name the command', () => {
  // Usage errors come before any target is opened; the directories only keep the run apart.
  const run = (args: string[], code: number) => stor({ STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() })(args, code);
  const hintOf = async (args: string[]) => (await run(args, 2)).stderr.split('\n').find((l) => l.startsWith('hint: '));

  it('an unknown option, a bad value, a missing argument', async () => {
    expect(await hintOf(['ls', '--bogus'])).toBe('hint: see `stor ls --help`');
    expect(await hintOf(['job', 'list', '--state', 'BOGUS'])).toBe('hint: see `stor job list --help`');
    expect(await hintOf(['api-key', 'create', 'k', '--expires', 'tomorrow'])).toBe(
      'hint: see `stor api-key create --help`',
    );
    expect(await hintOf(['user', 'delete'])).toBe('hint: see `stor user delete --help`');
    // A parse function's own usage error, which carries no hint of its own.
    expect(await hintOf(['group', 'create', 'x', '--gid', 'abc'])).toBe('hint: see `stor group create --help`');
  });

  it('an unknown verb points at the noun, an unknown command at stor itself; one line each, JSON too', async () => {
    expect(await hintOf(['job', 'bogus'])).toBe('hint: see `stor job --help`');
    const unknown = await run(['whoamii'], 2);
    expect(unknown.stderr).toBe("stor: unknown command 'whoamii' (Did you mean whoami?)\nhint: see `stor --help`\n");
    const json = JSON.parse((await run(['--json', 'job', 'list', '--state', 'BOGUS'], 2)).stderr).error;
    expect(json).toMatchObject({ code: 'USAGE', kind: 'usage', hint: 'see `stor job list --help`' });
  });
});
