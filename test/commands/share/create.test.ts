/**
 * `stor share nfs create` and `smb create`, in-process on the embedded appliance: what is sent,
 * --exist-ok (already there as asked: exit 0, nothing sent; there otherwise: EXISTS_DIFFERENTLY),
 * and --dry-run, which fails as the call would and sends nothing.
 */
import { describe, expect, it } from 'vitest';
import { createUserWithKey, openTestAppliance } from '../../helpers/appliance.js';
import { errorOf, shareTarget } from '../../helpers/share-cli.js';
import type { RunResult } from '../../helpers/run-stor.js';

const outcome = (r: RunResult) => ({ code: r.code, stderr: r.stderr });

describe('stor share nfs create', () => {
  it('creates the share with the settings given; networks come back as the appliance stores them', async () => {
    const { json } = await shareTarget();
    const made = await json<{ ref: string; changed: boolean; share: Record<string, unknown> }>([
      'share',
      'nfs',
      'create',
      '/mnt/tank/exports',
      '--networks',
      '10.0.0.5/24',
      '--hosts',
      '192.168.1.7',
      '--maproot-user',
      'root',
      '--maproot-group',
      'root',
      '--security',
      'sys',
      '--comment',
      'backups',
      '--ro',
      '--disabled',
    ]);
    expect(made).toMatchObject({ ref: 'nfs:1', changed: true });
    expect(made.share).toMatchObject({
      path: '/mnt/tank/exports',
      networks: ['10.0.0.0/24'],
      hosts: ['192.168.1.7'],
      maproot_user: 'root',
      maproot_group: 'root',
      security: ['SYS'],
      comment: 'backups',
      ro: true,
      enabled: false,
    });
  });

  it('--exist-ok: a share of that path as asked is "already there" and nothing is sent; one that differs names the fields', async () => {
    const { run, json, shares } = await shareTarget();
    const args = ['share', 'nfs', 'create', '/mnt/tank/exports', '--networks', '10.0.0.0/24', '--exist-ok'];
    expect(await json(args)).toMatchObject({ ref: 'nfs:1', changed: true });
    expect(await json(args)).toMatchObject({ ref: 'nfs:1', changed: false, changes: [] });
    const again = await run(args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('changed\tfalse\n');
    expect(again.stderr).toBe('stor: NFS share /mnt/tank/exports (nfs:1) is already there; nothing changed\n');
    // The network written otherwise is the same network: still no change.
    expect(
      await json(['share', 'nfs', 'create', '/mnt/tank/exports', '--networks', '10.0.0.9/24', '--exist-ok']),
    ).toMatchObject({
      changed: false,
    });
    const differs = await run(['share', 'nfs', 'create', '/mnt/tank/exports', '--ro', '--exist-ok', '--json']);
    expect(differs.code).toBe(1);
    expect(errorOf(differs)).toMatchObject({
      code: 'EXISTS_DIFFERENTLY',
      message:
        'NFS share /mnt/tank/exports (nfs:1) exists with other networks, ro than asked: networks: 10.0.0.0/24 → (none); ro: false → true',
      hint: '`stor share update nfs:1` changes it; nothing was changed',
    });
    expect((await shares()).length).toBe(1);
  });

  it('--dry-run fails as the call does on a path outside the pools, a network that does not parse, a host with a space; nothing is made', async () => {
    const { run, shares } = await shareTarget();
    for (const bad of [
      ['/tmp/x'],
      ['/mnt/tank/exports', '--networks', '10.0.0.0/33'],
      ['/mnt/tank/exports', '--hosts', 'a host'],
    ]) {
      const dry = await run(['share', 'nfs', 'create', ...bad, '--dry-run']);
      const real = await run(['share', 'nfs', 'create', ...bad]);
      expect(outcome(dry)).toEqual(outcome(real));
      expect(real.code).toBe(1);
    }
    expect(await shares()).toEqual([]);
    const ok = await run(['share', 'nfs', 'create', '/mnt/tank/exports', '--dry-run', '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ref: null, dry_run: true, changed: true });
    expect(await shares()).toEqual([]);
  });

  it('without SHARING_NFS_WRITE the dry run and the call are refused alike (exit 5)', async () => {
    const { home, run, shares } = await shareTarget();
    const t = await openTestAppliance(undefined, home);
    const { key } = await createUserWithKey(t, 'reader', { privilegeRoles: ['SHARING_NFS_READ', 'DATASET_READ'] });
    t.appliance.close();
    const dry = await run(['share', 'nfs', 'create', '/mnt/tank/exports', '--dry-run'], { STOR_API_KEY: key });
    const real = await run(['share', 'nfs', 'create', '/mnt/tank/exports'], { STOR_API_KEY: key });
    expect(outcome(dry)).toEqual(outcome(real));
    expect(dry.code).toBe(5);
    expect(await shares()).toEqual([]);
  });
});

describe('stor share smb create', () => {
  it('creates the share; --exist-ok finds it by name in any case, as the appliance compares names', async () => {
    const { run, json } = await shareTarget();
    const made = await json<{ share: Record<string, unknown> }>([
      'share',
      'smb',
      'create',
      'Docs',
      '/mnt/tank/docs',
      '--purpose',
      'multiprotocol_share',
      '--no-browsable',
      '--comment',
      'team',
    ]);
    expect(made.share).toMatchObject({
      name: 'Docs',
      purpose: 'MULTIPROTOCOL_SHARE',
      browsable: false,
      readonly: false,
      comment: 'team',
      enabled: true,
    });
    const again = await run([
      'share',
      'smb',
      'create',
      'DOCS',
      '/mnt/tank/docs',
      '--purpose',
      'MULTIPROTOCOL_SHARE',
      '--no-browsable',
      '--comment',
      'team',
      '--exist-ok',
      '--json',
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ ref: 'smb:1', changed: false });
    const differs = await run(['share', 'smb', 'create', 'docs', '/mnt/tank/docs', '--exist-ok', '--json']);
    expect(errorOf(differs)).toMatchObject({
      code: 'EXISTS_DIFFERENTLY',
      message:
        'SMB share Docs (smb:1) exists with other purpose, comment, browsable than asked: purpose: "MULTIPROTOCOL_SHARE" → "DEFAULT_SHARE"; comment: "team" → ""; browsable: false → true',
    });
  });

  it('--dry-run fails as the call does on a name another share has in other case, and on a 300-character name; nothing is made', async () => {
    const { run, shares } = await shareTarget();
    expect((await run(['share', 'smb', 'create', 'docs', '/mnt/tank/docs'])).code).toBe(0);
    for (const name of ['DOCS', 'x'.repeat(300)]) {
      const dry = await run(['share', 'smb', 'create', name, '/mnt/tank/exports', '--dry-run']);
      const real = await run(['share', 'smb', 'create', name, '/mnt/tank/exports']);
      expect(outcome(dry)).toEqual(outcome(real));
      expect(real.code).toBe(1);
    }
    expect((await shares()).length).toBe(1);
  });
});
