import { describe, expect, it } from 'vitest';
import { parseOwner } from '../../src/commands/fs/chown.js';
import { chmodMode } from '../../src/commands/fs/chmod.js';

describe('chown USER[:GROUP] as filesystem.chown fields', () => {
  it('sends names as user/group for the appliance to resolve, and numbers as ids', () => {
    expect(parseOwner('alice')).toEqual({ user: 'alice' });
    expect(parseOwner('alice:staff')).toEqual({ user: 'alice', group: 'staff' });
    expect(parseOwner(':staff')).toEqual({ group: 'staff' });
    expect(parseOwner('3000:3001')).toEqual({ uid: 3000, gid: 3001 });
    expect(parseOwner('alice:0')).toEqual({ user: 'alice', gid: 0 });
  });

  it('refuses an empty owner, a trailing colon and more than one colon', () => {
    for (const bad of ['', ':', 'alice:', 'a:b:c']) expect(() => parseOwner(bad), bad).toThrow(/USER, USER:GROUP or :GROUP/);
  });
});

describe('chmod MODE as the octal string filesystem.setperm takes (MW/api/base/types/filesystem.py UnixPerm)', () => {
  it('takes octal with a 0 or 0o, and decimal that cannot be mistaken for octal', () => {
    expect(chmodMode('0750')).toBe('750');
    expect(chmodMode('0o640')).toBe('640');
    expect(chmodMode('488')).toBe('750');
    expect(chmodMode('8')).toBe('10');
  });

  it('refuses three octal digits that are also a mode in decimal, and decimal above 511', () => {
    expect(() => chmodMode('400')).toThrow('MODE 400 is ambiguous');
    expect(() => chmodMode('511')).toThrow('ambiguous');
    expect(() => chmodMode('755')).toThrow('MODE 755 in decimal is more than 511');
    expect(() => chmodMode('u+x')).toThrow('MODE takes permission bits');
  });
});
