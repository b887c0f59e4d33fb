import { afterEach, describe, expect, it } from 'vitest';
import { colorLevelFor } from '../../../src/commands/output/color-level.js';
// chalk's own detection, by file: its package exports only the chalk entry.
import { createSupportsColor } from '../../../node_modules/chalk/source/vendor/supports-color/index.js';

type Env = Record<string, string>;

const CASES: Env[] = [
  {},
  { TERM: 'xterm' },
  { TERM: 'xterm-256color' },
  { TERM: 'screen-256' },
  { TERM: 'dumb' },
  { TERM: 'dumb', FORCE_COLOR: '2' },
  { TERM: 'xterm', NO_COLOR: '1' },
  { TERM: 'xterm', NO_COLOR: '1', FORCE_COLOR: '1' },
  { TERM: 'xterm', NO_COLOR: '' },
  { FORCE_COLOR: '' },
  { FORCE_COLOR: '0', TERM: 'xterm-256color' },
  { FORCE_COLOR: 'true' },
  { FORCE_COLOR: 'false', COLORTERM: 'truecolor' },
  { FORCE_COLOR: '3' },
  { FORCE_COLOR: '7' },
  { FORCE_COLOR: 'abc', TERM: 'xterm' },
  { COLORTERM: 'truecolor' },
  { COLORTERM: 'yes' },
  { CI: '1' },
  { CI: '1', GITHUB_ACTIONS: 'true' },
  { CI: '1', GITLAB_CI: 'true', TERM: 'xterm-256color' },
  { CI: '1', CI_NAME: 'codeship' },
  { TF_BUILD: '1', AGENT_NAME: 'a' },
  { TEAMCITY_VERSION: '2023.1' },
  { TEAMCITY_VERSION: '8.1' },
  { TERM: 'xterm-kitty' },
  { TERM_PROGRAM: 'iTerm.app', TERM_PROGRAM_VERSION: '3.4' },
  { TERM_PROGRAM: 'iTerm.app', TERM_PROGRAM_VERSION: '2.9' },
  { TERM_PROGRAM: 'Apple_Terminal' },
  { TERM: 'linux' },
  { TERM: 'unknown-term' },
];

const saved = { ...process.env };
afterEach(() => {
  for (const k of Object.keys(process.env)) delete process.env[k];
  Object.assign(process.env, saved);
});

/** chalk's level for `env` (it reads process.env itself), with NO_COLOR as processIO always added it. */
function chalkLevel(env: Env, isTTY: boolean): number {
  for (const k of Object.keys(process.env)) delete process.env[k];
  Object.assign(process.env, env);
  if (env.NO_COLOR && env.FORCE_COLOR === undefined) return 0;
  const found = createSupportsColor({ isTTY } as never, { sniffFlags: false }) as false | { level: number };
  return found ? found.level : 0;
}

describe('colour levels from a handed-over environment', () => {
  it('colorLevelFor decides as chalk does for NO_COLOR, FORCE_COLOR, TERM=dumb, CI, COLORTERM and 256-colour terminals, on a terminal and piped', () => {
    for (const env of CASES) {
      for (const isTTY of [true, false]) {
        expect({ env, isTTY, level: colorLevelFor(env, isTTY) }).toEqual({ env, isTTY, level: chalkLevel(env, isTTY) });
      }
    }
  });

  it('colorLevelFor reads only the environment it is given, not the process', () => {
    process.env.FORCE_COLOR = '3';
    expect(colorLevelFor({ TERM: 'dumb' }, false)).toBe(0);
    expect(colorLevelFor({ TERM: 'xterm-256color' }, true)).toBe(2);
  });
});
