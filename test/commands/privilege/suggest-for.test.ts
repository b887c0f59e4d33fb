import { describe, expect, it } from 'vitest';
import { allCommands } from '../../../src/commands/index.js';
import type { PrivilegeSuggestion } from '../../../src/commands/privilege/suggest.js';
import { EMULATIONS } from '../../../src/core/appliance/settings.js';
import { clientEnv } from '../../helpers/client-env.js';
import { runStor } from '../../helpers/run-stor.js';
import { startTestServer } from '../../helpers/server.js';

/**
 * The change verbs that declare no `calls`, each for its reason: what they call is not theirs to
 * name, or they change only this machine's profiles and sessions (or log in as the key's own).
 */
const UNDECLARED_CHANGES: Record<string, string> = {
  call: 'the method is its argument: `privilege suggest --methods` names it',
  apply: "its calls are the plan's, one per change the file asks for",
  login: "saves a profile; logs in as the key's own identity",
  logout: "forgets a profile; revokes only the key stor made for it, as that key's own identity",
  'profile use': 'local: the profiles file',
  'profile import': 'local: the profiles file',
  'profile tag': 'local: the profiles file',
  'profile remove': 'local: the profiles file',
  'session stop': 'local: the session agent',
  rm: 'calls nothing: the appliance has no file delete, so it only explains the ways there are',
  serve: 'serves the embedded appliance; calls nothing on a target',
};

// docs/COMMANDS.md "Least privilege": --for takes every stor verb that declares the methods it calls.
describe('privilege suggest --for', () => {
  it('knows every change verb: each declares the methods it calls, but for the few that cannot, named with their reason', async () => {
    const undeclared = [...(await allCommands())]
      .filter(([, spec]) => spec.effect === 'change' && !spec.calls)
      .map(([words]) => words);
    expect(undeclared.sort()).toEqual(Object.keys(UNDECLARED_CHANGES).sort());
    for (const words of [
      'user update',
      'group update',
      'privilege update',
      'privilege fix',
      'api-key revoke',
      'job abort',
    ]) {
      const r = await runStor(['privilege', 'suggest', '--for', words, '--json'], { env: clientEnv() });
      expect(r.code, `${words}: ${r.stderr}`).toBe(0);
    }
  });

  it('accepts every verb of the command tree that declares its calls, accounts and keys among them', async () => {
    const declaring = [...(await allCommands())].filter(([, spec]) => spec.calls).map(([words]) => words);
    for (const words of [
      'user list',
      'user create',
      'group delete',
      'api-key create',
      'privilege show',
      'privilege create',
    ])
      expect(declaring).toContain(words);
    const r = await runStor(['privilege', 'suggest', '--for', declaring.join(', '), '--json'], { env: clientEnv() });
    expect(r.code, r.stderr).toBe(0);
    const answer = JSON.parse(r.stdout) as { methods: { method: string; commands: string[] }[] };
    const covered = new Set(answer.methods.flatMap((m) => m.commands));
    expect([...covered].sort()).toEqual([...declaring].sort());
  });

  it('names the sharing roles for the share verbs: SHARING_NFS_WRITE for nfs create, SHARING_SMB_WRITE for smb create', async () => {
    for (const [words, role] of [
      ['share nfs create', 'SHARING_NFS_WRITE'],
      ['share smb create', 'SHARING_SMB_WRITE'],
    ] as const) {
      const r = await runStor(['privilege', 'suggest', '--for', words, '--json'], { env: clientEnv() });
      expect(r.code, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as { roles: string[] }).roles).toContain(role);
    }
  });

  it('names the snapshot task roles for the task verbs: SNAPSHOT_TASK_WRITE to run one, and SNAPSHOT_READ to see what it took', async () => {
    const r = await runStor(['privilege', 'suggest', '--for', 'snapshot task run', '--json'], { env: clientEnv() });
    expect(r.code, r.stderr).toBe(0);
    const answer = JSON.parse(r.stdout) as PrivilegeSuggestion;
    expect(answer.roles.sort()).toEqual(['SNAPSHOT_READ', 'SNAPSHOT_TASK_WRITE']);
    expect(answer.methods.find((m) => m.method === 'pool.snapshottask.run')?.commands).toEqual(['snapshot task run']);
  });

  it('names the replication role for replication run: REPLICATION_TASK_WRITE, which holds the READ its lookup needs', async () => {
    const r = await runStor(['privilege', 'suggest', '--for', 'replication run', '--json'], { env: clientEnv() });
    expect(r.code, r.stderr).toBe(0);
    const answer = JSON.parse(r.stdout) as PrivilegeSuggestion;
    expect(answer.roles).toEqual(['REPLICATION_TASK_WRITE']);
    expect(answer.methods.find((m) => m.method === 'replication.run')?.commands).toEqual(['replication run']);
  });

  it.each(['embedded', 'truenas-25.10.1', 'truenas-26.0'] as const)(
    'names the sharing roles for every share verb on %s: each sharing method granted by its SHARING_* role',
    async (release) => {
      const env = clientEnv();
      if (release !== 'embedded') {
        const server = await startTestServer({ ...EMULATIONS[release], keyLogin: 'plain' });
        Object.assign(env, { STOR_URL: `ws://127.0.0.1:${server.port}`, STOR_API_KEY: server.adminKey });
      }
      const verbs = ['list', 'show', 'nfs create', 'smb create', 'update', 'delete', 'enable', 'disable'];
      const r = await runStor(['privilege', 'suggest', '--for', verbs.map((v) => `share ${v}`).join(', '), '--json'], {
        env,
      });
      expect(r.code, r.stderr).toBe(0);
      const answer = JSON.parse(r.stdout) as PrivilegeSuggestion;
      expect(answer.catalogue).toBe('target');
      expect(answer.roles).toEqual(expect.arrayContaining(['SHARING_NFS_WRITE', 'SHARING_SMB_WRITE']));
      const grantedBy = Object.fromEntries(answer.methods.map((m) => [m.method, m.granted_by]));
      for (const kind of ['nfs', 'smb'])
        for (const verb of ['create', 'update', 'delete'])
          expect(grantedBy[`sharing.${kind}.${verb}`], `sharing.${kind}.${verb}`).toBe(
            `SHARING_${kind.toUpperCase()}_WRITE`,
          );
      expect(answer.methods.find((m) => m.method === 'sharing.nfs.create')?.commands).toEqual(['share nfs create']);
      expect(answer.methods.find((m) => m.method === 'sharing.smb.delete')?.commands).toEqual(['share delete']);
    },
  );
});
