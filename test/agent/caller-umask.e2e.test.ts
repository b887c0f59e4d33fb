import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../helpers/bin.js';
import { clientEnv } from '../helpers/client-env.js';
import { agentServing, SAFETY_KILL_MS, sessionEnv, viaAgent } from '../helpers/session.js';
import { tempDir } from '../helpers/temp-dir.js';

/*
 * The files and directories a command creates get the modes its own process would have given
 * them: those its caller's umask allows, whatever the umask of the agent that ran it. The agent is
 * started by a command under one umask, the downloads run under the other. `npm run build` first.
 */

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

/** An embedded appliance holding /mnt/tank/s.txt and /mnt/tank/tree/{a.txt,sub/b.txt}, and an agent started under `agentUmask`. */
async function setUp(agentUmask: number) {
  const { env: session, dir } = sessionEnv();
  const env = { ...clientEnv(), ...session };
  expect(
    (await spawnStor(['whoami'], { env: { ...env, STOR_SESSION: 'off' }, killAfterMs: SAFETY_KILL_MS })).code,
  ).toBe(0);
  const tank = join(env.STOR_HOME!, 'mnt/tank');
  writeFileSync(join(tank, 's.txt'), 'secret\n');
  mkdirSync(join(tank, 'tree/sub'), { recursive: true });
  writeFileSync(join(tank, 'tree/a.txt'), 'a\n');
  writeFileSync(join(tank, 'tree/sub/b.txt'), 'b\n');
  const starter = { ...session, STOR_HOME: tempDir('stor-starter-'), STOR_CONFIG_DIR: tempDir('stor-starter-cfg-') };
  expect((await spawnStor(['whoami'], { env: starter, umask: agentUmask, killAfterMs: SAFETY_KILL_MS })).code).toBe(0);
  await agentServing(dir);
  return { env, dir, out: tempDir('stor-umask-out-') };
}

describe("a command handed to the session agent creates files under its caller's umask", () => {
  it('under umask 077 a downloaded secret is 0600, and download -r makes directories 0700 and files 0600 (agent started under 022)', async () => {
    const { env, dir, out } = await setUp(0o022);
    const one = await viaAgent(['download', '/mnt/tank/s.txt', join(out, 's.txt')], env, dir, { umask: 0o077 });
    expect(one.code, one.stderr).toBe(0);
    expect(modeOf(join(out, 's.txt'))).toBe('600');
    const tree = await viaAgent(['download', '-r', '/mnt/tank/tree', join(out, 'tree')], env, dir, { umask: 0o077 });
    expect(tree.code, tree.stderr).toBe(0);
    expect([
      modeOf(join(out, 'tree')),
      modeOf(join(out, 'tree/sub')),
      modeOf(join(out, 'tree/a.txt')),
      modeOf(join(out, 'tree/sub/b.txt')),
    ]).toEqual(['700', '700', '600', '600']);
  });

  it('under umask 022 a download is 0644 and download -r makes directories 0755, though the agent was started under 077', async () => {
    const { env, dir, out } = await setUp(0o077);
    const one = await viaAgent(['download', '/mnt/tank/s.txt', join(out, 's.txt')], env, dir, { umask: 0o022 });
    expect(one.code, one.stderr).toBe(0);
    expect(modeOf(join(out, 's.txt'))).toBe('644');
    const tree = await viaAgent(['download', '-r', '/mnt/tank/tree', join(out, 'tree')], env, dir, { umask: 0o022 });
    expect(tree.code, tree.stderr).toBe(0);
    expect([modeOf(join(out, 'tree')), modeOf(join(out, 'tree/sub')), modeOf(join(out, 'tree/a.txt'))]).toEqual([
      '755',
      '755',
      '644',
    ]);
  });

  it('in its own process the modes are the same: umask 077 gives 0600', async () => {
    const env: Record<string, string> = { ...clientEnv(), STOR_SESSION: 'off' };
    expect((await spawnStor(['whoami'], { env })).code).toBe(0);
    writeFileSync(join(env.STOR_HOME!, 'mnt/tank/s.txt'), 'secret\n');
    const out = tempDir('stor-umask-out-');
    const r = await spawnStor(['download', '/mnt/tank/s.txt', join(out, 's.txt')], { env, umask: 0o077 });
    expect(r.code, r.stderr).toBe(0);
    expect(modeOf(join(out, 's.txt'))).toBe('600');
  });
});
