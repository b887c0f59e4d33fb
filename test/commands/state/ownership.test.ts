/**
 * stor's ownership marks (src/commands/state/ownership.ts, docs/STATE.md "Ownership"): one ZFS user
 * property per object on the first pool's root, `stor.own:<kind>:<hash>` = `<id> <name>`. Any kind
 * word is read, so a new kind's marks (an NFS share's) need no change there.
 */
import { describe, expect, it } from 'vitest';
import { madeByStor, markKey, markValue, readMarks } from '../../../src/commands/state/ownership.js';

const own = (value: string, source = 'LOCAL') => ({ value, source });

describe('ownership marks', () => {
  it('keeps the keys the first marks were written under (api_key as api-key)', () => {
    expect(markKey('api_key', 'ci')).toMatch(/^stor\.own:api-key:[0-9a-f]{16}$/);
    expect(markKey('group', 'ops')).toMatch(/^stor\.own:group:[0-9a-f]{16}$/);
  });

  it("reads a mark of any kind word (a new kind's too) by name and id, and only its own LOCAL value", () => {
    const marks = readMarks([
      {
        id: 'tank',
        user_properties: {
          [markKey('nfs_share', '/mnt/tank/a')]: own(markValue('/mnt/tank/a', 3)),
          [markKey('smb_share', 'Docs')]: own(markValue('Docs', 4)),
          [markKey('group', 'ops')]: own('ops'),
          // Inherited: not this root's own mark.
          [markKey('user', 'bob')]: own(markValue('bob', 1), 'INHERITED'),
          // A dataset's own mark is no kind mark.
          'stor.own:dataset': own('tank'),
          // A value whose name is not the one hashed in the key is someone else's property.
          [markKey('user', 'alice')]: own(markValue('mallory', 2)),
        },
      },
    ]);
    expect(marks.home).toBe('tank');
    expect(madeByStor(marks, 'nfs_share', '/mnt/tank/a', 3)).toBe(true);
    expect(madeByStor(marks, 'nfs_share', '/mnt/tank/a', 9)).toBe(false);
    expect(madeByStor(marks, 'smb_share', 'Docs', 4)).toBe(true);
    expect(madeByStor(marks, 'group', 'ops', 77)).toBe(true);
    expect(madeByStor(marks, 'user', 'bob', 1)).toBe(false);
    expect(madeByStor(marks, 'user', 'mallory', 2)).toBe(false);
    expect(madeByStor(marks, 'user', 'alice', 2)).toBe(false);
    expect(madeByStor(marks, 'privilege', 'ops', 1)).toBe(false);
    expect([...marks.owned.keys()].sort()).toEqual(['group', 'nfs_share', 'smb_share']);
  });

  it('refuses a kind word a property name could not carry', () => {
    expect(() => markKey('NFS share', 'x')).toThrow('not a kind word');
  });
});
