import { openTarget } from './context.js';
import { offerHeadStart, specKey } from './head-start.js';
import type { IO } from './io.js';
import { DEFAULT_TIMEOUT_SECONDS, resolveTarget, type TargetOptions } from './target.js';

/**
 * Read commands that open their target first thing and take no arguments: for these the target
 * can be opened, and the key's check (a slow hash, on the appliance or in this process) run, while
 * the CLI itself still loads and parses. Nothing else gets a head start.
 */
const COMMANDS = new Set(['whoami', 'privilege list', 'privilege check', 'user list', 'group list', 'api-key list', 'dataset list', 'snapshot list', 'job list']);
const FLAGS = new Set(['--json', '--quiet', '-q', '--insecure']);
const VALUE_FLAGS = new Set(['--url', '--profile', '--timeout', '--ca', '--rpc']);

export interface TargetGuess {
  options: TargetOptions;
  timeoutSeconds: number;
}

/**
 * The target options of a command line that qualifies, read without commander; undefined at the
 * least doubt: help, -v (its trace must come in order), --targets, `--`, `--opt=value`, a flag
 * given twice, any argument or option not listed, a value that could be a flag, a timeout that is
 * not a plain whole number. The real parse decides in the end: a guess is used only if the
 * command resolves the very same target.
 */
export function guessTarget(argv: readonly string[]): TargetGuess | undefined {
  const words: string[] = [];
  const values: Record<string, string> = {};
  let insecure = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (FLAGS.has(a)) {
      if (a === '--insecure') insecure = true;
    } else if (VALUE_FLAGS.has(a)) {
      const v = argv[++i];
      const name = a.slice(2);
      if (v === undefined || v.startsWith('-') || name in values) return undefined;
      values[name] = v;
    } else if (a.startsWith('-')) {
      return undefined;
    } else {
      words.push(a);
    }
  }
  if (!COMMANDS.has(words.join(' '))) return undefined;
  const { timeout, rpc, url, profile, ca } = values;
  if (rpc !== undefined && rpc !== 'ws' && rpc !== 'http') return undefined;
  if (timeout !== undefined && !/^[1-9]\d{0,5}$/.test(timeout)) return undefined;
  return {
    options: {
      ...(url !== undefined ? { url } : {}),
      ...(profile !== undefined ? { profile } : {}),
      ...(ca !== undefined ? { ca } : {}),
      ...(rpc !== undefined ? { rpc } : {}),
      ...(insecure ? { insecure } : {}),
    },
    timeoutSeconds: timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(timeout),
  };
}

/**
 * Starts opening (connecting to and logging in to) the target of `argv` if it qualifies, for the
 * command to take over (head-start.ts). The target is resolved as the command resolves it
 * (resolveTarget: flags, STOR_URL, STOR_PROFILE, STOR_API_KEY, the current profile) and opened by
 * the same code (openTarget), so a key only ever goes where the command itself would send it,
 * under the same TLS and loopback rules. Only a remote target gets one, so no state is ever opened,
 * let alone created, ahead. Resolves once the connect is under way, so that the CLI loads while
 * the appliance checks the key rather than before.
 */
export async function startEarlyTarget(argv: readonly string[], io: IO): Promise<void> {
  const guess = guessTarget(argv);
  if (!guess) return;
  let underWay: () => void = () => undefined;
  const dispatched = new Promise<void>((resolve) => (underWay = resolve));
  offerHeadStart(
    (async () => {
      try {
        const spec = await resolveTarget(guess.options, io);
        // Measured (bench/HISTORY.md, issue 15): the embedded appliance gained nothing from it, as
        // loading it first only moves the CLI's loading after it; a remote login did.
        if (spec.kind === 'embedded') return undefined;
        // Loaded first, so that openTarget's own imports find them and the connect starts before the
        // next turn of the event loop.
        await Promise.all([import('../../core/transport/login-strategies.js'), spec.rpc === 'http' ? import('../../core/transport/remote-http.js') : import('../../core/transport/remote.js')]);
        const opened = openTarget(spec, guess.timeoutSeconds, io.onSignal ? { onSignal: io.onSignal.bind(io) } : {});
        setImmediate(underWay);
        return { key: specKey(spec, guess.timeoutSeconds), opened };
      } finally {
        setImmediate(underWay);
      }
    })(),
  );
  await dispatched;
}
