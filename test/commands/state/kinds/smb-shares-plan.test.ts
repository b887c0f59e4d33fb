/**
 * SMB shares in desired state (src/commands/state/kinds/smb-shares.ts): matched by name with case
 * ignored (MW/plugins/smb.py:1253-1254), only the fields the file sets compared (a purpose's
 * options never), `--prune` only what stor marked, export writes what differs from a fresh share.
 * Plain data: 25.10.1's sharing.smb.query entries (MW/api/v25_10_1/smb.py:598-702).
 */
import { describe, expect, it } from 'vitest';
import type { World } from '../../../../src/commands/state/kinds/kind.js';
import { smbShares } from '../../../../src/commands/state/kinds/smb-shares.js';
import type { SmbShareEntry } from '../../../../src/core/contract/sharing-smb.js';
import { Identities, parseStateFile } from '../../../../src/core/state/index.js';
import { smbShare, world } from '../../../helpers/state-world.js';

const share = smbShare;

const withShares = (shares: SmbShareEntry[], made: [string, number][] = []): World =>
  world({ objects: { 'shares.smb': shares }, made: { smb_share: made } });

const plan = (want: Parameters<typeof smbShares.plan>[0], w: World) =>
  smbShares.plan(want, w, { normalize: false, note: () => {}, overlap: () => {} });

describe('smb shares plan', () => {
  const w = withShares([
    share(1, 'Docs', '/mnt/tank/docs', {
      purpose: 'TIMEMACHINE_SHARE',
      readonly: true,
      // What the purpose set: never compared.
      options: { timemachine_quota: 0, auto_snapshot: false, vuid: '7f0c…', hostsallow: [], hostsdeny: [] },
    }),
  ]);

  it('creates a share it lacks with the fields the file sets', () => {
    expect(plan({ name: 'media', path: '/mnt/tank/media', browsable: false }, w)?.change).toEqual({
      kind: 'shares.smb',
      name: 'media',
      action: 'create',
      changes: [
        { field: 'path', from: null, to: '/mnt/tank/media' },
        { field: 'browsable', from: null, to: false },
      ],
    });
  });

  it('matches a name in any case, and compares only what the file sets', () => {
    expect(plan({ name: 'docs', path: '/mnt/tank/docs' }, w)).toBeNull();
    expect(plan({ name: 'DOCS', path: '/mnt/tank/docs', purpose: 'TIMEMACHINE_SHARE', readonly: true }, w)).toBeNull();
    expect(plan({ name: 'docs', path: '/mnt/tank/docs', readonly: false, comment: 'x' }, w)?.change).toEqual({
      kind: 'shares.smb',
      name: 'docs',
      action: 'update',
      changes: [
        { field: 'comment', from: '', to: 'x' },
        { field: 'readonly', from: true, to: false },
      ],
    });
  });

  it('--prune deletes only a share stor made that the file does not name, in any case', () => {
    const w2 = withShares(
      [share(1, 'Docs', '/mnt/tank/docs'), share(2, 'old', '/mnt/tank/old'), share(3, 'hand', '/mnt/tank/hand')],
      [
        ['Docs', 1],
        ['old', 2],
      ],
    );
    const named = new Identities({ fields: ['name'], fold: true }, ['DOCS']);
    expect(smbShares.prune(w2, named, [], () => {})).toEqual(['old']);
  });

  it('exports each share by name and path with what differs from a fresh share, and the export plans no change', () => {
    const exported = smbShares.export(w);
    expect(exported).toEqual([{ name: 'Docs', path: '/mnt/tank/docs', purpose: 'TIMEMACHINE_SHARE', readonly: true }]);
    for (const want of exported) expect(plan(want, w)).toBeNull();
  });

  it('the file holds them under shares.smb; a name given twice in any case, or an unknown key, is refused by path', () => {
    const refusal = (text: string) => {
      try {
        parseStateFile(text, 'f');
      } catch (err) {
        return (err as Error).message;
      }
      return 'accepted';
    };
    expect(refusal('stor_state: 1\nshares:\n  smb:\n    - {name: docs, path: /mnt/tank/docs}\n')).toBe('accepted');
    expect(
      refusal('stor_state: 1\nshares:\n  smb:\n    - {name: docs, path: /mnt/a}\n    - {name: Docs, path: /mnt/b}\n'),
    ).toBe('f: shares.smb[1].name: "Docs" is named twice');
    expect(refusal('stor_state: 1\nshares:\n  smb:\n    - {name: docs, path: /mnt/a, ro: true}\n')).toContain(
      'shares.smb[0].ro: unknown key',
    );
  });
});
