import { describe, expect, it } from 'vitest';
import { parseOwner } from '../../../src/commands/fs/chown.js';
import { chmodMode } from '../../../src/commands/fs/chmod.js';

describe('chown USER[:GROUP] as filesystem.chown fields', () => {
  it('sends names as user/group for the appliance to resolve, and numbers as ids', () => {
    expect(parseOwner('alice')).toEqual({ user: 'alice' });
    expect(parseOwner('alice:staff')).toEqual({ user: 'alice', group: 'staff' });
    expect(parseOwner(':staff')).toEqual({ group: 'staff' });
    expect(parseOwner('3000:3001')).toEqual({ uid: 3000, gid: 3001 });
    expect(parseOwner('alice:0')).toEqual({ user: 'alice', gid: 0 });
  });

  it('refuses an empty owner, a trailing colon and more than one colon', () => {
    for (const bad of ['', ':', 'alice:', 'a:b:c'])
      expect(() => parseOwner(bad), bad).toThrow(/USER, USER:GROUP or :GROUP/);
  });
});

describe('chmod MODE as the octal string filesystem.setperm takes (MW/api/base/types/filesystem.py UnixPerm)', () => {
  it('reads three or four digits as octal, as chmod(1) does, with or without a 0 or 0o', () => {
    expect(chmodMode('750')).toBe('750');
    expect(chmodMode('400')).toBe('400');
    expect(chmodMode('644')).toBe('644');
    expect(chmodMode('4755')).toBe('4755');
    expect(chmodMode('0750')).toBe('750');
    expect(chmodMode('0o640')).toBe('640');
    expect(chmodMode('7')).toBe('7');
  });

  it('refuses what stays ambiguous: two bare digits, and numbers with an 8 or 9; and what is no mode', () => {
    expect(() => chmodMode('77')).toThrow(
      'MODE 77 is ambiguous: chmod(1) reads it as octal 0077; as decimal it is 0115',
    );
    expect(() => chmodMode('488')).toThrow('MODE 488 is ambiguous: it is not octal');
    expect(() => chmodMode('8')).toThrow('MODE 8 is ambiguous: it is not octal');
    expect(() => chmodMode('17777')).toThrow('MODE takes permission bits');
    expect(() => chmodMode('u+x')).toThrow('MODE takes permission bits');
  });
});
