import { describe, expect, it } from 'vitest';
import { guessTarget as guessLine } from '../../../src/commands/startup/early-target.js';
import { readCommandLine } from '../../../src/commands/framework/command-line.js';

const guessTarget = (argv: readonly string[]) => guessLine(readCommandLine(argv));

describe('guessTarget: which command lines get a head start (src/commands/startup/early-target.ts)', () => {
  it('reads the target options of a qualifying read command, before or after its words', () => {
    expect(guessTarget(['whoami'])).toEqual({ options: {}, timeoutSeconds: 30 });
    expect(guessTarget(['--url', 'wss://nas', 'whoami', '--json', '--timeout', '5', '--insecure'])).toEqual({
      options: { url: 'wss://nas', insecure: true },
      timeoutSeconds: 5,
    });
    expect(guessTarget(['privilege', 'check', '--profile', 'lab', '--rpc', 'http'])).toEqual({
      options: { profile: 'lab', rpc: 'http' },
      timeoutSeconds: 30,
    });
    // The one reading of the command line (command-line.ts) takes `--opt=value` as commander does.
    expect(guessTarget(['--url=wss://nas', 'whoami', '--timeout=7'])).toEqual({
      options: { url: 'wss://nas' },
      timeoutSeconds: 7,
    });
  });

  it.each([
    [['--help']],
    [['whoami', '--help']],
    [['whoami', '-h']],
    [['help', 'whoami']],
    [['-v', 'whoami']],
    [['--verbose', 'whoami']],
    [['--targets', 'all', 'whoami']],
    [['--url', 'wss://a', '--url', 'wss://b', 'whoami']],
    [['--profile', '-q', 'whoami']],
    [['--url']],
    [['whoami', 'extra']],
    [['whoami', '--', '--url', 'x']],
    [['dataset', 'list', 'tank']],
    [['dataset', 'create', 'tank/x']],
    [['login', '--url', 'wss://nas']],
    [['profile', 'list']],
    [['serve']],
    [['completion', 'bash']],
    [['--version']],
    [['whoami', '--timeout', '0.5']],
    [['whoami', '--timeout', '1e3']],
    [['whoami', '--rpc', 'grpc']],
    [['whoami', '--no-such-flag']],
    [['whoami', '--timeout']],
    [['whoami', '-y']],
    [[]],
  ])('gives none to %j', (argv) => {
    expect(guessTarget(argv)).toBeUndefined();
  });
});
