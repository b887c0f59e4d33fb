/**
 * Command lines at the edges of the parser (`--`, `--json` after `--`, `--opt=value`, a short
 * option's value attached, help and version forms, an empty profile name, no command at all): the
 * exit code and the first line of each stream as they are, and the same bytes whether the command
 * runs in its own process (STOR_SESSION=off) or is handed to the session agent (on). Parsing the
 * command line once, in the first stage, must change none of it. STOR_BIN_UNDER_TEST runs another
 * build's binary (and the agent it starts) against the same expectations.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SpawnResult } from '../../helpers/bin.js';
import { agentPidsOf, sessionEnv } from '../../helpers/session.js';
import { spawnUnderTest } from '../../helpers/stor-under-test.js';

/** argv → [exit code, first line of stdout, first line of stderr], as main has them with sessions off. */
const EDGES: [string[], number, string, string][] = [
  [['--version'], 0, '0.1.0', ''],
  [['-V'], 0, '0.1.0', ''],
  [['--json', '--version'], 0, '0.1.0', ''],
  [[], 0, 'Usage: stor [options] [command]', ''],
  [['--json'], 0, 'Usage: stor [options] [command]', ''],
  [['help', 'plan'], 0, 'Usage: stor plan [options]', ''],
  [['plan', '--help', '--json'], 0, 'Usage: stor plan [options]', ''],
  // After `--` everything is an operand: `--json` is then a command (or an argument), never the flag.
  [['--', '--json'], 2, '', "stor: unknown command '--json' (Did you mean --ssion?)"],
  [['group', 'list', '--', '--json'], 2, '', "stor: too many arguments for 'list'. Expected 0 arguments but got 1."],
  [['stat', '--', '--json'], 1, '', 'stor: [EINVAL] --json: path must be absolute'],
  [['--profile=nope', 'whoami'], 1, '', 'stor: no profile named "nope"'],
  [['--profile', 'nope', 'whoami'], 1, '', 'stor: no profile named "nope"'],
  [['--profile=', 'whoami'], 1, '', 'stor: no profile named ""'],
  [
    ['--json', 'nosuch'],
    2,
    '',
    '{"error":{"code":"USAGE","kind":"usage","message":"unknown command \'nosuch\'","hint":"see `stor --help`"}}',
  ],
  [
    ['--json=yes', 'whoami'],
    2,
    '',
    '{"error":{"code":"USAGE","kind":"usage","message":"unknown option \'--json=yes\'","hint":"see `stor whoami --help`"}}',
  ],
  [['--no-such-global'], 2, '', "stor: unknown option '--no-such-global'"],
  [['plan', '-f'], 2, '', "stor: option '-f, --file <file>' argument missing"],
  [['plan', '-fnone.yaml'], 2, '', 'stor: cannot read none.yaml: ENOENT'],
  [['plan', '--file=none.yaml'], 2, '', 'stor: cannot read none.yaml: ENOENT'],
  [['whoami', '--json', '--json'], 0, '{', ''],
];

const first = (text: string) => text.split('\n')[0] ?? '';

describe("command lines at the parser's edges", () => {
  // One client machine, and each edge run once in its own process, for both tests: the first reads
  // the table off these runs, the second holds the agent's to the same bytes. The edges change no
  // state (help, version, refusals, a whoami), so a second run of each in its own process gave the
  // same answers at the cost of twenty more Node starts.
  const home = mkdtempSync(join(tmpdir(), 'stor-edges-'));
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  const env = { STOR_HOME: join(home, 'home'), STOR_CONFIG_DIR: join(home, 'config') };
  for (const dir of Object.values(env)) mkdirSync(dir, { mode: 0o700 });
  let offRuns: Promise<SpawnResult[]> | undefined;
  const inOwnProcess = () =>
    (offRuns ??= (async () => {
      const runs: SpawnResult[] = [];
      for (const [args] of EDGES) runs.push(await spawnUnderTest(args, { ...env, STOR_SESSION: 'off' }));
      return runs;
    })());

  it('exit with the code and say the words they do today, sessions off', async () => {
    // Fails if `--` stopped ending the options, `--opt=value` or `-fVALUE` stopped parsing, or help/version moved.
    const runs = await inOwnProcess();
    const got = EDGES.map(([args], i) => [args, runs[i]!.code, first(runs[i]!.stdout), first(runs[i]!.stderr)]);
    expect(got).toEqual(EDGES);
  }, 180_000);

  it('print the same bytes and exit the same through the session agent as in their own process', async () => {
    // Fails if the first stage parses a command line otherwise than the command does in its own process.
    const runs = await inOwnProcess();
    const { env: on, runtime } = sessionEnv();
    for (const [i, [args]] of EDGES.entries()) {
      const off = runs[i]!;
      const handed = await spawnUnderTest(args, { ...env, ...on });
      expect({ args, code: handed.code, stdout: handed.stdout, stderr: handed.stderr }).toEqual({
        args,
        code: off.code,
        stdout: off.stdout,
        stderr: off.stderr,
      });
    }
    // The agent ran them (it was started for this runtime directory): the comparison compared something.
    expect(agentPidsOf(runtime).length).toBeGreaterThan(0);
  }, 300_000);
});
