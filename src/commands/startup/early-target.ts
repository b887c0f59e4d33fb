import type { CommandLine } from '../framework/command-line.js';
import { openTarget } from '../framework/open-target.js';
import type { GlobalOptions } from '../framework/global-options.js';
import { HeadStart, specKey } from './head-start.js';
import type { IO } from '../output/io.js';
import { DEFAULT_TIMEOUT_SECONDS, resolveTarget, type TargetOptions } from '../framework/target.js';

/**
 * Read commands that open their target first thing and take no arguments: for these the target
 * can be opened, and the key's check (a slow hash, on the appliance or in this process) run, while
 * the CLI itself still loads and parses. Nothing else gets a head start.
 */
const COMMANDS = new Set([
  'whoami',
  'privilege list',
  'privilege check',
  'user list',
  'group list',
  'api-key list',
  'dataset list',
  'snapshot list',
  'job list',
]);

/** The global options a command line that gets a head start may carry: the target's, and output's. */
const TARGET_OPTIONS = new Set<keyof GlobalOptions>([
  'json',
  'quiet',
  'insecure',
  'session',
  'url',
  'profile',
  'timeout',
  'ca',
  'rpc',
]);

export interface TargetGuess {
  options: TargetOptions;
  timeoutSeconds: number;
}

/**
 * The target options of a command line that qualifies, from the one reading of the command line
 * (command-line.ts); undefined at the least doubt: help, -v (its trace must come in order),
 * --targets, `--`, an option given twice or not listed, an option missing its value or given one
 * that could be a flag, a timeout that is not a plain whole number. The real parse decides in the
 * end: a guess is used only if the command resolves the very same target (head-start.ts).
 */
export function guessTarget(line: CommandLine): TargetGuess | undefined {
  if (line.asksHelp || line.asksVersion || line.endOfOptions || line.repeated.size > 0 || line.others.length > 0)
    return undefined;
  if (!COMMANDS.has(line.words.join(' '))) return undefined;
  const given = Object.entries(line.globals) as [keyof GlobalOptions, string | boolean][];
  // One key per option: an option whose value is missing (the last word) gave none.
  if (given.length !== line.options.length) return undefined;
  if (given.some(([key, v]) => !TARGET_OPTIONS.has(key) || (typeof v === 'string' && v.startsWith('-'))))
    return undefined;
  const { timeout, rpc, url, profile, ca, insecure } = line.globals;
  if (rpc !== undefined && rpc !== 'ws' && rpc !== 'http') return undefined;
  if (timeout !== undefined && !/^[1-9]\d{0,5}$/.test(String(timeout))) return undefined;
  return {
    options: {
      ...(typeof url === 'string' ? { url } : {}),
      ...(typeof profile === 'string' ? { profile } : {}),
      ...(typeof ca === 'string' ? { ca } : {}),
      ...(rpc !== undefined ? { rpc } : {}),
      ...(insecure === true ? { insecure } : {}),
    },
    timeoutSeconds: timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(timeout),
  };
}

/**
 * Starts opening (connecting to and logging in to) the target of `line` if it qualifies, for the
 * command to take over (head-start.ts); undefined when it does not. The target is resolved as the command resolves it
 * (resolveTarget: flags, STOR_URL, STOR_PROFILE, STOR_API_KEY, the current profile) and opened by
 * the same code (openTarget), so a key only ever goes where the command itself would send it,
 * under the same TLS and loopback rules. Only a remote target gets one, so no state is ever opened,
 * let alone created, ahead. Resolves once the connect is under way, so that the CLI loads while
 * the appliance checks the key rather than before.
 */
export async function startEarlyTarget(line: CommandLine, io: IO): Promise<HeadStart | undefined> {
  const guess = guessTarget(line);
  if (!guess) return undefined;
  let underWay: () => void = () => undefined;
  const dispatched = new Promise<void>((resolve) => (underWay = resolve));
  let loginSent: () => void = () => undefined;
  const sent = new Promise<void>((resolve) => (loginSent = resolve));
  const headStart = new HeadStart(
    (async () => {
      try {
        const spec = await resolveTarget(guess.options, io);
        // Measured (bench/HISTORY.md): the embedded appliance gained nothing from it, as
        // loading it first only moves the CLI's loading after it; a remote login did.
        if (spec.kind === 'embedded') return undefined;
        // Loaded first, so that openTarget's own imports find them and the connect starts before the
        // next turn of the event loop.
        await Promise.all([
          import('../../core/transport/login-strategies.js'),
          spec.rpc === 'http'
            ? import('../../core/transport/remote-http.js')
            : import('../../core/transport/remote.js'),
        ]);
        // Over WebSocket the CLI loads once the login is written (bin-entry.ts). Over HTTP every
        // call carries the key and the open's one call (auth.me) is already the key's check: the
        // CLI loads at once, as the call goes out.
        const opened = openTarget(spec, guess.timeoutSeconds, {
          ...(io.onSignal ? { onSignal: io.onSignal.bind(io) } : {}),
          ...(spec.rpc === 'http' ? {} : { onLoginSent: loginSent }),
        });
        if (spec.rpc === 'http') loginSent();
        setImmediate(underWay);
        return { key: specKey(spec, guess.timeoutSeconds), opened };
      } finally {
        setImmediate(underWay);
      }
    })(),
    sent,
  );
  await dispatched;
  return headStart;
}
