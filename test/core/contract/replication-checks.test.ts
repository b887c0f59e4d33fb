import { describe, expect, it } from 'vitest';
import {
  boundEnabledChecks,
  credentialChecks,
  directionChecks,
  excludeChecks,
  isChild,
  nameRegexChecks,
  retentionChecks,
  scheduleChecks,
  type BoundSnapshotTask,
  type CheckedReplication,
} from '../../../src/core/contract/replication-checks.js';

// The checks of ReplicationService `_validate` both the appliance and `stor apply` run, each pinned
// to the words of MW/plugins/replication.py (TS-25.10.1) at the lines the module cites.

/** A PUSH that passes every check: bound to nothing, with an also-include schema, not automatic. */
const OK: CheckedReplication = {
  direction: 'PUSH',
  transport: 'LOCAL',
  ssh_credentials: null,
  source_datasets: ['tank/src'],
  recursive: false,
  exclude: [],
  periodic_snapshot_tasks: [],
  naming_schema: [],
  also_include_naming_schema: ['auto-%Y-%m-%d_%H-%M'],
  name_regex: null,
  auto: false,
  schedule: null,
  retention_policy: 'NONE',
  lifetime_value: null,
  lifetime_unit: null,
  enabled: true,
};

const task = (dataset: string, exclude: string[] = [], enabled = true): BoundSnapshotTask => ({
  dataset,
  exclude,
  enabled,
});

/** What one check adds, as [field, message] pairs in order. */
function run(check: (add: (field: string, message: string) => void) => unknown): [string, string][] {
  const out: [string, string][] = [];
  check((field, message) => out.push([field, message]));
  return out;
}

describe('isChild (MW/utils/path.py:140-151)', () => {
  it('holds for the dataset itself and what is below it, not for a sibling sharing its prefix', () => {
    expect(isChild('tank/a', 'tank/a')).toBe(true);
    expect(isChild('tank/a/b', 'tank/a')).toBe(true);
    expect(isChild('tank/ab', 'tank/a')).toBe(false);
    expect(isChild('tank', 'tank/a')).toBe(false);
  });
});

describe('directionChecks (:353-382)', () => {
  it('passes a PUSH with an also-include schema and returns the bound tasks found', () => {
    const t = task('tank/src');
    const found: BoundSnapshotTask[] = [];
    expect(run((add) => found.push(...directionChecks(add, { ...OK, periodic_snapshot_tasks: [1] }, [t])))).toEqual([]);
    expect(found).toEqual([t]);
  });

  it("words a PUSH's missing task, naming schema, nothing to send, and automatic run without schedule", () => {
    const d = {
      ...OK,
      auto: true,
      naming_schema: ['x-%Y'],
      also_include_naming_schema: [],
      periodic_snapshot_tasks: [7],
    };
    expect(run((add) => directionChecks(add, d, [undefined]))).toEqual([
      ['periodic_snapshot_tasks.0', 'This snapshot task does not exist'],
      ['naming_schema', 'This field has no sense for push replication'],
      [
        'periodic_snapshot_tasks',
        'You must at least either bind a periodic snapshot task or provide "Also Include Naming Schema" or "Name Regex" for push replication task',
      ],
    ]);
    expect(run((add) => directionChecks(add, { ...OK, auto: true }, []))).toEqual([
      [
        'auto',
        'Push replication that runs automatically must be either bound to a periodic snapshot task or have a schedule',
      ],
    ]);
  });

  it("words a PULL's automatic run without schedule, bound tasks, missing and extra schemas, and binds nothing", () => {
    const d: CheckedReplication = { ...OK, direction: 'PULL', auto: true, periodic_snapshot_tasks: [1] };
    let bound: BoundSnapshotTask[] = [task('x')];
    expect(run((add) => (bound = directionChecks(add, d, [task('tank/src')])))).toEqual([
      ['auto', 'Pull replication that runs automatically must have a schedule'],
      ['periodic_snapshot_tasks', "Pull replication can't be bound to a periodic snapshot task"],
      ['naming_schema', 'Naming schema or Name regex are required for pull replication'],
      ['also_include_naming_schema', 'This field has no sense for pull replication'],
    ]);
    expect(bound).toEqual([]);
  });
});

describe('credentialChecks (:417-428)', () => {
  it('refuses credentials on a LOCAL task and requires them on any other', () => {
    expect(run((add) => credentialChecks(add, { ...OK, ssh_credentials: 1 }))).toEqual([
      ['ssh_credentials', 'Remote credentials have no sense for local replication'],
    ]);
    expect(run((add) => credentialChecks(add, { ...OK, transport: 'SSH' }))).toEqual([
      ['ssh_credentials', 'SSH Credentials are required for non-local replication'],
    ]);
    expect(run((add) => credentialChecks(add, { ...OK, transport: 'SSH', ssh_credentials: 1 }))).toEqual([]);
  });
});

describe('excludeChecks (:436-457)', () => {
  it('asks a recursive task to exclude what a bound task excludes below its source', () => {
    const d = { ...OK, recursive: true };
    expect(run((add) => excludeChecks(add, d, [task('tank', ['tank/src/tmp', 'tank/other'])]))).toEqual([
      ['exclude', "You should exclude 'tank/src/tmp' as bound periodic snapshot task dataset 'tank' does"],
    ]);
    expect(
      run((add) => excludeChecks(add, { ...d, exclude: ['tank/src/tmp'] }, [task('tank', ['tank/src/tmp'])])),
    ).toEqual([]);
  });

  it('refuses a source a bound task excludes, on a task that is not recursive', () => {
    expect(run((add) => excludeChecks(add, OK, [task('tank', ['tank/src'])]))).toEqual([
      ['source_datasets.0', "Dataset 'tank/src' is excluded by bound periodic snapshot task for dataset 'tank'"],
    ]);
  });

  it('refuses excludes on a task that is not recursive, and an exclude below no source', () => {
    expect(run((add) => excludeChecks(add, { ...OK, exclude: ['tank/src/a', 'tank/srcx'] }, []))).toEqual([
      ['exclude', 'Excluding child datasets is only supported for recursive replication'],
      ['exclude.1', 'This dataset is not a child of any of source datasets'],
    ]);
  });
});

describe('scheduleChecks (:503-505)', () => {
  it('refuses a schedule on a task that does not run automatically', () => {
    const schedule = { minute: '0' };
    expect(run((add) => scheduleChecks(add, { ...OK, schedule }))).toEqual([
      ['schedule', "You can't have schedule for replication that does not run automatically"],
    ]);
    expect(run((add) => scheduleChecks(add, { ...OK, schedule, auto: true }))).toEqual([]);
  });
});

describe('nameRegexChecks (:510-526)', () => {
  it("words the compiler's refusal, bound tasks, naming schemas and a retention other than SOURCE or NONE", () => {
    const d = { ...OK, name_regex: '(', retention_policy: 'CUSTOM' };
    expect(run((add) => nameRegexChecks(add, d, [task('tank')], (re) => `bad ${re}`))).toEqual([
      ['name_regex', 'Invalid regex: bad ('],
      ['name_regex', "Naming regex can't be used with periodic snapshot tasks"],
      ['name_regex', "Naming regex can't be used with Naming schema"],
      ['retention_policy', 'Only `Same as Source` and `None` retention policies can be used with Naming regex'],
    ]);
  });

  it('checks nothing without a regex', () => {
    expect(run((add) => nameRegexChecks(add, { ...OK, retention_policy: 'CUSTOM' }, [task('t')], () => 'x'))).toEqual(
      [],
    );
  });
});

describe('retentionChecks (:528-537)', () => {
  it("requires a CUSTOM policy's lifetime, its unit reported on lifetime_value by 25.10 and on lifetime_unit by 26", () => {
    const d = { ...OK, retention_policy: 'CUSTOM' };
    const words = 'This field is required for custom retention policy';
    expect(run((add) => retentionChecks(add, d, false))).toEqual([
      ['lifetime_value', words],
      ['lifetime_value', words],
    ]);
    expect(run((add) => retentionChecks(add, d, true))).toEqual([
      ['lifetime_value', words],
      ['lifetime_unit', words],
    ]);
  });

  it('refuses a lifetime with another policy', () => {
    expect(run((add) => retentionChecks(add, { ...OK, lifetime_value: 2, lifetime_unit: 'WEEK' }, false))).toEqual([
      ['lifetime_value', 'This field has no sense for specified retention policy'],
      ['lifetime_unit', 'This field has no sense for specified retention policy'],
    ]);
  });
});

describe('boundEnabledChecks (:541-547)', () => {
  it('refuses a disabled bound task on an enabled replication only', () => {
    const bound = [task('tank'), task('tank/src', [], false)];
    expect(run((add) => boundEnabledChecks(add, OK, bound))).toEqual([
      ['periodic_snapshot_tasks.1', "You can't bind disabled periodic snapshot task to enabled replication task"],
    ]);
    expect(run((add) => boundEnabledChecks(add, { ...OK, enabled: false }, bound))).toEqual([]);
  });
});
