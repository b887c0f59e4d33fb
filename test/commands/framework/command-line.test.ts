import { describe, expect, it } from 'vitest';
import { readCommandLine } from '../../../src/commands/framework/command-line.js';
import { kebab } from '../../../src/commands/framework/declare.js';
import { globalOptions } from '../../../src/commands/framework/global-options.js';
import { HEARTBEAT_MS } from '../../../src/core/session/protocol.js';
import { alwaysDeclined, silenceLimitMs } from '../../../src/first-stage.js';

describe('the one reading of the command line before commander (src/commands/framework/command-line.ts)', () => {
  it('finds the command words around global options and their values, before or after the words', () => {
    const line = readCommandLine([
      '--url',
      'wss://nas',
      'privilege',
      '--timeout=5',
      'fix',
      'ops',
      '-q',
      '--no-session',
      '--yes',
    ]);
    expect(line).toMatchObject({
      top: 'privilege',
      verb: 'fix',
      words: ['privilege', 'fix', 'ops'],
      asksHelp: false,
      asksVersion: false,
      endOfOptions: false,
    });
    expect(line.globals).toEqual({ url: 'wss://nas', timeout: '5', quiet: true, session: false });
    expect(line.options).toEqual(['--url', '--timeout=5', '-q', '--no-session', '--yes']);
  });

  it('reads global flags written together (`-qv`) as each flag, as commander does, and not as an unknown option', () => {
    const line = readCommandLine(['-qv', 'whoami', '-q']);
    expect(line.globals).toEqual({ quiet: true, verbose: true });
    expect([...line.repeated]).toEqual(['quiet']);
    expect(line.others).toEqual([]);
    expect(line.commandWords).toBe(1);
    // A letter that is not a global flag makes the whole word the verb's or unknown.
    expect(readCommandLine(['-qx', 'whoami'])).toMatchObject({ globals: {}, others: ['-qx'], commandWords: 0 });
  });

  it('takes the value of every global option that has one from the next word, whatever it is, as commander does', () => {
    for (const [key, spec] of Object.entries(globalOptions)) {
      if (spec.type !== 'value') continue;
      const line = readCommandLine([`--${kebab(key)}`, 'serve', 'whoami']);
      expect({ key, top: line.top, value: line.globals[key as keyof typeof globalOptions] }).toEqual({
        key,
        top: 'whoami',
        value: 'serve',
      });
    }
  });

  it('stops at `--`, keeps the last of a repeated option and says it was repeated', () => {
    const line = readCommandLine(['ls', '--profile', 'a', '--profile', 'b', '--', '--help', '--targets', 'all']);
    expect(line).toMatchObject({
      top: 'ls',
      words: ['ls'],
      globals: { profile: 'b' },
      asksHelp: false,
      endOfOptions: true,
    });
    expect([...line.repeated]).toEqual(['profile']);
  });

  it('reads `stor help <topic>` as help on the topic, and -h/--help/-V anywhere before `--`', () => {
    expect(readCommandLine(['help', 'privilege', 'fix'])).toMatchObject({
      helpTopic: ['privilege', 'fix'],
      asksHelp: true,
    });
    expect(readCommandLine(['help', 'privilege', 'fix']).top).toBeUndefined();
    expect(readCommandLine(['ls', '-h']).asksHelp).toBe(true);
    expect(readCommandLine(['--json', '-V']).asksVersion).toBe(true);
  });
});

describe("the first stage's decisions on it (src/first-stage.ts)", () => {
  const declined = (argv: string[]) => alwaysDeclined(readCommandLine(argv));

  it('does not ask the agent for help, the version, no command words or a command it always declines', () => {
    for (const argv of [
      [],
      ['--version'],
      ['--url', 'x', 'serve'],
      ['help'],
      ['ls', '--help'],
      ['--json', 'login'],
      ['completion', 'zsh'],
    ])
      expect({ argv, d: declined(argv) }).toEqual({ argv, d: true });
    for (const argv of [
      ['whoami'],
      ['--url', 'serve', 'whoami'],
      ['ls', '--', '--help'],
      ['--timeout', '5', 'stat', '/mnt'],
    ])
      expect({ argv, d: declined(argv) }).toEqual({ argv, d: false });
  });

  it('tells a --targets run (which waits for the agent it starts) from others', () => {
    const fansOut = (argv: string[]) => readCommandLine(argv).globals.targets !== undefined;
    for (const argv of [
      ['--targets', 'nas[1-3]', 'privilege', 'check'],
      ['privilege', 'check', '--targets=all'],
      ['--json', 'ls', '/mnt', '--targets', '@prod'],
    ])
      expect({ argv, d: fansOut(argv) }).toEqual({ argv, d: true });
    for (const argv of [
      ['whoami'],
      ['--url', '--targets', 'whoami'],
      ['ls', '--', '--targets'],
      ['--profile', 'nas1', 'privilege', 'check'],
    ])
      expect({ argv, d: fansOut(argv) }).toEqual({ argv, d: false });
  });

  it('gives a silent agent a few beats, never more than the command’s --timeout (at least two beats)', () => {
    const limit = (argv: string[]) => silenceLimitMs(readCommandLine(argv));
    expect(limit(['whoami'])).toBe(5 * HEARTBEAT_MS);
    expect(limit(['--timeout', '3', 'whoami'])).toBe(3000);
    expect(limit(['--timeout=1', 'whoami'])).toBe(2 * HEARTBEAT_MS);
    expect(limit(['whoami', '--timeout', '600'])).toBe(5 * HEARTBEAT_MS);
  });
});
