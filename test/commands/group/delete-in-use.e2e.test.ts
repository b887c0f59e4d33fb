import { describe, expect, it } from 'vitest';
import { clientEnv } from '../../helpers/client-env.js';
import { runStor } from '../../helpers/run-stor.js';
import { makeUserWithPrivilege } from '../../helpers/runbook.js';

/** In-process `stor` on one embedded appliance, failing the test on an unexpected exit code. */
function storIn(env: Record<string, string>) {
  return async (args: string[], expectCode = 0) => {
    const r = await runStor(args, { env });
    expect(r.code, `stor ${args.join(' ')}\n${r.stderr}`).toBe(expectCode);
    return r;
  };
}

const errorOf = (r: { stderr: string }) =>
  JSON.parse(r.stderr).error as { code: string; kind: string; message: string; hint?: string };

// 25.10.1 refuses it with EACCES (MW/plugins/account_/privilege.py:323-331), the errno of a role
// denial; it is not one (docs/ERRORS.md "Exit codes": 5 is "the identity lacks the role").
describe('group delete of a group a privilege uses', () => {
  it('fails with GROUP_IN_USE, exit 1, naming the privilege and how to free the group; the group stays', async () => {
    const env = clientEnv();
    const admin = storIn(env);
    await admin(['group', 'create', 'ops']);
    await admin(['privilege', 'create', 'ops-readers', '--groups', 'ops', '--roles', 'READONLY_ADMIN']);
    const err = errorOf(await admin(['group', 'delete', 'ops', '--yes', '--json'], 1));
    expect(err).toMatchObject({ code: 'GROUP_IN_USE', kind: 'failed' });
    expect(err.message).toContain("This group is used by privilege 'ops-readers'");
    expect(err.hint).toContain('stor privilege update ops-readers --groups');
    expect(JSON.parse((await admin(['group', 'show', 'ops', '--json'])).stdout)).toMatchObject({ name: 'ops' });
  });

  it('an identity that cannot read privileges hears the appliance refuse it: the same code and exit', async () => {
    const env = clientEnv();
    const admin = storIn(env);
    const key = await makeUserWithPrivilege(admin as never, 'acct', 'accounts', ['ACCOUNT_WRITE']);
    await admin(['group', 'create', 'ops']);
    await admin(['privilege', 'create', 'ops-readers', '--groups', 'ops', '--roles', 'READONLY_ADMIN']);
    const acct = storIn({ ...env, STOR_API_KEY: key });
    const err = errorOf(await acct(['group', 'delete', 'ops', '--yes', '--json'], 1));
    expect(err).toMatchObject({ code: 'GROUP_IN_USE', kind: 'failed' });
    expect(err.message).toContain("privilege 'ops-readers'");
  });
});
