/**
 * `stor share` with `--targets` over `stor serve` stand-ins of 25.10.1 and 26.0 on port 0: a create
 * fans out (planned on each with --dry-run, asked once), a re-run with --exist-ok changes nothing,
 * and list reads both.
 */
import { describe, expect, it } from 'vitest';
import { bothReleasesEnv } from '../../helpers/release-targets.js';
import { runStor } from '../../helpers/run-stor.js';

describe('stor share with --targets, on 25.10.1 and 26.0', () => {
  it('creates an SMB share on both after one consent; again with --exist-ok changes nothing; list reads both', async () => {
    const env = await bothReleasesEnv();
    const create = ['--targets', 'all', 'share', 'smb', 'create', 'docs', '/mnt/tank', '--exist-ok'];
    const refused = await runStor(create, { env });
    expect(refused.code).toBe(2);
    const made = await runStor([...create, '--yes', '--json'], { env });
    expect(made.code, made.stderr).toBe(0);
    const outcomes = JSON.parse(made.stdout) as { target: string; ok: boolean; data: { changed: boolean } }[];
    expect(outcomes.map((o) => [o.target, o.ok, o.data.changed])).toEqual([
      ['nas1', true, true],
      ['nas2', true, true],
    ]);
    const again = await runStor([...create, '--yes', '--json'], { env });
    expect((JSON.parse(again.stdout) as { data: { changed: boolean } }[]).map((o) => o.data.changed)).toEqual([
      false,
      false,
    ]);
    const listed = await runStor(['--targets', 'all', 'share', 'list', '--json'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    const lists = JSON.parse(listed.stdout) as { target: string; data: { kind: string; name: string }[] }[];
    // --json is the entries as each target answers them: 26.0's carry dataset, relative_path and tier.
    expect(
      lists.map((l) => Object.keys(l.data[0]!).filter((k) => ['dataset', 'relative_path', 'tier'].includes(k))),
    ).toEqual([[], ['dataset', 'relative_path', 'tier']]);
    expect(lists[1]!.data[0]).toMatchObject({ dataset: 'tank', relative_path: '' });
    expect(lists.map((l) => [l.target, l.data.map((s) => `${s.kind}:${s.name}`)])).toEqual([
      ['nas1', ['smb:docs']],
      ['nas2', ['smb:docs']],
    ]);
  });
});
