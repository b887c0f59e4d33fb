import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { keyLogins, spawnServe } from '../../helpers/serve-process.js';
import { agentPidsOf, sessionEnv, until } from '../../helpers/session.js';
import { tempDir } from '../../helpers/temp-dir.js';

/*
 * fleets: `--targets` goes through the session agent, so the second run in a row logs
 * in nowhere. A run over N targets starts the agent and waits for it (src/first-stage.ts), so the
 * agent's are the first run's logins and the second run has none to make again.
 */

const N = 3;

describe('--targets through the session agent', () => {
  it(`the second \`--targets 'nas[1-${N}]' privilege check\` in a row makes no login on any server`, async () => {
    const servers = await Promise.all(Array.from({ length: N }, () => spawnServe(tempDir(), ['-v'])));
    const sessions = sessionEnv();
    const env = { ...clientEnv(), ...sessions.env };
    for (const [i, s] of servers.entries()) {
      const login = await spawnStor(
        ['--no-session', 'login', '--url', s.baseUrl, '--api-key-stdin', '--profile', `nas${i + 1}`],
        { env, stdin: readFileSync(s.adminKeyFile, 'utf8') },
      );
      expect(login.code, login.stderr).toBe(0);
    }
    // The first run finds no agent: it starts one.
    expect(agentPidsOf(sessions.runtime)).toEqual([]);
    const counts = () => servers.map((s) => keyLogins(s).length);
    const before = counts();

    const check = ['--targets', `nas[1-${N}]`, 'privilege', 'check', '--json'];
    const sessionTargets = async () =>
      (JSON.parse((await spawnStor(['session', 'list', '--json'], { env })).stdout) as { target: string }[])
        .map((s) => s.target)
        .sort();
    let first = await spawnStor(check, { env });
    expect(first.code, first.stderr).toBe(0);
    expect((JSON.parse(first.stdout) as { target: string; ok: boolean }[]).map((o) => [o.target, o.ok])).toEqual(
      servers.map((_, i) => [`nas${i + 1}`, true]),
    );
    // One login per server: the agent's, when it came up within the first stage's wait (5 s,
    // src/first-stage.ts FLEET_WAIT_MS). On a machine loaded past that the first run goes on
    // in-process, as designed; the run after it then logs in through the agent, and it is the
    // run after that one which must log in nowhere.
    expect(counts().map((n, i) => n - before[i]!)).toEqual(servers.map(() => 1));
    if ((await sessionTargets()).length === 0) {
      first = await spawnStor(check, { env });
      expect(first.code, first.stderr).toBe(0);
      expect(counts().map((n, i) => n - before[i]!)).toEqual(servers.map(() => 2));
    }
    const afterFirst = counts();

    const second = await spawnStor(check, { env });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(counts()).toEqual(afterFirst);

    const list = await spawnStor(['session', 'list', '--json'], { env });
    expect((JSON.parse(list.stdout) as { target: string }[]).map((s) => s.target).sort()).toEqual(
      servers.map((s) => s.baseUrl).sort(),
    );
    expect((await spawnStor(['session', 'stop', '--all'], { env })).code).toBe(0);
    await until('the agent has exited', () => agentPidsOf(sessions.runtime).length === 0);
  });
});
