import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { commandPaths } from '../helpers/command-paths.js';
import { STOR_BIN } from '../helpers/bin.js';
import { runStor } from '../helpers/run-stor.js';

const paths = await commandPaths();

describe('the command set as a whole', () => {
  it('covers every command of docs/COMMANDS.md "Commands"', () => {
    expect(paths.map((p) => p.join(' ')).sort()).toEqual(
      [
        'api-key create',
        'api-key list',
        'api-key revoke',
        'call',
        'chmod',
        'chown',
        'completion',
        'dataset create',
        'dataset delete',
        'dataset list',
        'dataset show',
        'dataset update',
        'download',
        'login',
        'logout',
        'ls',
        'mkdir',
        'rm',
        'privilege check',
        'privilege create',
        'privilege delete',
        'privilege fix',
        'privilege list',
        'privilege roles',
        'privilege show',
        'privilege suggest',
        'privilege update',
        'profile import',
        'profile list',
        'profile remove',
        'profile tag',
        'profile use',
        'serve',
        'session list',
        'session stop',
        'stat',
        'upload',
        'whoami',
        'user list',
        'user show',
        'user create',
        'user update',
        'user delete',
        'group list',
        'group show',
        'group create',
        'group update',
        'group delete',
        'snapshot list',
        'snapshot create',
        'snapshot delete',
        'snapshot rollback',
        'snapshot task list',
        'snapshot task show',
        'snapshot task create',
        'snapshot task update',
        'snapshot task delete',
        'snapshot task run',
        'replication list',
        'replication show',
        'replication create',
        'replication update',
        'replication delete',
        'replication run',
        'replication status',
        'job list',
        'job show',
        'job wait',
        'job abort',
        'system info',
        'system facts',
        'pool list',
        'service list',
        'service start',
        'service stop',
        'service enable',
        'service disable',
        'share list',
        'share show',
        'share nfs create',
        'share smb create',
        'share update',
        'share delete',
        'share enable',
        'share disable',
        'export',
        'plan',
        'apply',
      ].sort(),
    );
  });

  it.each(paths.map((p) => [p.join(' '), p] as const))('`stor %s --help` shows an example', async (_name, path) => {
    const r = await runStor([...path, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Examples:');
    expect(r.stdout).toMatch(new RegExp(`\\$ .*stor ${path[0]}`));
  });

  it('suggests the nearest option and exits 2', async () => {
    const r = await runStor(['whoami', '--jsno']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('(Did you mean --json?)');
    const sub = await runStor(['privilege', 'chek']);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain('(Did you mean check?)');
  });

  it('prints a bash completion script that registers itself', () => {
    const out = execFileSync(
      'bash',
      ['-c', `source <(node ${JSON.stringify(STOR_BIN)} completion bash); complete -p stor`],
      { encoding: 'utf8' },
    );
    expect(out.trim()).toBe('complete -o default -F _stor_completion stor');
    const words = execFileSync(
      'bash',
      [
        '-c',
        `source <(node ${JSON.stringify(STOR_BIN)} completion bash); COMP_WORDS=(stor privilege f); COMP_CWORD=2; _stor_completion; echo "\${COMPREPLY[@]}"`,
      ],
      { encoding: 'utf8' },
    );
    expect(words.trim()).toBe('fix');
  });

  it('refuses an unknown completion shell with exit 2', async () => {
    expect((await runStor(['completion', 'tcsh'])).code).toBe(2);
  });
});
