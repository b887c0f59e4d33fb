/**
 * `stor share delete REF`, in-process on the embedded appliance: nothing goes before consent,
 * --dry-run names what would go, --ignore-not-found as every delete takes it.
 */
import { describe, expect, it } from 'vitest';
import { errorOf, shareTarget } from '../../helpers/share-cli.js';

describe('stor share delete', () => {
  it('off a terminal without --yes it refuses (exit 2) and the share stays; --dry-run deletes nothing; --yes deletes it, not its files', async () => {
    const { run, json, shares } = await shareTarget();
    await run(['share', 'smb', 'create', 'docs', '/mnt/tank/docs']);
    const refused = await run(['share', 'delete', 'docs', '--json']);
    expect(refused.code).toBe(2);
    expect(errorOf(refused)).toMatchObject({
      code: 'CONFIRMATION_REQUIRED',
      hint: 'add --yes to confirm; first, preview with `stor share delete smb:1 --dry-run`',
    });
    expect((await shares()).length).toBe(1);
    expect(await json(['share', 'delete', 'docs', '--dry-run'])).toEqual({
      ref: 'smb:1',
      kind: 'smb',
      name: 'docs',
      path: '/mnt/tank/docs',
      dry_run: true,
      deleted: false,
    });
    expect((await shares()).length).toBe(1);
    expect(await json(['share', 'delete', 'docs', '--yes'])).toMatchObject({ ref: 'smb:1', deleted: true });
    expect(await shares()).toEqual([]);
    expect((await run(['stat', '/mnt/tank/docs'])).code).toBe(0);
  });

  it('a share that is not there: NOT_FOUND (exit 1), or with --ignore-not-found exit 0 saying there was nothing to delete', async () => {
    const { run, json } = await shareTarget();
    const missing = await run(['share', 'delete', 'nfs:4', '--yes', '--json']);
    expect(missing.code).toBe(1);
    expect(errorOf(missing).code).toBe('NOT_FOUND');
    expect(await json(['share', 'delete', 'nfs:4', '--yes', '--ignore-not-found'])).toMatchObject({
      name: 'nfs:4',
      found: false,
      deleted: false,
    });
  });
});
