import { describe, expect, it } from 'vitest';
import type { ProfilesDocument } from '../../../src/core/config/profiles.js';
import { resolveTargetList } from '../../../src/commands/fleet/target-list.js';
import { fanOutExitCode, fanOutSummary, type TargetOutcome } from '../../../src/commands/fleet/fan-out.js';

const profile = (tags?: string[]) => ({ url: 'ws://127.0.0.1:1', apiKey: '1-x', ...(tags ? { tags } : {}) });
const names = ['nas1', 'nas2', 'nas3', 'nas01', 'nas02', 'nas10', 'nas11', 'nas12', 'web'];
const doc: ProfilesDocument = {
  profiles: Object.fromEntries(
    names.map((n) => [n, profile(n === 'nas2' || n === 'web' ? ['prod'] : n === 'nas3' ? ['lab', 'prod'] : undefined)]),
  ),
};

function usageError(list: string): { code: string; kind: string; message: string; hint?: string } {
  try {
    resolveTargetList(list, doc);
  } catch (err) {
    return err as never;
  }
  throw new Error(`${list} was accepted`);
}

describe('--targets lists', () => {
  it('takes names, comma-separated, in the order given, each once', () => {
    expect(resolveTargetList('web,nas1, nas2,web', doc)).toEqual(['web', 'nas1', 'nas2']);
  });

  it('expands ranges, with zero padding when the start has a leading zero', () => {
    expect(resolveTargetList('nas[1-3]', doc)).toEqual(['nas1', 'nas2', 'nas3']);
    expect(resolveTargetList('nas[01-02]', doc)).toEqual(['nas01', 'nas02']);
    expect(resolveTargetList('nas[10-12],web', doc)).toEqual(['nas10', 'nas11', 'nas12', 'web']);
    expect(resolveTargetList('nas[1,3,10-11]', doc)).toEqual(['nas1', 'nas3', 'nas10', 'nas11']);
  });

  it('selects by tag (sorted by name) and takes all', () => {
    expect(resolveTargetList('@prod', doc)).toEqual(['nas2', 'nas3', 'web']);
    expect(resolveTargetList('@lab,nas1', doc)).toEqual(['nas3', 'nas1']);
    expect(resolveTargetList('all', doc)).toEqual([...names].sort());
  });

  it('takes @all as all, as Ansible names the group of every host (no profile need carry a tag "all")', () => {
    expect(resolveTargetList('@all', doc)).toEqual([...names].sort());
  });

  it('refuses an unknown name as a usage error listing the known profiles', () => {
    const err = usageError('nas[1-4]');
    // docs/REMOTE.md "Fleets": a name no profile has is a usage error (exit 2), as a tag none carries.
    expect(err).toMatchObject({ code: 'BAD_TARGETS', kind: 'usage', message: '--targets: no profile named "nas4"' });
    expect(err.hint).toBe('known profiles: nas01, nas02, nas1, nas10, nas11, nas12, nas2, nas3, web');
  });

  it('refuses a tag no profile carries, naming the known tags', () => {
    const err = usageError('@staging');
    expect(err).toMatchObject({ code: 'BAD_TARGETS', kind: 'usage' });
    expect(err.hint).toBe('known tags: @lab, @prod');
  });

  it('refuses malformed and backwards ranges, and an empty list', () => {
    for (const list of ['nas[1-3', 'nas1-3]', 'nas[a-c]', 'nas[3-1]', 'nas[1-5000]', ' , ']) {
      expect(usageError(list)).toMatchObject({ code: 'BAD_TARGETS', kind: 'usage' });
    }
  });
});

describe('the outcome of a fan-out', () => {
  const outcome = (target: string, exit_code: number, kind?: string): TargetOutcome => ({
    target,
    ok: exit_code === 0,
    exit_code,
    ...(kind ? { error: { code: 'X', kind, message: 'm' } } : { data: {} }),
  });

  it('exits 0 when every target is fine, 6 when some has findings and none failed', () => {
    expect(fanOutExitCode([outcome('a', 0), outcome('b', 0)])).toBe(0);
    expect(fanOutExitCode([outcome('a', 0), outcome('b', 6)])).toBe(6);
  });

  it('exits with the first failed target’s code when any failed, whatever the findings', () => {
    expect(fanOutExitCode([outcome('a', 6), outcome('b', 3, 'unreachable'), outcome('c', 4, 'auth')])).toBe(3);
    expect(fanOutExitCode([outcome('a', 4, 'auth'), outcome('b', 3, 'unreachable')])).toBe(4);
  });

  it('counts targets by outcome: ok first, then findings, then failures as they came', () => {
    const all = [
      outcome('a', 0),
      outcome('b', 3, 'unreachable'),
      outcome('c', 6),
      outcome('d', 0),
      outcome('e', 3, 'unreachable'),
    ];
    expect(fanOutSummary(all, 'lockout')).toBe('2 ok, 1 lockout, 2 unreachable');
    expect(fanOutSummary([outcome('a', 3, 'unreachable')], 'lockout')).toBe('0 ok, 1 unreachable');
  });
});
