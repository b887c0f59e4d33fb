import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { E } from '../../src/core/error-catalogue.js';
import { spawnStor } from '../helpers/bin.js';
import { OTHER_UID, otherUsersDir } from '../helpers/other-user.js';
import { agentPidsOf, killAgentsOf } from '../helpers/session.js';
import { tempDir } from '../helpers/temp-dir.js';

/*
 * Root run with another user's HOME (`sudo` keeping HOME, `sudo -E`): stor creates nothing in that
 * user's home, where root-owned directories (~/.cache/stor, ~/.local/state/stor) would later stop
 * the user's own stor from using them. The command runs in its own process, with no code cache
 * and no agent; the embedded appliance's state, whose default is in that home, is refused with a
 * clear error. Runs as root (chown); the built binary, `npm run build` first.
 */

const errorOf = (stderr: string) => (JSON.parse(stderr) as { error: { code: string; message: string } }).error;
const tree = (dir: string) => (readdirSync(dir, { recursive: true }) as string[]).map(String).sort();

/** Another user's home (0755, as homes are), with what they made in it already. */
function othersHome(made: string[] = []): string {
  const home = otherUsersDir('stor-home-');
  chmodSync(home, 0o755);
  for (const path of made) {
    mkdirSync(join(home, path), { recursive: true, mode: 0o700 });
    for (let p = path; p !== '.'; p = join(p, '..').replace(/\/?\.\.$/, '') || '.')
      chownSync(join(home, p), OTHER_UID, OTHER_UID);
  }
  return home;
}

/** root's environment under `sudo -E`: the user's HOME, no XDG_RUNTIME_DIR, sessions on. */
function sudoEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  onTestFinished(() => {
    for (const pid of agentPidsOf(home)) process.kill(pid, 'SIGKILL');
  });
  return { HOME: home, STOR_SESSION: 'on', STOR_SESSION_IDLE: '60', STOR_CONFIG_DIR: tempDir('stor-cfg-'), ...extra };
}

describe.skipIf(process.getuid?.() !== 0)("root with another user's HOME", () => {
  it('a cold and a warm command run in their own process and create nothing in that home: no code cache, no agent directory', async () => {
    const home = othersHome();
    const env = sudoEnv(home, { STOR_HOME: tempDir('stor-state-') });
    for (let i = 0; i < 2; i++) {
      const r = await spawnStor(['whoami', '--json'], { env });
      expect(r.code, r.stderr).toBe(0);
    }
    expect(tree(home)).toEqual([]);
  });

  it('once that user has an agent directory (~/.local/state/stor), the command still runs in its own process, not SESSION_DIR_UNSAFE', async () => {
    const home = othersHome(['.local/state/stor', '.cache']);
    const before = tree(home);
    const env = sudoEnv(home, { STOR_HOME: tempDir('stor-state-') });
    const r = await spawnStor(['whoami', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(tree(home)).toEqual(before);
    killAgentsOf(home);
  });

  it("the embedded appliance's default state (~/.local/share/stor) is refused with STATE_UNWRITABLE, nothing made", async () => {
    const home = othersHome();
    const r = await spawnStor(['whoami', '--json'], { env: sudoEnv(home) });
    expect(r.code).toBe(1);
    expect(errorOf(r.stderr)).toMatchObject({
      code: E.STATE_UNWRITABLE.code,
      message: expect.stringContaining(`owned by uid ${OTHER_UID}`),
    });
    expect(tree(home)).toEqual([]);
  });
});

/*
 * The profiles file (~/.config/stor/config.json): root with another user's HOME writes nothing
 * there, neither `~/.config/stor` nor the file, and refuses every change with CONFIG_UNWRITABLE
 * before anything else happens (before a login contacts the appliance, before a logout revokes a
 * key). That user's existing profiles are read as they are, never rewritten.
 */
describe.skipIf(process.getuid?.() !== 0)("root with another user's HOME: the profiles file", () => {
  /** As sudoEnv, but with the config directory the default one, in that home. */
  function defaultConfigEnv(home: string): Record<string, string> {
    const { STOR_CONFIG_DIR: _, ...env } = sudoEnv(home, { STOR_HOME: tempDir('stor-state-') });
    return env;
  }

  /** That user's own ~/.config/stor/config.json (0600, theirs), holding `doc`. */
  function othersProfiles(home: string, doc: unknown): string {
    const file = join(home, '.config/stor/config.json');
    writeFileSync(file, JSON.stringify(doc), { mode: 0o600 });
    chownSync(file, OTHER_UID, OTHER_UID);
    return file;
  }

  it('`stor profile use` and `stor login` are refused with CONFIG_UNWRITABLE, and nothing is made in that home', async () => {
    const home = othersHome();
    const env = defaultConfigEnv(home);
    const use = await spawnStor(['profile', 'use', 'embedded', '--json'], { env });
    expect(use.code).toBe(1);
    expect(errorOf(use.stderr)).toMatchObject({
      code: E.CONFIG_UNWRITABLE.code,
      message: expect.stringContaining(`owned by uid ${OTHER_UID}`),
    });
    const login = await spawnStor(['login', '--url', 'http://127.0.0.1:9', '--api-key-stdin', '--json'], {
      env,
      stdin: `1-${'a'.repeat(64)}\n`,
    });
    expect(login.code).toBe(1);
    expect(errorOf(login.stderr).code).toBe(E.CONFIG_UNWRITABLE.code);
    expect(tree(home)).toEqual([]);
  });

  it("that user's profiles are read as they are (`profile list`) and never rewritten: `profile use` and `logout` are refused, the file stays theirs, byte for byte", async () => {
    const home = othersHome(['.config/stor']);
    const env = defaultConfigEnv(home);
    // No "profiles" key: conf would fill in its default, rewriting the file as root's, on a mere read.
    const sparse = othersProfiles(home, { current: 'nas' });
    const list = await spawnStor(['profile', 'list', '--json'], { env });
    expect(list.code, list.stderr).toBe(0);
    expect(readFileSync(sparse, 'utf8')).toBe('{"current":"nas"}');
    expect(statSync(sparse).uid).toBe(OTHER_UID);

    const file = othersProfiles(home, {
      current: 'nas',
      profiles: { nas: { url: 'https://nas.example.com', apiKey: `1-${'a'.repeat(64)}` } },
    });
    const before = readFileSync(file, 'utf8');
    const listed = await spawnStor(['profile', 'list', '--json'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('nas.example.com');
    for (const args of [
      ['profile', 'use', 'embedded'],
      ['logout', '--keep-key'],
    ]) {
      const r = await spawnStor([...args, '--json'], { env });
      expect(r.code, args.join(' ')).toBe(1);
      expect(errorOf(r.stderr).code).toBe(E.CONFIG_UNWRITABLE.code);
    }
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(statSync(file).uid).toBe(OTHER_UID);
    expect(tree(home)).toEqual(['.config', '.config/stor', '.config/stor/config.json']);
  });
});
