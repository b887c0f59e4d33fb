import type { CommandContext } from '../../framework/context.js';

/**
 * Says, before any consent, which snapshots a task's change or deletion leaves to no task's
 * retention (*_will_change_retention_for, MW/plugins/snapshot_/task_retention.py:16-55): nothing
 * removes them on their date any more, unless `fixate_removal_date` writes that date on them.
 */
export function warnRetention(ctx: CommandContext, what: string, dropped: readonly string[], fixate: boolean): void {
  if (dropped.length === 0) return;
  const after = fixate
    ? 'with --fixate-removal-date they keep the date they would have been removed on'
    : 'they stay until deleted by hand (--fixate-removal-date keeps their removal date)';
  ctx.warn(
    `stor: ${what} leaves ${dropped.length} snapshot${dropped.length === 1 ? '' : 's'} to no task's retention; ${after}:`,
  );
  // One line each: the warning escapes controls, a newline among them.
  for (const s of dropped) ctx.warn(`  ${s}`);
}
