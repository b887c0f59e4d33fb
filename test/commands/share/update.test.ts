/**
 * `stor share update REF`, in-process on the embedded appliance: the changes as `field: old → new`,
 * one update call, verified by a read; nothing to change sends nothing; an option of the other
 * kind is refused; --dry-run fails as the call would.
 */
import { describe, expect, it } from 'vitest';
import { errorOf, shareTarget } from '../../helpers/share-cli.js';
import type { RunResult } from '../../helpers/run-stor.js';

const outcome = (r: RunResult) => ({ code: r.code, stderr: r.stderr });

describe('stor share update', () => {
  it('shows each change as field: old → new, updates, and answers the share as read back', async () => {
    const { run, json } = await shareTarget();
    await run(['share', 'nfs', 'create', '/mnt/tank/exports', '--networks', '10.0.0.0/24']);
    const shown = await run(['share', 'update', '/mnt/tank/exports', '--networks', '10.0.1.0/24', '--ro']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stderr).toBe(
      'stor: nfs:1 (/mnt/tank/exports): networks: 10.0.0.0/24 → 10.0.1.0/24; ro: false → true\n',
    );
    const updated = await json<{ changed: boolean; share: Record<string, unknown> }>([
      'share',
      'update',
      'nfs:1',
      '--comment',
      'moved',
      '--no-ro',
    ]);
    expect(updated).toMatchObject({
      changed: true,
      changes: [
        { field: 'ro', old: true, new: false },
        { field: 'comment', old: '', new: 'moved' },
      ],
      share: { networks: ['10.0.1.0/24'], ro: false, comment: 'moved' },
    });
    expect(await json(['share', 'show', 'nfs:1'])).toMatchObject({ comment: 'moved', ro: false });
  });

  it('values the share already has are no change: it says so, sends nothing, exit 0', async () => {
    const { run } = await shareTarget();
    await run(['share', 'smb', 'create', 'docs', '/mnt/tank/docs', '--ro']);
    const same = await run(['share', 'update', 'docs', '--ro', '--browsable']);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).toBe('stor: smb:1 already has these values; nothing changed\n');
    expect(same.stdout).toContain('changed\tfalse\n');
  });

  it('renames an SMB share and changes its purpose; an NFS option on an SMB share is refused (exit 2) before anything is sent', async () => {
    const { run, json } = await shareTarget();
    await run(['share', 'smb', 'create', 'docs', '/mnt/tank/docs']);
    expect(
      await json(['share', 'update', 'docs', '--name', 'Documents', '--purpose', 'MULTIPROTOCOL_SHARE']),
    ).toMatchObject({ share: { name: 'Documents', purpose: 'MULTIPROTOCOL_SHARE' } });
    const wrong = await run(['share', 'update', 'documents', '--networks', '10.0.0.0/24', '--json']);
    expect(wrong.code).toBe(2);
    expect(errorOf(wrong)).toMatchObject({
      code: 'USAGE',
      message: '--networks is for NFS shares; smb:1 is an SMB share',
    });
  });

  it('--dry-run shows the changes and fails as the call does (a network that does not parse, a name another share has); nothing changes', async () => {
    const { run, json } = await shareTarget();
    await run(['share', 'nfs', 'create', '/mnt/tank/exports']);
    await run(['share', 'smb', 'create', 'docs', '/mnt/tank/docs']);
    await run(['share', 'smb', 'create', 'other', '/mnt/tank/docs']);
    for (const args of [
      ['nfs:1', '--networks', '10.0.0.0/33'],
      ['nfs:1', '--path', '/tmp'],
      ['other', '--name', 'DOCS'],
    ]) {
      const dry = await run(['share', 'update', ...args, '--dry-run']);
      const real = await run(['share', 'update', ...args]);
      expect(outcome(dry)).toEqual(outcome(real));
      expect(real.code).toBe(1);
    }
    const fine = await json(['share', 'update', 'nfs:1', '--ro', '--dry-run']);
    expect(fine).toMatchObject({ dry_run: true, changed: true });
    expect(await json(['share', 'show', 'nfs:1'])).toMatchObject({
      ro: false,
      networks: [],
      path: '/mnt/tank/exports',
    });
    expect(await json(['share', 'show', 'smb:2'])).toMatchObject({ name: 'other' });
  });
});
