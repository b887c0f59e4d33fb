/**
 * The methods a verb declares it calls (`calls` in its defineCommand), which `stor privilege
 * suggest --for` answers from, held to the calls it makes: each verb that declares them runs
 * against the embedded appliance with `--verbose`, whose trace names every call (and each upload,
 * which is `filesystem.put` through /_upload/). A call that needs a role and is not declared fails.
 * The verbs run in-process (runStor: the `run()` the binary calls, its trace on the captured
 * stderr): what is held here is the verb's calls, not the process's (bench/HISTORY.md, the suite's
 * time, fifth round).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCommands } from '../../src/commands/index.js';
import { CONTRACT_METHODS } from '../../src/core/contract/index.js';
import { runStor } from '../helpers/run-stor.js';

/** The methods a run's trace shows it called. */
function called(stderr: string): string[] {
  const methods = [...stderr.matchAll(/^stor: trace: call ([a-z_.]+):/gm)].map((m) => m[1]!);
  if (/^stor: trace: upload .* bytes/m.test(stderr)) methods.push('filesystem.put');
  return [...new Set(methods)];
}

const needsRole = (method: string) => CONTRACT_METHODS.get(method)?.access.kind === 'roles';

/** Stand-ins for a local file to upload and a local path to download to, filled in per run. */
const FILE = '<local file>';
const OUT = '<local download>';

/** Each verb that declares its calls, run in this order: a later run uses what an earlier one made. */
const RUNS: [words: string, args: string[], exit?: number][] = [
  ['group create', ['group', 'create', 'callers']],
  ['group list', ['group', 'list']],
  ['group show', ['group', 'show', 'callers']],
  ['user create', ['user', 'create', 'caller', '--group', 'callers', '--password-disabled']],
  ['user list', ['user', 'list']],
  ['user show', ['user', 'show', 'caller']],
  ['privilege create', ['privilege', 'create', 'callers', '--groups', 'callers', '--roles', 'READONLY_ADMIN']],
  ['privilege list', ['privilege', 'list']],
  ['privilege show', ['privilege', 'show', 'callers']],
  ['privilege update', ['privilege', 'update', 'callers', '--groups', 'callers', '--roles', 'READONLY_ADMIN']],
  ['privilege fix', ['privilege', 'fix', '--all', '--yes']],
  ['group update', ['group', 'update', 'callers', '--members', 'caller']],
  ['user update', ['user', 'update', 'caller', '--full-name', 'Caller']],
  ['api-key create', ['api-key', 'create', 'caller-key', '--user', 'caller']],
  ['api-key list', ['api-key', 'list']],
  ['api-key revoke', ['api-key', 'revoke', 'caller-key', '--yes']],
  ['privilege delete', ['privilege', 'delete', 'callers', '--yes']],
  ['user delete', ['user', 'delete', 'caller', '--yes']],
  ['group delete', ['group', 'delete', 'callers', '--yes']],
  ['dataset create', ['dataset', 'create', 'tank/calls']],
  ['dataset list', ['dataset', 'list']],
  ['dataset show', ['dataset', 'show', 'tank/calls']],
  ['system facts', ['system', 'facts']],
  ['dataset update', ['dataset', 'update', 'tank/calls', '--comments', 'calls', '--yes']],
  ['mkdir', ['mkdir', '/mnt/tank/calls/d']],
  ['upload', ['upload', FILE, '/mnt/tank/calls/d/']],
  ['ls', ['ls', '/mnt/tank/calls/d']],
  ['stat', ['stat', '/mnt/tank/calls/d/f.txt']],
  ['chmod', ['chmod', '0600', '/mnt/tank/calls/d/f.txt']],
  ['chown', ['chown', 'root', '/mnt/tank/calls/d/f.txt']],
  ['download', ['download', '/mnt/tank/calls/d/f.txt', OUT]],
  ['snapshot create', ['snapshot', 'create', 'tank/calls@one']],
  ['snapshot list', ['snapshot', 'list']],
  ['snapshot rollback', ['snapshot', 'rollback', 'tank/calls@one', '--yes']],
  ['snapshot delete', ['snapshot', 'delete', 'tank/calls@one', '--yes']],
  ['snapshot task create', ['snapshot', 'task', 'create', 'tank/calls', '--lifetime', '2w', '--schedule', '* * * * *']],
  ['snapshot task list', ['snapshot', 'task', 'list']],
  ['snapshot task show', ['snapshot', 'task', 'show', '1']],
  ['snapshot task run', ['snapshot', 'task', 'run', '1']],
  ['snapshot task update', ['snapshot', 'task', 'update', '1', '--naming-schema', 'calls-%Y-%m-%d_%H-%M', '--yes']],
  [
    'replication create',
    [
      'replication',
      'create',
      'calls',
      '--source',
      'tank/calls',
      '--target',
      'tank/calls-copy',
      '--transport',
      'LOCAL',
      '--task',
      '1',
    ],
  ],
  ['replication list', ['replication', 'list']],
  ['replication show', ['replication', 'show', 'calls']],
  ['replication update', ['replication', 'update', 'calls', '--readonly', 'IGNORE']],
  // The source has no snapshot to send, so the job fails and --wait makes that exit 1, after every
  // call the verb makes.
  ['replication run', ['replication', 'run', 'calls', '--wait'], 1],
  ['replication status', ['replication', 'status', 'calls']],
  ['replication delete', ['replication', 'delete', 'calls', '--yes']],
  ['snapshot task delete', ['snapshot', 'task', 'delete', '1', '--yes']],
  ['share nfs create', ['share', 'nfs', 'create', '/mnt/tank/calls/d', '--networks', '10.0.0.0/24']],
  ['share smb create', ['share', 'smb', 'create', 'calls', '/mnt/tank/calls/d']],
  ['share list', ['share', 'list']],
  ['share show', ['share', 'show', 'calls']],
  ['share update', ['share', 'update', 'calls', '--ro']],
  ['share disable', ['share', 'disable', '/mnt/tank/calls/d']],
  ['share enable', ['share', 'enable', '/mnt/tank/calls/d']],
  ['share delete', ['share', 'delete', 'calls', '--yes']],
  ['dataset delete', ['dataset', 'delete', 'tank/calls', '--recursive', '--yes']],
  ['service list', ['service', 'list']],
  ['service start', ['service', 'start', 'nfs']],
  ['service stop', ['service', 'stop', 'nfs', '--yes']],
  ['service enable', ['service', 'enable', 'nfs']],
  ['service disable', ['service', 'disable', 'nfs']],
  // The embedded appliance keeps a job only while its command runs: none is left to abort, so
  // this run ends in the lookup (exit 1) and holds the reads before the abort.
  ['job abort', ['job', 'abort', '999999', '--yes'], 1],
];

describe('verbs call only the methods they declare', () => {
  it('every declared method is a method of the contract', async () => {
    const declaring = [...(await allCommands())].filter(([, spec]) => spec.calls);
    expect(declaring.length).toBeGreaterThan(10);
    for (const [words, spec] of declaring)
      for (const m of spec.calls!) expect(CONTRACT_METHODS.has(m), `${words}: ${m}`).toBe(true);
  });

  describe.sequential('each declaring verb, run in turn against one embedded appliance', () => {
    let dir = '';
    let env: Record<string, string> = {};
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'stor-command-calls-'));
      env = { STOR_HOME: join(dir, 'home'), STOR_CONFIG_DIR: join(dir, 'config') };
      writeFileSync(join(dir, 'f.txt'), 'hello\n');
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('the runs are every verb that declares its calls', async () => {
      const declaring = [...(await allCommands())].filter(([, spec]) => spec.calls).map(([words]) => words);
      expect(RUNS.map(([words]) => words).sort()).toEqual(declaring.sort());
    });

    // A test per run: each is bounded by the test timeout on its own, however many verbs there are.
    it.each(RUNS)('stor %s: the calls that need a role are among its declared ones', async (words, args, exit) => {
      const specs = await allCommands();
      const argv = args.map((a) => (a === FILE ? join(dir, 'f.txt') : a === OUT ? join(dir, 'back.txt') : a));
      const r = await runStor(['--verbose', ...argv], { env });
      expect(r.code, `stor ${argv.join(' ')}\n${r.stderr}`).toBe(exit ?? 0);
      const undeclared = called(r.stderr).filter((m) => needsRole(m) && !specs.get(words)!.calls!.includes(m as never));
      expect(undeclared, `stor ${words} calls what it does not declare`).toEqual([]);
    });
  });
});
