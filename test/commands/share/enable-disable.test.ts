/**
 * `stor share enable|disable REF`, in-process on the embedded appliance: `enabled` updated and read
 * back; a share already so is said so and nothing is sent; --dry-run changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { shareTarget } from '../../helpers/share-cli.js';

describe('stor share enable and disable', () => {
  it('disable and enable set enabled; each again says so and changes nothing (exit 0)', async () => {
    const { run, json } = await shareTarget();
    await run(['share', 'nfs', 'create', '/mnt/tank/exports']);
    expect(await json(['share', 'disable', '/mnt/tank/exports', '--dry-run'])).toMatchObject({
      dry_run: true,
      changed: true,
    });
    expect(await json(['share', 'show', 'nfs:1'])).toMatchObject({ enabled: true });
    expect(await json(['share', 'disable', '/mnt/tank/exports'])).toMatchObject({
      changed: true,
      changes: [{ field: 'enabled', old: true, new: false }],
      share: { enabled: false },
    });
    const again = await run(['share', 'disable', 'nfs:1']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toBe('stor: nfs:1 (/mnt/tank/exports) is already disabled; nothing changed\n');
    expect(await json(['share', 'enable', 'nfs:1'])).toMatchObject({ changed: true, share: { enabled: true } });
    expect(await json(['share', 'enable', 'nfs:1'])).toMatchObject({ changed: false });
  });
});
