/**
 * NFS shares in desired state (src/commands/state/kinds/nfs-shares.ts): matched by path, only the
 * fields the file sets compared (lists as sets, networks as the appliance stores them), a create
 * when none exports the path; `--prune` only what stor marked; export writes what differs from a
 * fresh share. Plain data: 25.10.1's sharing.nfs.query entries (MW/api/v25_10_1/nfs.py:126-213).
 */
import { describe, expect, it } from 'vitest';
import type { World } from '../../../../src/commands/state/kinds/kind.js';
import { nfsShares } from '../../../../src/commands/state/kinds/nfs-shares.js';
import { parseStateFile } from '../../../../src/core/state/index.js';
import { nfsShare, world } from '../../../helpers/state-world.js';

const share = nfsShare;

const withShares = (shares: ReturnType<typeof nfsShare>[], made: [string, number][] = []): World =>
  world({ objects: { 'shares.nfs': shares }, made: { nfs_share: made } });

const plan = (want: Parameters<typeof nfsShares.plan>[0], w: World) => {
  const notes: string[] = [];
  const step = nfsShares.plan(want, w, { normalize: false, note: (n) => notes.push(n), overlap: () => {} });
  return { step, notes };
};

describe('nfs shares plan', () => {
  const w = withShares([
    share(1, '/mnt/tank/a', { networks: ['10.0.0.0/8', '192.168.1.0/24'], comment: 'lab', ro: true }),
  ]);

  it('creates a share for a path none exports, with the fields the file sets', () => {
    expect(plan({ path: '/mnt/tank/b', networks: ['10.1.2.3/8'], ro: true }, w).step).toEqual({
      change: {
        kind: 'shares.nfs',
        name: '/mnt/tank/b',
        action: 'create',
        changes: [
          { field: 'networks', from: null, to: ['10.0.0.0/8'] },
          { field: 'ro', from: null, to: true },
        ],
      },
      want: { path: '/mnt/tank/b', networks: ['10.1.2.3/8'], ro: true },
    });
  });

  it('compares only what the file sets; lists in any order; networks as the appliance stores them', () => {
    expect(plan({ path: '/mnt/tank/a' }, w).step).toBeNull();
    expect(plan({ path: '/mnt/tank/a', networks: ['192.168.1.7/24', '10.0.0.0/8'], ro: true }, w).step).toBeNull();
    expect(plan({ path: '/mnt/tank/a', networks: ['10.0.0.0/8'], comment: 'lab' }, w).step?.change).toEqual({
      kind: 'shares.nfs',
      name: '/mnt/tank/a',
      action: 'update',
      changes: [{ field: 'networks', from: ['10.0.0.0/8', '192.168.1.0/24'], to: ['10.0.0.0/8'] }],
    });
    expect(
      plan({ path: '/mnt/tank/a', enabled: false, maproot_user: 'root', security: ['SYS'] }, w).step?.change.changes,
    ).toEqual([
      { field: 'maproot_user', from: null, to: 'root' },
      { field: 'security', from: [], to: ['SYS'] },
      { field: 'enabled', from: true, to: false },
    ]);
  });

  it('leaves a path several shares export as it is, and says so', () => {
    const two = withShares([share(1, '/mnt/tank/a'), share(2, '/mnt/tank/a', { hosts: ['h'] })]);
    const r = plan({ path: '/mnt/tank/a', ro: true }, two);
    expect(r.step).toBeNull();
    expect(r.notes).toEqual(['nfs share /mnt/tank/a: 2 shares export this path (ids 1, 2); left as they are']);
  });

  it('--prune deletes only a share stor made (its mark names its path and id) that the file does not name', () => {
    const w2 = withShares(
      [share(1, '/mnt/tank/a'), share(2, '/mnt/tank/b'), share(3, '/mnt/tank/hand'), share(9, '/mnt/tank/again')],
      [
        ['/mnt/tank/a', 1],
        ['/mnt/tank/b', 2],
        // Made by stor as share 4, deleted by hand and made again by hand: someone else's now.
        ['/mnt/tank/again', 4],
      ],
    );
    expect(nfsShares.prune(w2, new Set(['/mnt/tank/a']), [], () => {})).toEqual(['/mnt/tank/b']);
  });

  it('exports each share by path with what differs from a fresh share, and the export plans no change', () => {
    const w2 = withShares([
      share(1, '/mnt/tank/a'),
      share(2, '/mnt/tank/b', { networks: ['10.0.0.0/8'], maproot_user: 'root', enabled: false }),
    ]);
    const exported = nfsShares.export(w2);
    expect(exported).toEqual([
      { path: '/mnt/tank/a' },
      { path: '/mnt/tank/b', networks: ['10.0.0.0/8'], maproot_user: 'root', enabled: false },
    ]);
    for (const want of exported) expect(plan(want, w2).step).toBeNull();
    // A file names a path once: of a path two shares export, the first.
    expect(nfsShares.export(withShares([share(1, '/mnt/tank/a'), share(2, '/mnt/tank/a', { ro: true })]))).toEqual([
      { path: '/mnt/tank/a' },
    ]);
  });

  it('the file holds them under shares.nfs, refusing an unknown key and a path named twice by their paths', () => {
    const refusal = (text: string) => {
      try {
        parseStateFile(text, 'f');
      } catch (err) {
        return (err as Error).message;
      }
      return 'accepted';
    };
    expect(refusal('stor_state: 1\nshares:\n  nfs:\n    - {path: /mnt/tank/a, ro: true}\n')).toBe('accepted');
    expect(refusal('stor_state: 1\nshares:\n  nfs:\n    - {path: /mnt/tank/a, readonly: true}\n')).toContain(
      'shares.nfs[0].readonly: unknown key',
    );
    expect(refusal('stor_state: 1\nshares:\n  nfs:\n    - {path: /mnt/tank/a}\n    - {path: /mnt/tank/a}\n')).toBe(
      'f: shares.nfs[1].path: "/mnt/tank/a" is named twice',
    );
    expect(refusal('stor_state: 1\nshares:\n  afp: []\n')).toContain('shares.afp: unknown key');
  });
});
