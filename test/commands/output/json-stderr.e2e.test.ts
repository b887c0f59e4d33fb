import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * Under --json, stderr carries only the error line and the warnings the operator must see
 * (src/commands/framework/context.ts says which): a happy path of every kind of verb, through the
 * built binary, writes its document on stdout and nothing on stderr. Each command here wrote a
 * note on stderr before quiet under --json was decided in one place.
 */
describe('--json: nothing on stderr on a happy path', () => {
  // About 40 commands in a row: minutes on a loaded machine, not a bound on their speed.
  it('reads, changes, transfers and local verbs on the embedded appliance', { timeout: 300_000 }, async () => {
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
    const local = tempDir();
    writeFileSync(join(local, 'a.txt'), 'hello\n');
    const lines: string[][] = [
      ['whoami'],
      ['dataset', 'create', 'tank/a'],
      // Exists already: said in the document (created: false), not on stderr.
      ['dataset', 'create', 'tank/a', '--parents'],
      ['dataset', 'list'],
      ['snapshot', 'create', 'tank/a@s1'],
      ['snapshot', 'list'],
      ['snapshot', 'rollback', 'tank/a@s1', '--dry-run'],
      ['snapshot', 'rollback', 'tank/a@s1', '--yes'],
      ['upload', join(local, 'a.txt'), '/mnt/tank/a/'],
      ['upload', '-r', local, '/mnt/tank/a/tree'],
      ['ls', '/mnt/tank/a'],
      ['stat', '/mnt/tank/a/a.txt'],
      ['download', '/mnt/tank/a/a.txt', join(local, 'b.txt')],
      ['download', '-r', '/mnt/tank/a/tree', join(local, 'tree')],
      ['mkdir', '/mnt/tank/a/d'],
      ['chmod', '0750', '/mnt/tank/a/d'],
      ['group', 'create', 'ops'],
      ['group', 'create', 'ops', '--exist-ok'],
      ['user', 'create', 'alice', '--password-disabled', '--group', 'ops'],
      ['user', 'create', 'alice', '--password-disabled', '--exist-ok'],
      ['user', 'update', 'alice', '--full-name', 'Alice A'],
      ['chown', 'alice', '/mnt/tank/a/d'],
      // A role list that privilege fix shortens, made without stor's own redundancy warning.
      [
        'call',
        'privilege.create',
        '{"name":"big","local_groups":[3000],"ds_groups":[],"roles":["FULL_ADMIN","POOL_READ"],"web_shell":false}',
      ],
      ['privilege', 'list'],
      ['privilege', 'check'],
      ['privilege', 'fix', 'big', '--dry-run'],
      ['privilege', 'fix', 'big', '--yes'],
      ['api-key', 'create', 'k1', '--user', 'alice'],
      ['api-key', 'list'],
      ['api-key', 'revoke', 'k1', '--yes'],
      ['job', 'list'],
      ['snapshot', 'delete', 'tank/a@s1', '--dry-run'],
      ['snapshot', 'delete', 'tank/a@s1', '--yes'],
      ['user', 'delete', 'alice', '--yes'],
      ['privilege', 'delete', 'big', '--yes'],
      ['group', 'delete', 'ops', '--yes'],
      ['dataset', 'delete', 'tank/a', '--recursive', '--dry-run'],
      ['dataset', 'delete', 'tank/a', '--recursive', '--yes'],
      ['profile', 'list'],
      ['session', 'list'],
      ['logout'],
    ];
    for (const words of lines) {
      const r = await spawnStor([...words, '--json'], { env });
      expect({ words, code: r.code, stderr: r.stderr }).toEqual({ words, code: 0, stderr: '' });
      expect(() => JSON.parse(r.stdout)).not.toThrow();
    }
  });

  it('a failure is the one error line', async () => {
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
    expect((await spawnStor(['snapshot', 'create', 'tank@s1', '--json'], { env })).code).toBe(0);
    const again = await spawnStor(['snapshot', 'create', 'tank@s1', '--json'], { env });
    expect(again.code).toBe(1);
    expect(again.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(again.stderr).error).toMatchObject({ code: 'EEXIST' });
  });

  it('a warning the operator must see stays, --json or not; --quiet silences it', async () => {
    const env = { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir() };
    const file = join(tempDir(), 'a.txt');
    writeFileSync(file, 'hello\n');
    const json = await spawnStor(['upload', file, '/mnt/tank/', '--mode', '0', '--json'], { env });
    expect(json.code).toBe(0);
    expect(json.stderr).toMatch(/^stor: warning: --mode 0 is ignored by the appliance/);
    const quiet = await spawnStor(['upload', file, '/mnt/tank/b.txt', '--mode', '0', '--json', '--quiet'], { env });
    expect({ code: quiet.code, stderr: quiet.stderr }).toEqual({ code: 0, stderr: '' });
  });
});
