import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { StorError } from '../../../src/core/errors.js';
import { parseStateFile, stateJsonSchema } from '../../../src/core/state/index.js';

describe('the desired-state file format', () => {
  it('the shipped schema/stor-state.schema.json is the one generated from the zod schema (node scripts/state-schema.mjs after a build)', () => {
    const shipped = JSON.parse(
      readFileSync(new URL('../../../schema/stor-state.schema.json', import.meta.url), 'utf8'),
    );
    expect(shipped).toEqual(stateJsonSchema());
    expect(JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')).files).toContain(
      'schema',
    );
  });

  it('reads YAML and JSON; every section optional; a privilege fragment is a whole file', () => {
    expect(parseStateFile('stor_state: 1\n', 'f')).toEqual({ stor_state: 1 });
    expect(
      parseStateFile('{"stor_state": 1, "privileges": [{"name": "ops", "roles": ["READONLY_ADMIN"]}]}', 'f').privileges,
    ).toEqual([{ name: 'ops', roles: ['READONLY_ADMIN'] }]);
  });

  it('refuses unknown keys by path, a missing version, a name given twice, and a password', () => {
    const message = (text: string) => {
      try {
        parseStateFile(text, 'state.yaml');
      } catch (err) {
        expect(err).toBeInstanceOf(StorError);
        expect((err as StorError).code).toBe('BAD_STATE_FILE');
        return (err as Error).message;
      }
      throw new Error('accepted');
    };
    expect(message('stor_state: 1\nprivileges:\n  - {name: a}\n  - {name: b}\n  - {name: c, role: [X]}\n')).toContain(
      'privileges[2].role: unknown key',
    );
    expect(message('groups: []\n')).toContain('stor_state');
    expect(message('stor_state: 1\ngroups:\n  - {name: a}\n  - {name: a}\n')).toContain('groups[1].name');
    expect(message('stor_state: 1\nusers:\n  - {name: a, password: x}\n')).toContain('users[0].password: unknown key');
    expect(message('stor_state: 1\nusers: [\n')).toContain('not YAML or JSON');
  });
});
