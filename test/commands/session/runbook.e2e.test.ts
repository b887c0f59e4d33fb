import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_FOR_KIND } from '../../../src/commands/output/exit-codes.js';
import { E } from '../../../src/core/error-catalogue.js';
import { spawnStor } from '../../helpers/bin.js';
import { remoteEnv } from '../../helpers/client-env.js';
import { runBash } from '../../helpers/runbook.js';
import { keyLogins, loginLines, spawnServe } from '../../helpers/serve-process.js';
import { agentPidsOf, sessionEnv, until } from '../../helpers/session.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { EMBEDDED_MEANT } from '../../helpers/embedded-meant.js';

/*
 * The session agent's acceptance runbook: 200 mixed commands against one `stor serve -v`, through the built
 * binary, with the session agent on. The server's log (login-log.ts) counts the logins. A real
 * TrueNAS allows 20 a minute per client address (MW/main.py:873-903), as `stor serve` does.
 *
 * The first test starts Node 200 times, the second about 20 times with the whole CLI loaded in
 * each: the timeouts below are a safety net for a loaded machine, not an expectation.
 */
const SAFETY_MS = 240_000;

const ROUNDS = 20;
/**
 * Ten commands a round, twenty rounds: every command's stdout goes to out.txt and counts in $n,
 * which the script prints on exit. `--timeout 5` on every command: under the rate limit a login
 * is retried with back-off until --timeout runs out (src/core/transport/remote.ts, loginCall), so
 * the run without sessions fails after about 3 s of retries rather than the default 30 s. The
 * emulator refuses at once; 25.10.1 first sleeps a random 1–10 s (MW/main.py:900,
 * MW/utils/rate_limit/cache.py:93-95), which only the client's back-off stands in for here.
 */
const RUNBOOK = String.raw`
n=0
trap 'echo "commands run: $n" >&2' EXIT
r() { stor --timeout 5 "$@" >> out.txt; n=$((n+1)); }
printf 'runbook payload\n' > payload.txt
for i in $(seq 1 ${ROUNDS}); do
  r whoami
  r mkdir /mnt/tank/rb$i
  r upload payload.txt /mnt/tank/rb$i/
  r ls /mnt/tank/rb$i
  r stat /mnt/tank/rb$i/payload.txt
  r dataset create tank/ds$i
  r privilege show 1
  r call core.ping
  r call auth.me
  r ls /mnt/tank
done
`;

const RATE_LIMIT_TEXT = /EBUSY|rate limit|rate-limiting/i;

describe('a runbook of 200 commands through the session agent', () => {
  it(
    'every command exits 0, nothing is rate-limited, and the server logs at most 2 logins; uploads use single-use tokens',
    async () => {
      const server = await spawnServe(tempDir(), ['-v']);
      const sessions = sessionEnv();
      const env = { ...remoteEnv(server), ...sessions.env };
      const work = tempDir();

      const result = await runBash(RUNBOOK, env, { cwd: work });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toBe('commands run: 200\n');
      const out = readFileSync(join(work, 'out.txt'), 'utf8');
      expect(out.match(/^"pong"$/gm)).toHaveLength(ROUNDS);
      expect(out.match(/\t\/mnt\/tank\/rb\d+\/payload\.txt\tdone\t16\t/g)).toHaveLength(ROUNDS);
      for (const text of [result.stdout, result.stderr, out, server.stderr()])
        expect(text).not.toMatch(RATE_LIMIT_TEXT);

      // The first command's own login, and the agent's: every other command ran on the agent's.
      const logins = keyLogins(server);
      expect(logins.length, logins.join('\n')).toBeLessThanOrEqual(2);
      expect(
        logins.every((l) =>
          l.startsWith('stor serve: login ok: auth.login_with_api_key, user truenas_admin, key id 1, from '),
        ),
      ).toBe(true);
      expect(loginLines(server).filter((l) => l.includes(': /_upload/ token,'))).toHaveLength(ROUNDS);
      // The log names the key by its id only.
      expect(server.stderr()).not.toContain(env.STOR_API_KEY!.split('-')[1]!.slice(0, 6));

      const stop = await spawnStor(['session', 'stop', '--all', '--json'], { env });
      expect(stop.code, stop.stderr).toBe(0);
      expect(JSON.parse(stop.stdout)).toMatchObject({ agent: true, stopped: true });
      await until('the agent has exited', () => agentPidsOf(sessions.runtime).length === 0);
    },
    SAFETY_MS,
  );

  it(
    'the same runbook with STOR_SESSION=off stops at the 21st login: RATE_LIMITED, as the error catalogue says',
    async () => {
      const server = await spawnServe(tempDir(), ['-v']);
      const { env: on, runtime } = sessionEnv();
      const env = { ...remoteEnv(server), ...on, STOR_SESSION: 'off', ...EMBEDDED_MEANT };
      const work = tempDir();

      const result = await runBash(RUNBOOK, env, { cwd: work });
      expect(result.code).toBe(EXIT_FOR_KIND[E.RATE_LIMITED.kind]);
      // Two rounds of ten commands, one login each; the next command's login is refused.
      expect(result.stderr).toContain('commands run: 20\n');
      expect(result.stderr).toMatch(
        /^stor: ws:\/\/127\.0\.0\.1:\d+ is rate-limiting logins from this address \(\[EBUSY\] Rate Limit Exceeded\)$/m,
      );
      // Twenty logins went through. The 21st command is refused before its login: each login first
      // asks auth.mechanism_choices (does it offer SCRAM?), an anonymous call with its own 20 a minute
      // (MW/main.py:873-903), so that question is the one refused; any login after it is refused too.
      const logins = keyLogins(server).filter((l) => l.includes('auth.login_with_api_key'));
      expect(logins.length).toBeGreaterThanOrEqual(20);
      expect(logins.slice(0, 20).every((l) => l.startsWith('stor serve: login ok: '))).toBe(true);
      expect(logins.slice(20).every((l) => l.endsWith(': [EBUSY] Rate Limit Exceeded'))).toBe(true);
      // Off means off: no agent was started.
      expect(agentPidsOf(runtime)).toEqual([]);
    },
    SAFETY_MS,
  );
});
