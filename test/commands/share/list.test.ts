/**
 * `stor share list`, in-process on the embedded appliance: NFS and SMB shares in one table, --kind,
 * --json as the appliance answers the entries (with their kind). Paging: test/core/contract/query-pages.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { shareTarget } from '../../helpers/share-cli.js';

describe('stor share list', () => {
  it('lists both kinds in one table: an SMB share by its name, an NFS share by its path; piped as tab-separated rows', async () => {
    const { run } = await shareTarget();
    expect((await run(['share', 'list'])).stdout).toBe('');
    expect((await run(['share', 'nfs', 'create', '/mnt/tank/exports', '--networks', '10.0.0.0/24', '--ro'])).code).toBe(
      0,
    );
    expect((await run(['share', 'smb', 'create', 'docs', '/mnt/tank/docs', '--comment', 'team'])).code).toBe(0);
    const piped = await run(['share', 'list']);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout.split('\n').filter(Boolean)).toEqual([
      'nfs\t1\t/mnt/tank/exports\t/mnt/tank/exports\ttrue\ttrue\t10.0.0.0/24\t',
      'smb\t1\tdocs\t/mnt/tank/docs\ttrue\tfalse\tDEFAULT_SHARE\tteam',
    ]);
  });

  it('--json gives the entries as sharing.*.query answers them, each with its kind; --kind keeps one kind', async () => {
    const { run, json } = await shareTarget();
    await run(['share', 'nfs', 'create', '/mnt/tank/exports']);
    await run(['share', 'smb', 'create', 'docs', '/mnt/tank/docs']);
    const all = await json<Record<string, unknown>[]>(['share', 'list']);
    expect(all.map((s) => [s.kind, s.id])).toEqual([
      ['nfs', 1],
      ['smb', 1],
    ]);
    expect(Object.keys(all[0]!)).toEqual([
      'kind',
      'id',
      'path',
      'aliases',
      'comment',
      'networks',
      'hosts',
      'ro',
      'maproot_user',
      'maproot_group',
      'mapall_user',
      'mapall_group',
      'security',
      'enabled',
      'locked',
      'expose_snapshots',
    ]);
    expect(all[1]).toMatchObject({
      kind: 'smb',
      name: 'docs',
      purpose: 'DEFAULT_SHARE',
      readonly: false,
      browsable: true,
    });
    const smb = await json<{ kind: string }[]>(['share', 'list', '--kind', 'smb']);
    expect(smb.map((s) => s.kind)).toEqual(['smb']);
  });
});
