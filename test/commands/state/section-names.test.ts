/**
 * How the driver names a section to the user: `stor export --only` takes a section's place (or the
 * object holding nested sections), and the plan labels an object by its section in the singular
 * (src/commands/state/export.ts, prepare.ts; docs/STATE.md "Sections").
 */
import { describe, expect, it } from 'vitest';
import { sectionsNamed } from '../../../src/commands/state/export.js';
import { objectLabel } from '../../../src/commands/state/prepare.js';

describe('section names', () => {
  it('--only takes a place, with - for _', () => {
    expect(sectionsNamed('groups')).toEqual(['groups']);
    expect(sectionsNamed('api-keys')).toEqual(['api_keys']);
    expect(sectionsNamed('group')).toEqual([]);
    expect(sectionsNamed('')).toEqual([]);
  });

  it('labels an object by its section in the singular, a nested one innermost word first', () => {
    expect(objectLabel({ kind: 'privileges', name: 'ops' })).toBe('privilege ops');
    expect(objectLabel({ kind: 'api_keys', name: 'ci' })).toBe('api key ci');
    expect(objectLabel({ kind: 'shares.nfs', name: '/mnt/tank/a' })).toBe('nfs share /mnt/tank/a');
    expect(objectLabel({ kind: 'shares.smb', name: 'docs' })).toBe('smb share docs');
  });
});
