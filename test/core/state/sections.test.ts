/**
 * Where a kind sits in the desired-state file and how its objects are told apart, read from the
 * schema (src/core/state/sections.ts): a section may sit inside an object of sections
 * (`shares.nfs`) and match its objects by another field than `name`, case ignored or not.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { StorError } from '../../../src/core/errors.js';
import { parseStateFile, partOf, STATE_SECTIONS } from '../../../src/core/state/index.js';
import {
  Identities,
  identityValue,
  objectsAt,
  partsOf,
  section,
  setObjectsAt,
} from '../../../src/core/state/sections.js';

const byName = z.strictObject({ name: z.string() });
const byPath = z.strictObject({ path: z.string() });
const byFoldedName = z.strictObject({ name: z.string() });
const nested = z.strictObject({
  version: z.literal(1),
  groups: section(byName),
  shares: z
    .strictObject({ nfs: section(byPath, { fields: ['path'] }), smb: section(byFoldedName, { fold: true }) })
    .optional(),
});

describe('desired-state sections', () => {
  it('lists the sections in the schema order, a nested one by its dotted place, each with how its objects are matched', () => {
    expect(partsOf(nested).map((p) => [p.place, p.identity])).toEqual([
      ['groups', { fields: ['name'], fold: false }],
      ['shares.nfs', { fields: ['path'], fold: false }],
      ['shares.smb', { fields: ['name'], fold: true }],
    ]);
    expect(partsOf(nested)[1]!.element).toBe(byPath);
  });

  it('reads and writes a nested section at its place, making the objects on the way, and leaves its neighbours alone', () => {
    const file: Record<string, unknown> = { version: 1 };
    expect(objectsAt(file, 'shares.nfs')).toBeUndefined();
    setObjectsAt(file, 'shares.nfs', [{ path: '/mnt/tank/a' }]);
    setObjectsAt(file, 'shares.smb', []);
    setObjectsAt(file, 'groups', [{ name: 'ops' }]);
    expect(file).toEqual({
      version: 1,
      shares: { nfs: [{ path: '/mnt/tank/a' }], smb: [] },
      groups: [{ name: 'ops' }],
    });
    expect(objectsAt(file, 'shares.nfs')).toEqual([{ path: '/mnt/tank/a' }]);
    expect(objectsAt({ shares: 3 }, 'shares.nfs')).toBeUndefined();
    // What the schema parses back is what was written.
    expect(nested.parse(file)).toEqual(file);
  });

  it('a set of identities compares as its section does: exactly, or with case ignored', () => {
    const exact = new Identities({ fields: ['path'], fold: false }, ['/mnt/tank/A']);
    expect(exact.has('/mnt/tank/A')).toBe(true);
    expect(exact.has('/mnt/tank/a')).toBe(false);
    const folded = new Identities({ fields: ['name'], fold: true }, ['Docs']);
    expect(folded.has('docs')).toBe(true);
    expect(folded.has('DOCS')).toBe(true);
    expect(folded.has('doc')).toBe(false);
  });

  it('matches by several fields together, joined by @ into the one identity a plan names, and refuses an object named twice by them', () => {
    const pair = { fields: ['dataset', 'naming_schema'], fold: false };
    expect(identityValue(pair, { dataset: 'tank/a', naming_schema: 'auto-%Y-%m-%d_%H-%M' })).toBe(
      'tank/a@auto-%Y-%m-%d_%H-%M',
    );
    expect(partOf('snapshot_tasks').identity).toEqual(pair);
    const task = (ds: string, schema: string) => `  - {dataset: ${ds}, naming_schema: "${schema}"}\n`;
    const text = (...tasks: string[]) => `stor_state: 1\nsnapshot_tasks:\n${tasks.join('')}`;
    expect(() =>
      parseStateFile(text(task('tank/a', 'a-%Y%m%d%H%M'), task('tank/a', 'b-%Y%m%d%H%M')), 's.yaml'),
    ).not.toThrow();
    expect(() =>
      parseStateFile(text(task('tank/a', 'a-%Y%m%d%H%M'), task('tank/a', 'a-%Y%m%d%H%M')), 's.yaml'),
    ).toThrow('s.yaml: snapshot_tasks[1].dataset+naming_schema: "tank/a@a-%Y%m%d%H%M" is named twice');
  });

  it("the file's own sections are read from its schema, the accounts' and datasets' matched by name", () => {
    expect(STATE_SECTIONS).toEqual(expect.arrayContaining(['groups', 'users', 'privileges', 'api_keys', 'datasets']));
    for (const kind of ['groups', 'users', 'privileges', 'api_keys', 'datasets'] as const)
      expect(partOf(kind).identity).toEqual({ fields: ['name'], fold: false });
  });

  it('refuses an object named twice by its identity field, with the path', () => {
    const refusal = (text: string) => {
      try {
        parseStateFile(text, 'state.yaml');
      } catch (err) {
        expect((err as StorError).code).toBe('BAD_STATE_FILE');
        return (err as Error).message;
      }
      return 'accepted';
    };
    expect(refusal('stor_state: 1\nprivileges:\n  - {name: a}\n  - {name: b}\n  - {name: a}\n')).toBe(
      'state.yaml: privileges[2].name: "a" is named twice',
    );
    expect(refusal('stor_state: 1\nprivileges:\n  - {name: a}\n  - {name: A}\n')).toBe('accepted');
  });
});
