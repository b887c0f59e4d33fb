import { describe, expect, it } from 'vitest';
import { lifetimeMs } from '../../../../src/core/lifetime.js';
import {
  periodicSnapshotRetention,
  policyDeletes,
  replicationNeedsSnapshot,
  targetSnapshotRetention,
  taskSnapshots,
  type ReplicationNeed,
  type RetentionSnapshot,
  type RetentionTask,
} from '../../../../src/core/appliance/snapshot-tasks/retention.js';
import { parseStrftime } from '../../../helpers/strftime-parse.js';

const parse = parseStrftime;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function utc(y: number, mo: number, d: number, h = 0, mi = 0, s = 0): Date {
  return new Date(Date.UTC(y, mo - 1, d, h, mi, s));
}

function snaps(dataset: string, names: readonly string[]): RetentionSnapshot[] {
  return names.map((name) => ({ dataset, name }));
}

function task(over: Partial<RetentionTask> = {}): RetentionTask {
  return {
    dataset: 'tank/data',
    recursive: false,
    exclude: [],
    namingSchema: 'auto-%Y-%m-%d_%H-%M',
    schedule: {},
    lifetime: { value: 2, unit: 'HOUR' },
    ...over,
  };
}

function names(refs: readonly { dataset: string; name: string }[]): string[] {
  return refs.map((r) => `${r.dataset}@${r.name}`);
}

describe('lifetime (MW/plugins/zettarepl.py:64-80)', () => {
  it('MONTH is 30 days and YEAR 365, not calendar months and years', () => {
    expect(lifetimeMs({ value: 3, unit: 'HOUR' })).toBe(3 * HOUR);
    expect(lifetimeMs({ value: 2, unit: 'DAY' })).toBe(2 * DAY);
    expect(lifetimeMs({ value: 2, unit: 'WEEK' })).toBe(14 * DAY);
    expect(lifetimeMs({ value: 1, unit: 'MONTH' })).toBe(30 * DAY);
    expect(lifetimeMs({ value: 1, unit: 'YEAR' })).toBe(365 * DAY);
  });
});

describe('periodic snapshot task retention (zettarepl tests/retention/test_calculate.py)', () => {
  it('two tasks on one dataset: the expired one goes, the newest of its schema stays (test__calculate_snapshots_to_remove)', () => {
    const removed = periodicSnapshotRetention({
      tasks: [
        task({ dataset: 'dst/work', lifetime: { value: 14, unit: 'DAY' }, namingSchema: 'auto-%Y-%m-%d_%H-%M' }),
        task({ dataset: 'dst/work', lifetime: { value: 1, unit: 'HOUR' }, namingSchema: 'snap%d%m%Y%H%M' }),
      ],
      snapshots: snaps('dst/work', ['snap300520191856', 'snap300520191857']),
      now: utc(2019, 5, 30, 21, 52),
      timezone: 'UTC',
      parse,
    });
    expect(names(removed)).toEqual(['dst/work@snap300520191856']);
  });

  it('a snapshot stays while any owner retains it (test__calculate_dataset_snapshots_to_remove)', () => {
    // The first owner owns every minute and keeps a day; the second owns even minutes and keeps 11 days.
    const removed = periodicSnapshotRetention({
      tasks: [
        task({ dataset: 'data', namingSchema: 'snap-%Y-%m-%d_%H-%M-%S', lifetime: { value: 24, unit: 'HOUR' } }),
        task({
          dataset: 'data',
          namingSchema: 'snap-%Y-%m-%d_%H-%M-%S',
          schedule: { minute: '*/2' },
          lifetime: { value: 11, unit: 'DAY' },
        }),
      ],
      snapshots: snaps('data', [
        'snap-2018-08-21_22-58-00',
        'snap-2018-08-21_22-59-00',
        'snap-2018-08-21_23-00-00',
        'snap-2018-08-21_23-01-00',
        'snap-2018-08-21_23-02-00',
      ]),
      now: utc(2018, 8, 22, 23, 0),
      timezone: 'UTC',
      parse,
    });
    expect(names(removed)).toEqual(['data@snap-2018-08-21_22-59-00']);
  });

  const hourly = task({ schedule: { minute: '0' }, lifetime: { value: 2, unit: 'HOUR' } });
  const now = utc(2026, 1, 5, 12, 0, 30);
  const run = (
    snapshots: RetentionSnapshot[],
    over: { tasks?: RetentionTask[]; replications?: ReplicationNeed[]; timezone?: string } = {},
  ) =>
    names(
      periodicSnapshotRetention({
        tasks: over.tasks ?? [hourly],
        snapshots,
        now,
        timezone: over.timezone ?? 'UTC',
        parse,
        ...(over.replications ? { replications: over.replications } : {}),
      }),
    );

  it('a snapshot exactly its lifetime old goes; one a minute younger stays (snapshot_owner.py:35-37, seconds dropped)', () => {
    expect(
      run(
        snaps('tank/data', [
          'auto-2026-01-05_09-00',
          'auto-2026-01-05_10-00',
          'auto-2026-01-05_11-00',
          'auto-2026-01-05_12-00',
        ]),
      ),
    ).toEqual(['tank/data@auto-2026-01-05_09-00', 'tank/data@auto-2026-01-05_10-00']);
  });

  it('the newest snapshot of a schema stays even past its lifetime (calculate.py:76-85)', () => {
    expect(run(snaps('tank/data', ['auto-2026-01-04_09-00', 'auto-2026-01-04_10-00']))).toEqual([
      'tank/data@auto-2026-01-04_09-00',
    ]);
  });

  it('a manual snapshot (no schema parses its name) is never destroyed', () => {
    expect(
      run(snaps('tank/data', ['manual-before-upgrade', 'auto-2026-01-01_00-00', 'auto-2026-01-05_12-00'])),
    ).toEqual(['tank/data@auto-2026-01-01_00-00']);
  });

  it("a name in the task's schema at a time off its schedule is not the task's, and stays (snapshot_owner.py:29-30)", () => {
    expect(
      run(snaps('tank/data', ['auto-2026-01-01_00-17', 'auto-2026-01-01_00-00', 'auto-2026-01-05_12-00'])),
    ).toEqual(['tank/data@auto-2026-01-01_00-00']);
  });

  it('a held snapshot and a cloned one survive (destroy.py:53-61)', () => {
    const snapshots: RetentionSnapshot[] = [
      { dataset: 'tank/data', name: 'auto-2026-01-01_00-00', holds: ['keep'] },
      { dataset: 'tank/data', name: 'auto-2026-01-01_01-00', hasClones: true },
      { dataset: 'tank/data', name: 'auto-2026-01-01_02-00', holds: [] },
      { dataset: 'tank/data', name: 'auto-2026-01-05_12-00' },
    ];
    expect(run(snapshots)).toEqual(['tank/data@auto-2026-01-01_02-00']);
  });

  it('a recursive task owns its children but the excluded ones; a non-recursive one only its dataset (relationship.py:22-27)', () => {
    const old = 'auto-2026-01-01_00-00';
    const fresh = 'auto-2026-01-05_12-00';
    const snapshots = ['tank/data', 'tank/data/a', 'tank/data/skip', 'tank/data/skip/deep', 'tank/database'].flatMap(
      (d) => snaps(d, [old, fresh]),
    );
    expect(run(snapshots, { tasks: [{ ...hourly, recursive: true, exclude: ['tank/data/skip'] }] })).toEqual([
      `tank/data@${old}`,
      `tank/data/a@${old}`,
    ]);
    expect(run(snapshots, { tasks: [{ ...hourly, recursive: true, exclude: ['tank/data/s*'] }] })).toEqual([
      `tank/data@${old}`,
      `tank/data/a@${old}`,
    ]);
    expect(run(snapshots)).toEqual([`tank/data@${old}`]);
  });

  it('names two schemas read as different times leave their dataset untouched (calculate.py:28-35)', () => {
    const tasks = [task({ namingSchema: 'snap-%d-%m-%Y' }), task({ namingSchema: 'snap-%m-%d-%Y' })];
    expect(
      run(snaps('tank/data', ['snap-01-02-2020', 'snap-01-03-2020', 'snap-05-05-2020']), {
        tasks: tasks.map((t) => ({ ...t, schedule: {} })),
      }),
    ).toEqual([]);
  });

  it("`now` is the appliance's wall clock: names hold local time", () => {
    // 12:00:30Z is 21:00 in Tokyo: a snapshot named 19:00 is two hours old there, ten in UTC.
    const snapshots = snaps('tank/data', ['auto-2026-01-05_10-00', 'auto-2026-01-05_19-00', 'auto-2026-01-05_21-00']);
    expect(run(snapshots, { timezone: 'Asia/Tokyo' })).toEqual([
      'tank/data@auto-2026-01-05_10-00',
      'tank/data@auto-2026-01-05_19-00',
    ]);
    expect(run(snapshots, { timezone: 'UTC' })).toEqual(['tank/data@auto-2026-01-05_10-00']);
  });

  describe('removal dates (snapshot_removal_date_snapshot_owner.py:14-33)', () => {
    it('a removal date not yet passed keeps a snapshot its task would let go', () => {
      const snapshots: RetentionSnapshot[] = [
        { dataset: 'tank/data', name: 'auto-2026-01-01_00-00', removalDate: utc(2026, 1, 6) },
        { dataset: 'tank/data', name: 'auto-2026-01-01_01-00', removalDate: utc(2026, 1, 5, 12, 0) },
        { dataset: 'tank/data', name: 'auto-2026-01-05_12-00' },
      ];
      expect(run(snapshots)).toEqual(['tank/data@auto-2026-01-01_01-00']);
    });

    it('a passed removal date destroys even a snapshot no task owns (a deleted task, fixate_removal_date)', () => {
      const snapshots: RetentionSnapshot[] = [
        { dataset: 'tank/other', name: 'manual-1', removalDate: utc(2026, 1, 5, 11) },
        { dataset: 'tank/other', name: 'manual-2', removalDate: utc(2026, 1, 5, 13) },
        { dataset: 'tank/other', name: 'manual-3' },
      ];
      expect(run(snapshots)).toEqual(['tank/other@manual-1']);
    });

    it('a passed removal date does not destroy what a task still keeps', () => {
      const snapshots: RetentionSnapshot[] = [
        { dataset: 'tank/data', name: 'auto-2026-01-05_11-00', removalDate: utc(2026, 1, 1) },
        { dataset: 'tank/data', name: 'auto-2026-01-05_12-00' },
      ];
      expect(run(snapshots)).toEqual([]);
    });
  });

  describe('a replication that still needs a snapshot keeps it (zettarepl/replication/task/snapshot_owner.py:60-93)', () => {
    const need = (targetSnapshots: { dataset: string; name: string }[]): ReplicationNeed => ({
      sourceDatasets: ['tank/data'],
      targetDataset: 'backup/data',
      recursive: false,
      exclude: [],
      namingSchemas: ['auto-%Y-%m-%d_%H-%M'],
      targetSnapshots,
    });
    const local = snaps('tank/data', [
      'auto-2026-01-05_08-00',
      'auto-2026-01-05_09-00',
      'auto-2026-01-05_10-00',
      'auto-2026-01-05_12-00',
    ]);

    it('what the target lacks stays, and so does the incremental base', () => {
      const replications = [need(snaps('backup/data', ['auto-2026-01-05_08-00']))];
      expect(run(local, { replications })).toEqual([]);
    });

    it('once the target has them, only the incremental base (the newest in common) stays', () => {
      const replications = [need(snaps('backup/data', ['auto-2026-01-05_08-00', 'auto-2026-01-05_09-00']))];
      expect(run(local, { replications })).toEqual(['tank/data@auto-2026-01-05_08-00']);
    });

    it('with no replication, all expired go', () => {
      expect(run(local)).toEqual([
        'tank/data@auto-2026-01-05_08-00',
        'tank/data@auto-2026-01-05_09-00',
        'tank/data@auto-2026-01-05_10-00',
      ]);
    });
  });
});

describe('replicationNeedsSnapshot (zettarepl tests/replication/task/test_snapshot_owner.py test__pending_replication_task_snapshot_owner)', () => {
  const S = ['2018-09-26_11-47', '2018-09-26_11-48', '2018-09-26_11-49'];
  const cases: [string, boolean, Record<string, string[]>, Record<string, string[]>, string, string, boolean][] = [
    ['everything is ok', false, { 'data/work': S }, { 'repl/work': S }, 'data/work', S[1] as string, false],
    [
      'replication probably failed',
      false,
      { 'data/work': S },
      { 'repl/work': [S[0] as string] },
      'data/work',
      S[2] as string,
      true,
    ],
    [
      'do not delete incremental base',
      false,
      { 'data/work': S },
      { 'repl/work': [S[0] as string] },
      'data/work',
      S[0] as string,
      true,
    ],
    [
      'an older common snapshot is no base',
      false,
      { 'data/work': S },
      { 'repl/work': S.slice(0, 2) },
      'data/work',
      S[0] as string,
      false,
    ],
    [
      'there was no data/work/ix at 11-47',
      true,
      { 'data/work': S, 'data/work/ix': S.slice(1) },
      { 'repl/work': S, 'repl/work/ix': S.slice(1) },
      'data/work/ix',
      S[0] as string,
      false,
    ],
    [
      'replication of repl/work/ix@11-49 failed',
      true,
      { 'data/work': S, 'data/work/ix': S.slice(1) },
      { 'repl/work': S, 'repl/work/ix': [S[1] as string] },
      'data/work/ix',
      S[2] as string,
      true,
    ],
    [
      'same but non-recursive and we do not care',
      false,
      { 'data/work': S, 'data/work/ix': S.slice(1) },
      { 'repl/work': S, 'repl/work/ix': [S[1] as string] },
      'data/work/ix',
      S[2] as string,
      false,
    ],
  ];
  it.each(cases)('%s', (_, recursive, source, target, dataset, name, needed) => {
    const toRefs = (byDataset: Record<string, string[]>) =>
      Object.entries(byDataset).flatMap(([d, list]) => snaps(d, list));
    const need: ReplicationNeed = {
      sourceDatasets: ['data/work'],
      targetDataset: 'repl/work',
      recursive,
      exclude: [],
      namingSchemas: ['%Y-%m-%d_%H-%M'],
      targetSnapshots: toRefs(target),
    };
    expect(replicationNeedsSnapshot(need, toRefs(source), { dataset, name }, parse)).toBe(needed);
  });
});

describe('replicationNeedsSnapshot with names its schemas read ambiguously', () => {
  it('needs every snapshot, as zettarepl then destroys nothing (zettarepl.py:324-335)', () => {
    const need: ReplicationNeed = {
      sourceDatasets: ['tank/data'],
      targetDataset: 'backup/data',
      recursive: false,
      exclude: [],
      namingSchemas: ['snap-%d-%m-%Y', 'snap-%m-%d-%Y'],
      targetSnapshots: snaps('backup/data', ['snap-01-02-2020']),
    };
    expect(
      replicationNeedsSnapshot(
        need,
        snaps('tank/data', ['snap-01-02-2020']),
        { dataset: 'tank/data', name: 'snap-01-02-2020' },
        parse,
      ),
    ).toBe(true);
  });
});

describe("a replication's target retention (zettarepl/replication/task/retention_policy.py)", () => {
  it('CUSTOM: the longest lifetime whose schedule matches, else the default (tests/replication/task/test_retention_policy.py)', () => {
    const target = [
      '2021-04-20-19-00', // stays: taken less than a day ago
      '2021-04-20-01-00', // goes: taken more than a day ago
      '2021-04-20-00-00', // stays: taken daily, lives 14 days
      '2021-04-06-00-00', // goes: taken more than 14 days ago
      '2021-04-05-00-00', // stays: taken on a Monday, lives 30 days
    ].map((name) => ({ name, datetime: parse('%Y-%m-%d-%H-%M', name) as Date }));
    const deletes = policyDeletes(
      {
        policy: 'CUSTOM',
        lifetime: { value: 1, unit: 'DAY' },
        lifetimes: [
          { schedule: { hour: '0' }, lifetime: { value: 14, unit: 'DAY' } },
          { schedule: { hour: '0', dow: '1' }, lifetime: { value: 30, unit: 'DAY' } },
        ],
      },
      utc(2021, 4, 21, 13, 0),
      [],
      target,
    );
    expect(deletes).toEqual(['2021-04-20-01-00', '2021-04-06-00-00']);
  });

  it('CUSTOM keeps a snapshot exactly its lifetime old: only older ones go (retention_policy.py:84, not idealized)', () => {
    const target = ['2021-04-20-13-00', '2021-04-20-12-59'].map((name) => ({
      name,
      datetime: parse('%Y-%m-%d-%H-%M', name) as Date,
    }));
    expect(
      policyDeletes({ policy: 'CUSTOM', lifetime: { value: 1, unit: 'DAY' } }, utc(2021, 4, 21, 13, 0), [], target),
    ).toEqual(['2021-04-20-12-59']);
  });

  const replication = {
    sourceDatasets: ['tank/data'],
    targetDataset: 'backup/data',
    recursive: true,
    exclude: ['tank/data/scratch'],
    namingSchemas: ['auto-%Y-%m-%d_%H-%M'],
  };
  const source = [
    ...snaps('tank/data', ['auto-2026-01-05_10-00', 'auto-2026-01-05_11-00']),
    ...snaps('tank/data/child', ['auto-2026-01-05_11-00']),
  ];
  const target: RetentionSnapshot[] = [
    ...snaps('backup/data', [
      'auto-2026-01-05_08-00',
      'auto-2026-01-05_09-00',
      'auto-2026-01-05_10-00',
      'auto-2026-01-05_11-00',
      'by-hand',
    ]),
    ...snaps('backup/data/child', ['auto-2026-01-05_09-00', 'auto-2026-01-05_11-00']),
    ...snaps('backup/data/scratch', ['auto-2026-01-05_09-00', 'auto-2026-01-05_11-00']),
  ];
  const targetRun = (policy: Parameters<typeof targetSnapshotRetention>[0]['policy'], snapshots = target) =>
    names(
      targetSnapshotRetention({
        replication,
        policy,
        sourceSnapshots: source,
        targetSnapshots: snapshots,
        now: utc(2026, 1, 5, 12),
        timezone: 'UTC',
        parse,
      }),
    );

  it('SOURCE: what the source no longer has goes, child datasets mapped, excluded ones and names no schema parses left alone', () => {
    expect(targetRun({ policy: 'SOURCE' })).toEqual([
      'backup/data@auto-2026-01-05_08-00',
      'backup/data@auto-2026-01-05_09-00',
      'backup/data/child@auto-2026-01-05_09-00',
    ]);
  });

  it('SOURCE keeps a held target snapshot', () => {
    const held = target.map((s) => (s.name === 'auto-2026-01-05_08-00' ? { ...s, holds: ['hold'] } : s));
    expect(targetRun({ policy: 'SOURCE' }, held)).toEqual([
      'backup/data@auto-2026-01-05_09-00',
      'backup/data/child@auto-2026-01-05_09-00',
    ]);
  });

  it('SOURCE never takes the last snapshot of a schema on a target dataset (calculate.py:76-85)', () => {
    expect(
      targetRun({ policy: 'SOURCE' }, snaps('backup/data', ['auto-2026-01-04_08-00', 'auto-2026-01-04_09-00'])),
    ).toEqual(['backup/data@auto-2026-01-04_08-00']);
  });

  it('NONE removes nothing', () => {
    expect(targetRun({ policy: 'NONE' })).toEqual([]);
  });

  it('CUSTOM removes what is older than its lifetime, source or not', () => {
    expect(targetRun({ policy: 'CUSTOM', lifetime: { value: 150, unit: 'HOUR' } })).toEqual([]);
    expect(targetRun({ policy: 'CUSTOM', lifetime: { value: 2, unit: 'HOUR' } })).toEqual([
      'backup/data@auto-2026-01-05_08-00',
      'backup/data@auto-2026-01-05_09-00',
      'backup/data/child@auto-2026-01-05_09-00',
    ]);
  });
});

describe('taskSnapshots (MW/plugins/zettarepl_/snapshot_removal_date.py:60-78)', () => {
  it("lists the task's own: on its datasets, in its schema, at a time it runs", () => {
    const all = [
      ...snaps('tank/data', ['auto-2026-01-05_10-00', 'auto-2026-01-05_10-17', 'manual']),
      ...snaps('tank/data/child', ['auto-2026-01-05_10-00']),
      ...snaps('tank/other', ['auto-2026-01-05_10-00']),
    ];
    expect(names(taskSnapshots(task({ schedule: { minute: '0' } }), all, parse))).toEqual([
      'tank/data@auto-2026-01-05_10-00',
    ]);
    expect(names(taskSnapshots(task({ schedule: { minute: '0' }, recursive: true }), all, parse))).toEqual([
      'tank/data@auto-2026-01-05_10-00',
      'tank/data/child@auto-2026-01-05_10-00',
    ]);
  });
});
