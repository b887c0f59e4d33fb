import { chmodSync, chownSync, mkdirSync, readdirSync } from 'node:fs';
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
    for (let p = path; p !== '.'; p = join(p, '..').replace(/\/?\.\.$/, '') || '.') chownSync(join(home, p), OTHER_UID, OTHER_UID);
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
    expect(errorOf(r.stderr)).toMatchObject({ code: E.STATE_UNWRITABLE.code, message: expect.stringContaining(`owned by uid ${OTHER_UID}`) });
    expect(tree(home)).toEqual([]);
  });
});
