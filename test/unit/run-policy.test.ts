import { describe, expect, it } from 'vitest';
import { decideRun } from '../../src/agent/run-policy.js';
import { GLOBAL_VALUE_FLAGS } from '../../src/commands/index.js';
import { alwaysDeclined, fansOut, silenceLimitMs, VALUE_FLAGS } from '../../src/first-stage.js';
import { HEARTBEAT_MS } from '../../src/core/session/protocol.js';

const TERMINAL = { stdin: true, stdout: true, stderr: true, columns: 80 };
const PIPED = { stdin: false, stdout: false, stderr: false };

describe('what the session agent runs (src/agent/run-policy.ts)', () => {
  it('declines help, the version, no command words, and serve, login, session and completion', async () => {
    for (const argv of [[], ['--help'], ['ls', '-h'], ['--version'], ['-V'], ['help', 'ls'], ['serve'], ['login', '--url', 'wss://x'], ['session', 'list'], ['completion', 'bash'], ['--json', 'serve']]) {
      expect({ argv, d: await decideRun(argv, PIPED) }).toEqual({ argv, d: { declined: expect.any(String) } });
    }
  });

  it('declines, at a terminal only, a verb that may ask (a confirmation, a --targets change) unless --yes answers it', async () => {
    expect(await decideRun(['user', 'delete', 'bob'], TERMINAL)).toEqual({ declined: expect.stringContaining('ask') });
    expect(await decideRun(['user', 'delete', 'bob'], PIPED)).toEqual({ changes: true });
    expect(await decideRun(['user', 'delete', 'bob', '--yes'], TERMINAL)).toEqual({ changes: true });
    expect(await decideRun(['--targets', 'all', 'mkdir', '/mnt/tank/x'], TERMINAL)).toEqual({ declined: expect.any(String) });
    expect(await decideRun(['mkdir', '/mnt/tank/x'], TERMINAL)).toEqual({ changes: true });
    // A read fanned out asks nothing.
    expect(await decideRun(['--targets', 'all', 'privilege', 'check'], TERMINAL)).toEqual({ changes: false });
  });

  it('says whether the command may change anything: the verb’s effect, a dry run reading only', async () => {
    expect(await decideRun(['whoami'], PIPED)).toEqual({ changes: false });
    expect(await decideRun(['--url', 'wss://nas', 'ls', '/mnt'], PIPED)).toEqual({ changes: false });
    expect(await decideRun(['upload', 'a', '/mnt/tank/'], PIPED)).toEqual({ changes: true });
    expect(await decideRun(['privilege', 'fix', '--all', '--dry-run'], TERMINAL)).toEqual({ declined: expect.any(String) });
    expect(await decideRun(['privilege', 'fix', '--all', '--dry-run'], PIPED)).toEqual({ changes: false });
    // `call` changes, unless its method only reads (the rule of `call --targets`).
    expect(await decideRun(['call', 'group.create', '{"name":"ops"}'], PIPED)).toEqual({ changes: true });
    expect(await decideRun(['call', 'no.such_method'], PIPED)).toEqual({ changes: true });
    expect(await decideRun(['call', 'core.ping'], PIPED)).toEqual({ changes: false });
    expect(await decideRun(['--json', 'call', 'user.query', '[]'], PIPED)).toEqual({ changes: false });
    // Unknown words are the CLI's usage error, wherever it is printed.
    expect(await decideRun(['frobnicate'], PIPED)).toEqual({ changes: false });
  });
});

describe("the first stage's own reading of the command line (src/first-stage.ts)", () => {
  it('knows the same global options with values as the CLI', () => {
    expect([...VALUE_FLAGS].sort()).toEqual([...GLOBAL_VALUE_FLAGS].filter((f) => f.startsWith('--')).sort());
  });

  it('does not ask the agent for help, the version, no command words or a command it always declines', () => {
    for (const argv of [[], ['--version'], ['--url', 'x', 'serve'], ['help'], ['ls', '--help'], ['--json', 'login'], ['completion', 'zsh']]) expect({ argv, d: alwaysDeclined(argv) }).toEqual({ argv, d: true });
    for (const argv of [['whoami'], ['--url', 'serve', 'whoami'], ['ls', '--', '--help'], ['--timeout', '5', 'stat', '/mnt']]) expect({ argv, d: alwaysDeclined(argv) }).toEqual({ argv, d: false });
  });

  it('tells a --targets run (which waits for the agent it starts) from others', () => {
    for (const argv of [['--targets', 'nas[1-3]', 'privilege', 'check'], ['privilege', 'check', '--targets=all'], ['--json', 'ls', '/mnt', '--targets', '@prod']]) expect({ argv, d: fansOut(argv) }).toEqual({ argv, d: true });
    for (const argv of [['whoami'], ['--url', '--targets', 'whoami'], ['ls', '--', '--targets'], ['--profile', 'nas1', 'privilege', 'check']]) expect({ argv, d: fansOut(argv) }).toEqual({ argv, d: false });
  });

  it('gives a silent agent a few beats, never more than the command’s --timeout (at least two beats)', () => {
    expect(silenceLimitMs(['whoami'])).toBe(5 * HEARTBEAT_MS);
    expect(silenceLimitMs(['--timeout', '3', 'whoami'])).toBe(3000);
    expect(silenceLimitMs(['--timeout=1', 'whoami'])).toBe(2 * HEARTBEAT_MS);
    expect(silenceLimitMs(['whoami', '--timeout', '600'])).toBe(5 * HEARTBEAT_MS);
  });
});
