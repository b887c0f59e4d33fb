import { describe, expect, it } from 'vitest';
import { decideRun as decideLine } from '../../src/agent/run-policy.js';
import { readCommandLine } from '../../src/commands/framework/command-line.js';

/** The decision for `argv`, read as the agent reads a run request's (run-request.ts). */
const decideRun = (argv: readonly string[], tty: Parameters<typeof decideLine>[1]) =>
  decideLine(readCommandLine(argv), tty);

const TERMINAL = { stdin: true, stdout: true, stderr: true, columns: 80 };
const PIPED = { stdin: false, stdout: false, stderr: false };

describe('what the session agent runs (src/agent/run-policy.ts)', () => {
  it('declines help, the version, no command words, and serve, login, session and completion', async () => {
    for (const argv of [
      [],
      ['--help'],
      ['ls', '-h'],
      ['--version'],
      ['-V'],
      ['help', 'ls'],
      ['serve'],
      ['login', '--url', 'wss://x'],
      ['session', 'list'],
      ['completion', 'bash'],
      ['--json', 'serve'],
    ]) {
      expect({ argv, d: await decideRun(argv, PIPED) }).toEqual({ argv, d: { declined: expect.any(String) } });
    }
  });

  it('declines, at a terminal only, a verb that may ask (a confirmation, a --targets change) unless --yes answers it', async () => {
    expect(await decideRun(['user', 'delete', 'bob'], TERMINAL)).toEqual({ declined: expect.stringContaining('ask') });
    expect(await decideRun(['user', 'delete', 'bob'], PIPED)).toEqual({ changes: true });
    expect(await decideRun(['user', 'delete', 'bob', '--yes'], TERMINAL)).toEqual({ changes: true });
    expect(await decideRun(['--targets', 'all', 'mkdir', '/mnt/tank/x'], TERMINAL)).toEqual({
      declined: expect.any(String),
    });
    expect(await decideRun(['mkdir', '/mnt/tank/x'], TERMINAL)).toEqual({ changes: true });
    // A read fanned out asks nothing.
    expect(await decideRun(['--targets', 'all', 'privilege', 'check'], TERMINAL)).toEqual({ changes: false });
  });

  it('says whether the command may change anything: the verb’s effect, a dry run reading only', async () => {
    expect(await decideRun(['whoami'], PIPED)).toEqual({ changes: false });
    expect(await decideRun(['--url', 'wss://nas', 'ls', '/mnt'], PIPED)).toEqual({ changes: false });
    expect(await decideRun(['upload', 'a', '/mnt/tank/'], PIPED)).toEqual({ changes: true });
    expect(await decideRun(['privilege', 'fix', '--all', '--dry-run'], TERMINAL)).toEqual({
      declined: expect.any(String),
    });
    expect(await decideRun(['privilege', 'fix', '--all', '--dry-run'], PIPED)).toEqual({ changes: false });
    // `call` changes, unless its method only reads (the rule of `call --targets`).
    expect(await decideRun(['call', 'group.create', '{"name":"ops"}'], PIPED)).toEqual({ changes: true });
    expect(await decideRun(['call', 'no.such_method'], PIPED)).toEqual({ changes: true });
    expect(await decideRun(['call', 'core.ping'], PIPED)).toEqual({ changes: false });
    expect(await decideRun(['--json', 'call', 'user.query', '[]'], PIPED)).toEqual({ changes: false });
    // A verb under a sub-noun is found by all its words: `share nfs create` changes, unless a dry run.
    expect(await decideRun(['share', 'nfs', 'create', '/mnt/tank/x', '--networks', '10.0.0.0/24'], PIPED)).toEqual({
      changes: true,
    });
    expect(await decideRun(['share', 'smb', 'create', 'docs', '/mnt/tank/x'], TERMINAL)).toEqual({ changes: true });
    expect(await decideRun(['share', 'smb', 'create', 'docs', '/mnt/tank/x', '--dry-run'], PIPED)).toEqual({
      changes: false,
    });
    expect(await decideRun(['--targets', 'all', 'share', 'nfs', 'create', '/mnt/tank/x'], TERMINAL)).toEqual({
      declined: expect.stringContaining('`stor share nfs create` may ask'),
    });
    // Three words deep (`snapshot task delete`): found by all of them, its question declined at a terminal.
    expect(await decideRun(['snapshot', 'task', 'delete', '1'], TERMINAL)).toEqual({
      declined: expect.stringContaining('`stor snapshot task delete` may ask'),
    });
    expect(await decideRun(['snapshot', 'task', 'run', '1'], TERMINAL)).toEqual({ changes: true });
    expect(await decideRun(['snapshot', 'task', 'list'], PIPED)).toEqual({ changes: false });
    // Unknown words are the CLI's usage error, wherever it is printed.
    expect(await decideRun(['frobnicate'], PIPED)).toEqual({ changes: false });
  });
});
