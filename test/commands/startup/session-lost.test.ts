import { describe, expect, it } from 'vitest';
import { readCommandLine } from '../../../src/commands/framework/command-line.js';
import { sessionLostError } from '../../../src/commands/startup/session-lost.js';

describe('the error of a command whose session agent ended', () => {
  it('names a verb under a sub-noun by all its words, and the noun listing that shows what it did', () => {
    const lost = sessionLostError(
      readCommandLine(['share', 'nfs', 'create', '/mnt/tank/x', '--networks', '10.0.0.0/24']),
    );
    expect(lost.message).toBe(
      'the session agent ended while `stor share nfs create` ran: whether it changed anything is unknown',
    );
    expect(lost.hint).toBe('check before running it again: `stor job list`, `stor share list`');
    expect(sessionLostError(readCommandLine(['share', 'update', 'docs', '--ro'])).message).toContain(
      '`stor share update` ran',
    );
  });
});
