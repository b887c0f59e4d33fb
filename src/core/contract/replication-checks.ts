// The checks of ReplicationService `_validate` (MW/plugins/replication.py:344-549 at TS-25.10.1;
// split into _validate_direction/_transport/_source_datasets/_common in stable/26 :350-675, the same
// checks in the same order) that need only the task's data and its bound snapshot tasks, in its
// words. The appliance runs them between the checks that need its state (the keychain, the
// caller's roles, full filesystem replication, …: appliance/replication-tasks/tasks.ts); `stor
// apply` runs them before it sends anything, on what its reads tell (commands/state/kinds/
// replications.ts). Each section adds its errors through `add(field, message)`, in `_validate`'s order.

/** Where a check reports: `verrors.add(field, message)` under the caller's schema. */
export type AddError = (field: string, message: string) => void;

/** A bound periodic snapshot task, as far as the checks read it. */
export interface BoundSnapshotTask {
  readonly dataset: string;
  readonly exclude: readonly string[];
  readonly enabled: boolean;
}

/** The task's fields the checks read (ReplicationCreate's names). */
export interface CheckedReplication {
  readonly direction: 'PUSH' | 'PULL';
  readonly transport?: string;
  readonly ssh_credentials: unknown;
  readonly source_datasets: readonly string[];
  readonly recursive: boolean;
  readonly exclude: readonly string[];
  readonly periodic_snapshot_tasks: readonly unknown[];
  readonly naming_schema: readonly string[];
  readonly also_include_naming_schema: readonly string[];
  readonly name_regex: string | null;
  readonly auto: boolean;
  readonly schedule: object | null;
  readonly retention_policy: string;
  readonly lifetime_value: number | null;
  readonly lifetime_unit: string | null;
  readonly enabled: boolean;
}

/**
 * `is_child` (MW/utils/path.py:140-151): `child` is `parent` or below it, for dataset names
 * (`os.path.relpath` of two names without a leading or doubled slash is prefix arithmetic on `/`).
 */
export function isChild(child: string, parent: string): boolean {
  return child === parent || child.startsWith(`${parent}/`);
}

/**
 * Direction (:353-382): a PUSH's bound tasks (`tasks`, each looked up by the id at its index,
 * undefined when none has it: _query_periodic_snapshot_tasks, :563-577) and schemas, a PULL's
 * schedule, bound tasks and schemas. Returns the bound tasks found (none for a PULL), which the
 * later checks read.
 */
export function directionChecks<T extends BoundSnapshotTask>(
  add: AddError,
  d: CheckedReplication,
  tasks: readonly (T | undefined)[],
): T[] {
  const bound: T[] = [];
  if (d.direction === 'PUSH') {
    tasks.forEach((t, i) => {
      if (t) bound.push(t);
      else add(`periodic_snapshot_tasks.${i}`, 'This snapshot task does not exist');
    });
    if (d.naming_schema.length > 0) add('naming_schema', 'This field has no sense for push replication');
    if (bound.length === 0 && d.also_include_naming_schema.length === 0 && !d.name_regex)
      add(
        'periodic_snapshot_tasks',
        'You must at least either bind a periodic snapshot task or provide "Also Include Naming Schema" or "Name Regex" for push replication task',
      );
    if (d.schedule === null && d.auto && d.periodic_snapshot_tasks.length === 0)
      add(
        'auto',
        'Push replication that runs automatically must be either bound to a periodic snapshot task or have a schedule',
      );
  } else {
    if (d.schedule === null && d.auto) add('auto', 'Pull replication that runs automatically must have a schedule');
    if (d.periodic_snapshot_tasks.length > 0)
      add('periodic_snapshot_tasks', "Pull replication can't be bound to a periodic snapshot task");
    if (d.naming_schema.length === 0 && !d.name_regex)
      add('naming_schema', 'Naming schema or Name regex are required for pull replication');
    if (d.also_include_naming_schema.length > 0)
      add('also_include_naming_schema', 'This field has no sense for pull replication');
  }
  return bound;
}

/** Transport (:417-428): credentials a LOCAL task must not have, and any other must. */
export function credentialChecks(add: AddError, d: CheckedReplication): void {
  if (d.transport === 'LOCAL') {
    if (d.ssh_credentials !== null) add('ssh_credentials', 'Remote credentials have no sense for local replication');
  } else if (d.ssh_credentials === null) {
    add('ssh_credentials', 'SSH Credentials are required for non-local replication');
  }
}

/**
 * Common for all directions and transports (:436-457): a bound task's excludes below a recursive
 * source, a source a bound task excludes, excludes only for a recursive task and only below a source.
 */
export function excludeChecks(add: AddError, d: CheckedReplication, bound: readonly BoundSnapshotTask[]): void {
  d.source_datasets.forEach((source, i) => {
    for (const task of bound) {
      if (!isChild(source, task.dataset)) continue;
      if (d.recursive) {
        for (const exclude of task.exclude)
          if (isChild(exclude, source) && !d.exclude.includes(exclude))
            add(
              'exclude',
              `You should exclude '${exclude}' as bound periodic snapshot task dataset '${task.dataset}' does`,
            );
      } else if (task.exclude.includes(source)) {
        add(
          `source_datasets.${i}`,
          `Dataset '${source}' is excluded by bound periodic snapshot task for dataset '${task.dataset}'`,
        );
      }
    }
  });
  if (!d.recursive && d.exclude.length > 0)
    add('exclude', 'Excluding child datasets is only supported for recursive replication');
  d.exclude.forEach((v, i) => {
    if (!d.source_datasets.some((ds) => v.startsWith(`${ds}/`)))
      add(`exclude.${i}`, 'This dataset is not a child of any of source datasets');
  });
}

/** Schedule (:503-505): a schedule only for a task that runs automatically. */
export function scheduleChecks(add: AddError, d: CheckedReplication): void {
  if (d.schedule !== null && !d.auto)
    add('schedule', "You can't have schedule for replication that does not run automatically");
}

/**
 * Name regex (:510-526): one that compiles (`regexError`: the compiler's words, or null), not with
 * bound tasks or naming schemas, only with retention SOURCE or NONE.
 */
export function nameRegexChecks(
  add: AddError,
  d: CheckedReplication,
  bound: readonly BoundSnapshotTask[],
  regexError: (regex: string) => string | null,
): void {
  if (!d.name_regex) return;
  const error = regexError(d.name_regex);
  if (error !== null) add('name_regex', `Invalid regex: ${error}`);
  if (bound.length > 0) add('name_regex', "Naming regex can't be used with periodic snapshot tasks");
  if (d.naming_schema.length > 0 || d.also_include_naming_schema.length > 0)
    add('name_regex', "Naming regex can't be used with Naming schema");
  if (d.retention_policy !== 'SOURCE' && d.retention_policy !== 'NONE')
    add('retention_policy', 'Only `Same as Source` and `None` retention policies can be used with Naming regex');
}

/**
 * Retention (:528-537): a CUSTOM policy's lifetime, none for another. 25.10.1 reports a missing
 * lifetime_unit on `lifetime_value` (:531-532), 26.0 on `lifetime_unit` (stable/26 :637-638).
 */
export function retentionChecks(add: AddError, d: CheckedReplication, release26: boolean): void {
  if (d.retention_policy === 'CUSTOM') {
    if (d.lifetime_value === null) add('lifetime_value', 'This field is required for custom retention policy');
    if (d.lifetime_unit === null)
      add(release26 ? 'lifetime_unit' : 'lifetime_value', 'This field is required for custom retention policy');
  } else {
    if (d.lifetime_value !== null) add('lifetime_value', 'This field has no sense for specified retention policy');
    if (d.lifetime_unit !== null) add('lifetime_unit', 'This field has no sense for specified retention policy');
  }
}

/** Bound tasks enabled (:541-547): an enabled task binds no disabled snapshot task. */
export function boundEnabledChecks(add: AddError, d: CheckedReplication, bound: readonly BoundSnapshotTask[]): void {
  if (d.enabled)
    bound.forEach((task, i) => {
      if (!task.enabled)
        add(
          `periodic_snapshot_tasks.${i}`,
          "You can't bind disabled periodic snapshot task to enabled replication task",
        );
    });
}
