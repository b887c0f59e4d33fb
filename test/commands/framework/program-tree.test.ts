import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../src/commands/index.js';
import { programFor } from '../../helpers/command-paths.js';

/** The root's commands as `stor …argv` builds them. */
async function rootCommands(...argv: string[]): Promise<string[]> {
  return (await programFor(argv)).commands.map((c) => c.name());
}

describe('the command tree a command line builds', () => {
  it('holds only the command a line names, and help', async () => {
    expect(await rootCommands('whoami', '--json')).toEqual(['whoami', 'help']);
    expect(await rootCommands('--json', 'privilege', 'list')).toEqual(['privilege', 'help']);
    expect(await rootCommands('help', 'user', 'list')).toEqual(['user', 'help']);
    expect(await rootCommands('whoami', '--help')).toEqual(['whoami', 'help']);
    expect(await rootCommands('-qv', 'whoami')).toEqual(['whoami', 'help']);
  });

  it('holds every command when the line names none, or one stor does not know', async () => {
    const every = [...Object.keys(COMMANDS), 'help'];
    expect(await rootCommands()).toEqual(every);
    expect(await rootCommands('--help')).toEqual(every);
    expect(await rootCommands('whoamii')).toEqual(every);
    expect(await rootCommands('help', 'nonsense')).toEqual(every);
    expect(await rootCommands('--', 'whoami')).toEqual(every);
    // Commander names commands only up to the first option it does not know: the root's help.
    expect(await rootCommands('--help', 'whoami')).toEqual(every);
    expect(await rootCommands('--json', '-h', 'privilege', 'fix')).toEqual(every);
  });

  it("gives a named noun every verb when the line names none of them, as the noun's help lists them", async () => {
    for (const argv of [
      ['privilege', 'lst'],
      ['privilege', '--help', 'fix'],
    ]) {
      const program = await programFor(argv);
      const privilege = program.commands.find((c) => c.name() === 'privilege')!;
      expect(privilege.commands.map((c) => c.name()).sort()).toEqual(
        Object.keys((COMMANDS.privilege as { noun: { verbs: object } }).noun.verbs).sort(),
      );
    }
  });
});
