import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { localFile, remoteEnv } from '../../helpers/client-env.js';
import { runStor } from '../../helpers/run-stor.js';
import { stor } from '../../helpers/runbook.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** A `stor serve` with a failed job whose error is long, and the client environment pointed at it. */
async function served() {
  const server = await spawnServe(tempDir());
  const env = remoteEnv(server);
  const run = stor(env);
  await run(['upload', localFile('a.txt', 'some bytes\n'), '/mnt/tank/a.txt']);
  // A parent that is a file: the put job fails with the operating system's long message.
  await run(['upload', localFile('b.txt', 'more\n'), '/mnt/tank/a.txt/some/deeper/directory/b.txt'], 1);
  const onTerminal = async (args: string[], columns: number) => {
    const r = await runStor(args, { env, tty: true, color: 0, columns });
    expect(r.code, r.stderr).toBe(0);
    return stripVTControlCharacters(r.stdout);
  };
  return { env, onTerminal };
}

const widest = (text: string) =>
  Math.max(
    ...text
      .trimEnd()
      .split('\n')
      .map((l) => l.length),
  );

describe('tables never cut identifiers', () => {
  for (const columns of [80, 120]) {
    it(`at ${columns} columns: user list, api-key list and job list show every username, id, name and method whole, within the width`, async () => {
      const { onTerminal } = await served();
      const users = await onTerminal(['user', 'list'], columns);
      for (const id of ['truenas_container_unpriv_root', '2147000001', 'truenas_admin']) expect(users).toContain(id);
      expect(users).not.toContain('…');
      expect(widest(users)).toBeLessThanOrEqual(columns);

      const keys = await onTerminal(['api-key', 'list'], columns);
      expect(keys).toMatch(/stor-\S+/);
      expect(keys).not.toContain('…');
      expect(widest(keys)).toBeLessThanOrEqual(columns);

      const jobs = await onTerminal(['job', 'list'], columns);
      expect(jobs).toContain('filesystem.put');
      expect(jobs).not.toContain('…');
      // The error wraps: every word of it is there, over several lines.
      const words = jobs.replace(/\s+/g, ' ');
      expect(words).toContain('Not a directory');
      expect(words).toMatch(/\/mnt\/tank\/a\.txt\/some/);
      expect(widest(jobs)).toBeLessThanOrEqual(columns);
    });
  }

  it('--wide shows every column at full width; --columns picks and orders them, on a terminal and piped', async () => {
    const { env, onTerminal } = await served();
    const narrow = await onTerminal(['user', 'list'], 80);
    expect(narrow.split('\n')[0]).not.toMatch(/\bKEYS\b/);
    const wide = await onTerminal(['user', 'list', '--wide'], 80);
    expect(wide.split('\n')[0]!.split(/\s{2,}/)).toEqual([
      'UID',
      'USERNAME',
      'FULL NAME',
      'GROUP',
      'GROUPS',
      'BUILTIN',
      'LOCKED',
      'PASSWORD',
      '2FA',
      'KEYS',
    ]);
    expect(wide).toContain('Unprivileged root user for containers');
    expect(widest(wide)).toBeGreaterThan(80);

    const picked = await onTerminal(['user', 'list', '--columns', 'username,keys,full-name'], 80);
    expect(picked.split('\n')[0]!.split(/\s{2,}/)).toEqual(['USERNAME', 'KEYS', 'FULL NAME']);
    const piped = await runStor(['--columns', 'username,uid', 'user', 'list'], { env });
    expect(piped.stdout.split('\n')).toContain('truenas_admin\t950');

    const unknown = await runStor(['user', 'list', '--columns', 'username,nope'], { env });
    expect(unknown.code).toBe(0);
    expect(unknown.stderr).toContain(
      'stor: warning: --columns: no column nope here; its columns: uid, username, full-name,',
    );
    expect(unknown.stdout.split('\n')).toContain('truenas_admin');
  });
});
