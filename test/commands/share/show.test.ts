/**
 * `stor share show REF`, in-process on the embedded appliance: nfs:ID and smb:ID, an SMB share by
 * its name in any case, an NFS share by its path; an ambiguous REF names the candidates, a missing
 * one is NOT_FOUND.
 */
import { describe, expect, it } from 'vitest';
import { errorOf, shareTarget } from '../../helpers/share-cli.js';

describe('stor share show', () => {
  it('finds a share by kind:id, an SMB share by its name in any case, and an NFS share by its path', async () => {
    const { run, json } = await shareTarget();
    await run(['share', 'nfs', 'create', '/mnt/tank/exports']);
    await run(['share', 'smb', 'create', 'Docs', '/mnt/tank/docs']);
    expect(await json(['share', 'show', 'nfs:1'])).toMatchObject({ kind: 'nfs', id: 1, path: '/mnt/tank/exports' });
    expect(await json(['share', 'show', '/mnt/tank/exports'])).toMatchObject({ kind: 'nfs', id: 1 });
    expect(await json(['share', 'show', 'smb:1'])).toMatchObject({ kind: 'smb', name: 'Docs' });
    expect(await json(['share', 'show', 'docs'])).toMatchObject({ kind: 'smb', id: 1, path: '/mnt/tank/docs' });
    const shown = await run(['share', 'show', 'DOCS']);
    expect(shown.stdout).toContain('ref\tsmb:1\n');
  });

  it('a path several NFS shares export is AMBIGUOUS_NAME naming each (exit 2); a REF naming none is NOT_FOUND (exit 1)', async () => {
    const { run } = await shareTarget();
    // NFS shares of one path are many when each exports it to other networks (MW/plugins/nfs.py:901-951).
    await run(['share', 'nfs', 'create', '/mnt/tank/exports', '--networks', '10.0.0.0/24']);
    await run(['share', 'nfs', 'create', '/mnt/tank/exports', '--networks', '10.0.1.0/24']);
    const ambiguous = await run(['share', 'show', '/mnt/tank/exports', '--json']);
    expect(ambiguous.code).toBe(2);
    expect(errorOf(ambiguous)).toMatchObject({
      code: 'AMBIGUOUS_NAME',
      message: '"/mnt/tank/exports" names 2 shares: nfs:1 (/mnt/tank/exports), nfs:2 (/mnt/tank/exports)',
      hint: 'name the one you mean: stor share show nfs:1',
    });
    const missing = await run(['share', 'show', 'nothing', '--json']);
    expect(missing.code).toBe(1);
    expect(errorOf(missing)).toMatchObject({ code: 'NOT_FOUND', message: 'no share "nothing"' });
    expect(errorOf(await run(['share', 'show', 'smb:9', '--json'])).code).toBe('NOT_FOUND');
  });
});
