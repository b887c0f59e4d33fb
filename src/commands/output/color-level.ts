import type { ColorLevel } from './io.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * How much colour a stream takes, from an environment and whether the stream is a terminal:
 * chalk 5's detection (its vendored supports-color, `_supportsColor` with `sniffFlags: false`: stor
 * takes no `--color` flag), plus NO_COLOR (no-color.org), which chalk leaves out: set and not
 * empty, it turns colour off unless FORCE_COLOR asks for it explicitly.
 *
 * A port rather than a call, because supports-color reads `process.env` (captured when it loads)
 * and remembers FORCE_COLOR in module state; the session agent must judge each command by the
 * environment and terminal of the process that handed it over, not by its own. The process path
 * (processIO) uses it too, so both paths decide alike.
 */
export function colorLevelFor(env: Env, isTTY: boolean, platform: NodeJS.Platform = process.platform): ColorLevel {
  if (env.NO_COLOR && env.FORCE_COLOR === undefined) return 0;
  return clamp(supportsColorLevel(env, isTTY, platform));
}

function clamp(n: number): ColorLevel {
  if (!(n > 0)) return 0;
  return Math.min(3, Math.floor(n)) as ColorLevel;
}

function forceColorOf(env: Env): number | undefined {
  const force = env.FORCE_COLOR;
  if (force === undefined) return undefined;
  if (force === 'true') return 1;
  if (force === 'false') return 0;
  return force.length === 0 ? 1 : Math.min(Number.parseInt(force, 10), 3);
}

/** chalk/source/vendor/supports-color/index.js `_supportsColor`, line for line, with `env` given. */
function supportsColorLevel(env: Env, isTTY: boolean, platform: NodeJS.Platform): number {
  const forceColor = forceColorOf(env);
  if (forceColor === 0) return 0;
  if ('TF_BUILD' in env && 'AGENT_NAME' in env) return 1;
  if (!isTTY && forceColor === undefined) return 0;
  const min = forceColor || 0;
  if (env.TERM === 'dumb') return min;
  // stor runs on Linux and macOS; Windows' build-number check is chalk's, not needed here.
  if (platform === 'win32') return 1;
  if ('CI' in env) {
    if (['GITHUB_ACTIONS', 'GITEA_ACTIONS', 'CIRCLECI'].some((key) => key in env)) return 3;
    if (
      ['TRAVIS', 'APPVEYOR', 'GITLAB_CI', 'BUILDKITE', 'DRONE'].some((sign) => sign in env) ||
      env.CI_NAME === 'codeship'
    )
      return 1;
    return min;
  }
  if ('TEAMCITY_VERSION' in env) return /^(9\.(0*[1-9]\d*)\.|\d{2,}\.)/.test(env.TEAMCITY_VERSION!) ? 1 : 0;
  if (env.COLORTERM === 'truecolor') return 3;
  if (env.TERM === 'xterm-kitty' || env.TERM === 'xterm-ghostty' || env.TERM === 'wezterm') return 3;
  if ('TERM_PROGRAM' in env) {
    const version = Number.parseInt((env.TERM_PROGRAM_VERSION || '').split('.')[0]!, 10);
    if (env.TERM_PROGRAM === 'iTerm.app') return version >= 3 ? 3 : 2;
    if (env.TERM_PROGRAM === 'Apple_Terminal') return 2;
  }
  if (/-256(color)?$/i.test(env.TERM ?? '')) return 2;
  if (/^screen|^xterm|^vt100|^vt220|^rxvt|color|ansi|cygwin|linux/i.test(env.TERM ?? '')) return 1;
  if ('COLORTERM' in env) return 1;
  return min;
}
