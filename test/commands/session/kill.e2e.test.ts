import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { remoteEnv } from '../../helpers/client-env.js';
import { runBash } from '../../helpers/runbook.js';
import { keyLogins, loginLines, spawnServe } from '../../helpers/serve-process.js';
import { agentPidsOf, sessionEnv, until } from '../../helpers/session.js';
import { startSplitUpload } from '../../helpers/split-upload.js';
import { tempDir } from '../../helpers/temp-dir.js';

/*
 * The session agent killed during a runbook, against a real `stor serve -v` and the real agent
 * (test/core/session/first-stage-fallback.e2e.test.ts has the single-command cases, behind a stand-in
 * agent). What only a runbook shows: the commands after the kill find the dead agent's socket,
 * start a new agent rather than logging in on their own one after another, and all succeed.
 */

/** A safety net for a loaded machine, not an expectation. */
const SAFETY_MS = 120_000;

describe('the session agent killed (-9) during a runbook', () => {
  it(
    'the change in flight reports SESSION_LOST with how to check; the rest of the runbook runs, starting a new agent, with few logins',
    async () => {
      const server = await spawnServe(tempDir(), ['-v']);
      const sessions = sessionEnv();
      const env = { ...remoteEnv(server), ...sessions.env };
      const work = tempDir();
      // An upload the test holds half-sent: a put to the same path waits for it (path-lock.ts).
      const held = startSplitUpload(
        { url: server.url, rpcUrl: server.rpcUrl, adminKey: env.STOR_API_KEY! },
        '/mnt/tank/held.bin',
        {},
        'first half ',
      );
      await until('the held upload is under way', () =>
        loginLines(server).some((l) => l.includes(': /_upload/ bearer key,')),
      );
      const before = keyLogins(server).length;

      const script = String.raw`
r() { stor --timeout 5 "$@" >> out.txt; }
printf 'runbook payload\n' > payload.txt
r whoami
r call core.ping
r mkdir /mnt/tank/kill
set +e
stor --timeout 5 upload payload.txt /mnt/tank/held.bin 2> lost.txt
echo "upload exit $?" >> out.txt
set -e
for i in 1 2 3 4 5; do
  r ls /mnt/tank/kill
  r mkdir /mnt/tank/kill/after$i
  r call core.ping
done
r stat /mnt/tank/kill/after5
echo RUNBOOK-OK >> out.txt
`;
      const running = runBash(script, env, { cwd: work });
      // The upload is in flight in the agent once the server has its token login; its put waits for the held one.
      await until('the runbook upload reached the server', () =>
        loginLines(server).some((l) => l.includes(': /_upload/ token,')),
      );
      const [killed] = agentPidsOf(sessions.runtime);
      expect(killed).toBeDefined();
      process.kill(killed!, 'SIGKILL');
      await held.finish('second half');

      const result = await running;
      expect(result.code, result.stderr).toBe(0);
      const out = readFileSync(join(work, 'out.txt'), 'utf8');
      expect(out).toContain('upload exit 3\n');
      expect(out).toContain('RUNBOOK-OK\n');
      expect(readFileSync(join(work, 'lost.txt'), 'utf8')).toBe(
        'stor: the session agent ended while `stor upload` ran: whether it changed anything is unknown\n' +
          'hint: check before running it again: `stor job list`, `stor stat PATH`\n',
      );

      // A new agent took the place of the killed one, whose socket it replaced.
      const after = agentPidsOf(sessions.runtime);
      expect(after).toHaveLength(1);
      expect(after[0]).not.toBe(killed);
      // Before the kill: the first command's login and the agent's. After: the first command's own
      // (it finds the dead agent's socket, starts a new agent and runs in its own process), and the
      // new agent's. One more is the test's own, waiting for the held upload's job.
      const logins = keyLogins(server).slice(before);
      expect(logins.length, logins.join('\n')).toBeLessThanOrEqual(5);
      expect(server.stderr()).not.toMatch(/EBUSY|rate limit/i);

      expect((await spawnStor(['session', 'stop', '--all'], { env })).code).toBe(0);
      await until('the agent has exited', () => agentPidsOf(sessions.runtime).length === 0);
    },
    SAFETY_MS,
  );
});
