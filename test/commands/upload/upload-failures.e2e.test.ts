import { describe, expect, it } from 'vitest';
import { spawnStor, type SpawnResult } from '../../helpers/bin.js';
import { runStor } from '../../helpers/run-stor.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { clientEnv, remoteEnv, localFile } from '../../helpers/client-env.js';

describe('a failing upload fails alike on ws, --rpc http and the embedded target', () => {
  // MW/plugins/filesystem.py:556-566 fails with Python's OSErrors, which core.job_wait reports as
  // CallError(job.error), EFAULT (MW/job.py:467-478); a CallError keeps its own errno.
  const cases = [
    {
      name: 'the target is an existing directory',
      target: '/mnt/tank/t/',
      code: 'EFAULT',
      message: "[EFAULT] [Errno 21] Is a directory: '/mnt/tank/t/a.txt'",
    },
    {
      name: 'the parent is a file',
      target: '/mnt/tank/t/f.txt/a.txt',
      code: 'EFAULT',
      message: "[EFAULT] [Errno 20] Not a directory: '/mnt/tank/t/f.txt/a.txt'",
    },
    {
      name: 'no such pool',
      target: '/mnt/nopool/a.txt',
      code: 'ENOENT',
      message: '[ENOENT] /mnt/nopool/a.txt: only paths inside a pool are served (pools: /mnt/tank)',
    },
  ];

  it('same --json error, same exit code, and no path of the host running the appliance', async () => {
    const server = await spawnServe(tempDir('stor-serve-state-'));
    const embedded = clientEnv();
    const targets: { name: string; args: string[]; env: Record<string, string>; stateDir: string }[] = [
      { name: 'ws', args: [], env: remoteEnv(server), stateDir: server.stateDir },
      { name: 'http', args: ['--rpc', 'http'], env: remoteEnv(server), stateDir: server.stateDir },
      { name: 'embedded', args: [], env: embedded, stateDir: embedded.STOR_HOME! },
    ];
    const file = localFile('a.txt', 'payload\n');
    const keep = localFile('keep.txt', 'keep\n');
    const hostPaths = (r: SpawnResult) =>
      [server.stateDir, embedded.STOR_HOME!].filter((p) => r.stdout.includes(p) || r.stderr.includes(p));

    // /mnt/tank/t/a.txt is a directory; /mnt/tank/t/f.txt is a file. The set-up runs in-process.
    for (const t of targets.filter((x) => x.name !== 'http')) {
      for (const [local, target] of [
        [keep, '/mnt/tank/t/a.txt/'],
        [keep, '/mnt/tank/t/f.txt'],
      ] as const) {
        const r = await runStor([...t.args, 'upload', local, target], { env: t.env });
        expect(r.code, r.stderr).toBe(0);
      }
    }

    // Every case on every transport at once: nine independent runs, each checked on its own; in-process
    // (runStor: the same `run()` the binary calls), as the built binary's exit code and stderr are
    // checked below, as a person reads them.
    const runs = cases.flatMap((c) =>
      targets.map(async (t) => ({
        c,
        t,
        r: await runStor([...t.args, '--json', 'upload', file, c.target], { env: t.env }),
      })),
    );
    for (const { c, t, r } of await Promise.all(runs)) {
      const where = `${c.name} over ${t.name}`;
      expect({ where, code: r.code, stdout: r.stdout, error: JSON.parse(r.stderr).error }).toEqual({
        where,
        code: 1,
        stdout: '',
        error: { code: c.code, kind: 'failed', message: c.message },
      });
      expect(hostPaths(r), where).toEqual([]);
    }
    // And as a person reads it.
    const humans = await Promise.all(
      targets.map(async (t) => ({
        t,
        human: await spawnStor([...t.args, 'upload', file, cases[1]!.target], { env: t.env }),
      })),
    );
    for (const { t, human } of humans) {
      expect({ transport: t.name, code: human.code, stdout: human.stdout, stderr: human.stderr }).toEqual({
        transport: t.name,
        code: 1,
        stdout: '',
        stderr: `stor: ${cases[1]!.message}\n`,
      });
      expect(hostPaths(human), t.name).toEqual([]);
    }
    expect(await server.stop()).toBe(0);
  });
});

describe('a multi-file upload with one failing file, as a script sees it', () => {
  it('--json lists every file (done, failed with its error) and a summary; the good files land; exit 1 (ws and embedded)', async () => {
    const server = await spawnServe(tempDir('stor-serve-state-'));
    const embedded = clientEnv();
    const targets = [
      { name: 'ws', env: remoteEnv(server) },
      { name: 'embedded', env: embedded },
    ];
    const good1 = localFile('one.txt', 'one\n');
    const bad = localFile('two.txt', 'two\n');
    const good2 = localFile('three.txt', 'three\n');
    for (const t of targets) {
      // /mnt/tank/m/two.txt is made a directory first, so that file's job fails (MW/plugins/filesystem.py:556-566).
      // The set-up and the read-back run in-process; the upload a script runs is the built binary.
      const mkdir = await runStor(['upload', good1, '/mnt/tank/m/two.txt/'], { env: t.env });
      expect(mkdir.code, mkdir.stderr).toBe(0);

      const r = await spawnStor(['--json', 'upload', good1, bad, good2, '/mnt/tank/m/'], { env: t.env });
      expect({ where: t.name, code: r.code, stderr: r.stderr }).toEqual({ where: t.name, code: 1, stderr: '' });
      const report = JSON.parse(r.stdout);
      expect(
        report.files.map((f: { target: string; outcome: string; error: unknown }) => [f.target, f.outcome, f.error]),
      ).toEqual([
        ['/mnt/tank/m/one.txt', 'done', null],
        [
          '/mnt/tank/m/two.txt',
          'failed',
          { code: 'EFAULT', kind: 'failed', message: "[EFAULT] [Errno 21] Is a directory: '/mnt/tank/m/two.txt'" },
        ],
        ['/mnt/tank/m/three.txt', 'done', null],
      ]);
      expect(report.summary).toEqual({ files: 3, done: 2, failed: 1, skipped: 0, not_attempted: 0, bytes_sent: 10 });

      const ls = await runStor(['--json', 'ls', '/mnt/tank/m'], { env: t.env });
      expect(JSON.parse(ls.stdout).map((e: { name: string; type: string }) => [e.name, e.type])).toEqual([
        ['one.txt', 'FILE'],
        ['three.txt', 'FILE'],
        ['two.txt', 'DIRECTORY'],
      ]);
    }
    expect(await server.stop()).toBe(0);
  });
});
