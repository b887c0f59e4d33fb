import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { tempDir } from '../../helpers/temp-dir.js';

/*
 * Every file stor writes at a path the user names is a new file there, never a write through a
 * symbolic link someone planted at that path (in a sticky /tmp, another user's; here the test's
 * own, which root follows just the same): with --force the path is replaced (a temporary file
 * beside it, renamed over it), without it an existing path, a dangling link included, is refused.
 * The built binary against the embedded appliance; `npm run build` first.
 */

/** An embedded appliance (seeded), with /mnt/tank/s.txt and /mnt/tank/tree/a.txt. */
async function embedded() {
  const env: Record<string, string> = { ...clientEnv(), STOR_SESSION: 'off' };
  expect((await spawnStor(['whoami'], { env })).code).toBe(0);
  const tank = join(env.STOR_HOME!, 'mnt/tank');
  writeFileSync(join(tank, 's.txt'), 'from the appliance\n');
  mkdirSync(join(tank, 'tree'));
  writeFileSync(join(tank, 'tree/a.txt'), 'a from the appliance\n');
  return env;
}

/** A file someone else cares about, and a directory holding a link to it at `name`. */
function plantedLink(name: string) {
  const victim = join(tempDir('stor-victim-'), 'precious');
  writeFileSync(victim, 'precious\n', { mode: 0o600 });
  const dir = tempDir('stor-shared-');
  const link = join(dir, name);
  symlinkSync(victim, link);
  return { victim, dir, link };
}

/** `path` is now a regular file of its own, and the file the link named is untouched. */
function replacedNotFollowed(path: string, victim: string) {
  expect(lstatSync(path).isFile()).toBe(true);
  expect(readFileSync(victim, 'utf8')).toBe('precious\n');
  expect(statSync(victim).mode & 0o777).toBe(0o600);
}

describe('stor never writes through a symbolic link at a path the user names', () => {
  it('privilege suggest -o FILE --force replaces a link at FILE with the fragment, leaving the file it named alone', async () => {
    const env = await embedded();
    const { victim, link } = plantedLink('ops.yaml');
    const r = await spawnStor(
      ['privilege', 'suggest', '--for', 'dataset create', '--privilege', 'ops', '-o', link, '--force'],
      { env, umask: 0o022 },
    );
    expect(r.code, r.stderr).toBe(0);
    replacedNotFollowed(link, victim);
    expect(readFileSync(link, 'utf8')).toContain('DATASET_WRITE');
    expect(statSync(link).mode & 0o777).toBe(0o644);
  });

  it('privilege suggest -o FILE without --force refuses a dangling link at FILE and creates nothing where it points', async () => {
    const env = await embedded();
    const dir = tempDir('stor-shared-');
    const target = join(tempDir('stor-victim-'), 'created-through-link');
    symlinkSync(target, join(dir, 'ops.yaml'));
    const r = await spawnStor(
      ['privilege', 'suggest', '--for', 'dataset create', '--privilege', 'ops', '-o', join(dir, 'ops.yaml'), '--json'],
      { env },
    );
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'LOCAL_FILE_EXISTS' });
    expect(existsSync(target)).toBe(false);
    expect(readlinkSync(join(dir, 'ops.yaml'))).toBe(target);
  });

  it('download --force replaces a link at LOCAL', async () => {
    const env = await embedded();
    const { victim, link } = plantedLink('s.txt');
    const r = await spawnStor(['download', '/mnt/tank/s.txt', link, '--force'], { env });
    expect(r.code, r.stderr).toBe(0);
    replacedNotFollowed(link, victim);
    expect(readFileSync(link, 'utf8')).toBe('from the appliance\n');
  });

  it('download -r --force replaces a link where one of the tree’s files goes', async () => {
    const env = await embedded();
    const { victim, dir } = plantedLink('unused');
    mkdirSync(join(dir, 'tree'));
    symlinkSync(victim, join(dir, 'tree/a.txt'));
    const r = await spawnStor(['download', '-r', '/mnt/tank/tree', join(dir, 'tree'), '--force'], { env });
    expect(r.code, r.stderr).toBe(0);
    replacedNotFollowed(join(dir, 'tree/a.txt'), victim);
    expect(readFileSync(join(dir, 'tree/a.txt'), 'utf8')).toBe('a from the appliance\n');
  });

  it('state apply --keys-out refuses a dangling link and writes no key where it points', async () => {
    const env = await embedded();
    const dir = tempDir('stor-shared-');
    const target = join(tempDir('stor-victim-'), 'keys-through-link');
    symlinkSync(target, join(dir, 'keys.json'));
    const state = join(dir, 'state.yaml');
    writeFileSync(state, 'stor_state: 1\napi_keys:\n  - { name: ci, user: truenas_admin }\n');
    const r = await spawnStor(['apply', '-f', state, '--yes', '--keys-out', join(dir, 'keys.json'), '--json'], { env });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'LOCAL_FILE_EXISTS' });
    expect(existsSync(target)).toBe(false);
  });
});
