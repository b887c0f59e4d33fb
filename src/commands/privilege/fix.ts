import { call } from '../../core/contract/client.js';
import { privilegeContract } from '../../core/contract/privilege.js';
import { RpcError, StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';
import { expandRoles, type RoleCatalogue } from '../../core/roles/index.js';
import type { Transport } from '../../core/transport/transport.js';
import type { CommandContext } from '../framework/context.js';
import { EXIT } from '../output/exit-codes.js';
import { predictedDenial } from '../shared/predict-access.js';
import { holdToPlan } from '../shared/plan-check.js';
import { confirmChange, willAsk } from '../shared/prompts.js';
import { toned, type CommandResult, type Tone, type View } from '../output/render.js';
import { selfIncludingAdvice } from './lockout.js';
import {
  findPrivilege,
  healthOf,
  listPrivileges,
  loadTargetRoles,
  type FindingReport,
  type Privilege,
  type TargetRoles,
} from './model.js';
import { arg, defineCommand, flag, type OptionValues, yesFlag } from '../framework/declare.js';

const options = {
  all: flag('fix every privilege that needs it'),
  yes: yesFlag(),
  dryRun: flag('show what would change; change nothing'),
  dropSelfIncluding: flag(
    'also drop self-including roles (PRIVILEGE_WRITE, SYSTEM_PRODUCT_WRITE); changes effective roles',
  ),
  dropUnknown: flag('also drop role names the appliance does not know (they grant nothing)'),
};

export type FixOptions = OptionValues<typeof options>;

/** `locks-out`: nothing to rewrite, and the list still locks its users out (exit 6): never called `clean`. */
export type FixStatus = 'fixed' | 'would-fix' | 'clean' | 'locks-out' | 'builtin';

/** One privilege in `stor privilege fix --json`. */
export interface PrivilegeFix {
  id: number;
  name: string;
  status: FixStatus;
  before: string[];
  after: string[];
  /** `keep`: for a dropped self-including role, what keeps most of what it granted. */
  removed: { role: string; reason: string; keep?: string }[];
  effective_before: number;
  effective_after: number;
  /** Effective roles the change takes away (only with --drop-self-including). */
  lost_roles: string[];
  /** What is still wrong after the change (e.g. a self-including role kept). */
  remaining: FindingReport[];
  still_locks_out: boolean;
}

export interface FixResult {
  dry_run: boolean;
  privileges: PrivilegeFix[];
}

function plan(roles: TargetRoles, p: Privilege, options: FixOptions): PrivilegeFix {
  const { catalogue } = roles;
  const before = p.roles;
  const h = healthOf(roles, before);
  const { after, dropped } = h.fix(options);
  const removed = dropped.map(({ role, why, includedBy }): PrivilegeFix['removed'][number] => {
    if (why === 'duplicate') return { role, reason: 'listed twice' };
    if (why === 'unknown') return { role, reason: 'not a role of this appliance' };
    if (why === 'overlap')
      return {
        role,
        reason: includedBy !== undefined ? `included by ${includedBy}` : 'included by another listed role',
      };
    const advice = selfIncludingAdvice(role, (name) => catalogue.has(name));
    return { role, reason: `includes itself; loses ${advice.loses}`, keep: advice.keep };
  });
  const effectiveAfter = expandRoles(catalogue, after);
  const remaining = healthOf(roles, after);
  const changed = after.length !== before.length || after.some((r, i) => r !== before[i]);
  return {
    id: p.id,
    name: p.name,
    status: p.builtin_name
      ? 'builtin'
      : changed
        ? options.dryRun
          ? 'would-fix'
          : 'fixed'
        : remaining.locksOut
          ? 'locks-out'
          : 'clean',
    before,
    after: p.builtin_name ? before : after,
    removed: p.builtin_name ? [] : removed,
    effective_before: h.effective.size,
    effective_after: effectiveAfter.size,
    lost_roles: [...h.effective].filter((r) => !effectiveAfter.has(r)).sort(),
    remaining: remaining.findings,
    still_locks_out: remaining.locksOut,
  };
}

const STATUS_TONE: Record<FixStatus, Tone | undefined> = {
  fixed: 'ok',
  'would-fix': 'warning',
  clean: 'ok',
  'locks-out': 'danger',
  builtin: undefined,
};

/**
 * The diff as a table: one row per privilege, what goes and why, what stays, what it costs. A dry
 * run's headers say what *would* happen, so it cannot be read as done.
 */
function fixView(fixes: readonly PrivilegeFix[], dryRun: boolean): View {
  return {
    kind: 'table',
    columns: [
      'id',
      'name',
      'status',
      { header: dryRun ? 'would drop' : 'dropped', overflow: 'wrap' },
      { header: dryRun ? 'would become' : 'roles after', overflow: 'wrap' },
      'effective',
      { header: dryRun ? 'would lose' : 'loses', overflow: 'wrap' },
    ],
    rows: fixes.map((f) => [
      f.id,
      f.name,
      toned(f.status, f.still_locks_out && f.status !== 'builtin' ? 'danger' : STATUS_TONE[f.status]),
      f.removed.map((r) => `${r.role} (${r.reason})`).join('; '),
      f.after.join(', '),
      `${f.effective_before}→${f.effective_after}`,
      f.lost_roles.join(', '),
    ]),
    empty: 'No privileges.',
  };
}

/** What the table cannot say in a cell: how to keep what a dropped role granted, what was kept. */
function advice(ctx: CommandContext, fixes: readonly PrivilegeFix[], dryRun: boolean): void {
  for (const f of fixes) {
    for (const r of f.removed) if (r.keep) ctx.note(`privilege ${f.id}: to keep most of ${r.role}: ${r.keep}`);
    for (const k of f.remaining.filter((k) => k.kind === 'self-including' || k.kind === 'unknown')) {
      ctx.note(`privilege ${f.id}: ${dryRun ? 'would keep' : 'kept'}: ${k.effect}; to drop it: ${k.remedy}`);
    }
  }
}

/** A fix as the plan item it rests on: which privilege, and the list its new one was computed from. */
const planBasis = (f: Pick<PrivilegeFix, 'id' | 'name' | 'before'>) =>
  `privilege ${f.id} "${f.name}" with roles [${f.before.join(', ')}]`;

/** Applies one planned fix, then re-reads the privilege and checks the stored list and effective roles. */
async function apply(t: Transport, catalogue: RoleCatalogue, fix: PrivilegeFix): Promise<void> {
  await call(t, 'privilege.update', [fix.id, { roles: fix.after }]);
  const stored = await call(t, 'privilege.get_instance', [fix.id]);
  const sameList = stored.roles.length === fix.after.length && stored.roles.every((r, i) => r === fix.after[i]);
  const effective = expandRoles(catalogue, stored.roles);
  if (!sameList || effective.size !== fix.effective_after) {
    throw new StorError(
      E.VERIFY_FAILED,
      `privilege ${fix.id} reads back as [${stored.roles.join(', ')}], not the list just written`,
      {
        hint: 'another administrator may be editing it; run `stor privilege show` and try again',
      },
    );
  }
}

/** `stor privilege fix <id|name>` / `--all` */
export async function privilegeFix(
  ctx: CommandContext,
  ref: string | undefined,
  options: FixOptions,
): Promise<CommandResult<FixResult>> {
  if ((ref === undefined) === !options.all)
    throw new StorError(E.FIX_TARGET, 'name one privilege (id or name), or pass --all');
  let t: Transport;
  try {
    t = await ctx.transport();
  } catch (err) {
    if (err instanceof StorError && err.code === E.LOGIN_BROKEN_BY_PRIVILEGE.code) {
      throw new StorError(
        E.LOGIN_BROKEN_BY_PRIVILEGE,
        `this identity cannot log in (${err.cause instanceof RpcError ? err.cause.reason : 'login failed'}): it is bound to a privilege whose role list breaks role expansion, so it cannot repair it`,
        {
          hint:
            'run `stor privilege fix` as an administrator who is not bound to that privilege — another profile or key ' +
            '(on the embedded appliance: without STOR_API_KEY, which uses the seeded administrator)',
          cause: err,
        },
      );
    }
    throw err;
  }
  const roles = await loadTargetRoles(t);
  const { catalogue } = roles;
  const targets = ref !== undefined ? [await findPrivilege(t, ref)] : await listPrivileges(t);
  const fixes = targets.map((p) => plan(roles, p, options));
  const pending = fixes.filter((f) => f.status === 'fixed');
  if (pending.length > 0) {
    // The diff before the question, on stderr where the prompt is, told as what would happen (it
    // has not, and a "no" leaves it so). With --yes, or off a terminal, nothing is asked: the
    // result is printed once, after the change.
    if (willAsk(ctx, options.yes)) {
      const preview = pending.map((f): PrivilegeFix => ({ ...f, status: 'would-fix' }));
      await ctx.noteView({ data: preview, view: fixView(preview, true) });
    }
    const preview = `stor privilege fix ${options.all ? '--all' : JSON.stringify(ref)}${options.dropSelfIncluding ? ' --drop-self-including' : ''}${options.dropUnknown ? ' --drop-unknown' : ''} --dry-run`;
    const asked = await confirmChange(
      ctx,
      `Rewrite the roles of ${pending.length} privilege${pending.length === 1 ? '' : 's'}?`,
      options.yes,
      `preview with \`${preview}\``,
    );
    // Each list is written whole: a role added while the question waited would be dropped, one
    // removed would come back. Every privilege must still hold the roles its fix was planned
    // from (and, after a --targets rehearsal, be one the plan named) before any is written.
    await holdToPlan(ctx, {
      shown: pending.map(planBasis),
      pick: (confirmed: FixResult) => confirmed.privileges.filter((f) => f.status === 'would-fix').map(planBasis),
      asked,
      reread: async () =>
        Promise.all(
          pending.map(async (f) =>
            planBasis({ ...f, before: (await call(t, 'privilege.get_instance', [f.id])).roles }),
          ),
        ),
      what: 'privilege fix would now rewrite',
      preview,
    });
    for (const fix of pending) await apply(t, catalogue, fix);
  }
  const wouldFix = fixes.filter((f) => f.status === 'would-fix');
  if (wouldFix.length > 0) {
    // The real run would be refused at privilege.update; so is its rehearsal.
    const denied = await predictedDenial(t, privilegeContract['privilege.update'].access);
    if (denied) throw denied;
  }
  const data: FixResult = { dry_run: options.dryRun === true, privileges: fixes };
  advice(ctx, fixes, options.dryRun);
  if (options.dryRun) {
    const count = `${wouldFix.length} privilege${wouldFix.length === 1 ? '' : 's'}`;
    ctx.note(
      `stor: dry run: nothing is rewritten.${wouldFix.length > 0 ? ` Without --dry-run, stor would rewrite ${count}.` : ''}`,
    );
  }
  const stillBroken = fixes.some((f) => f.still_locks_out && f.status !== 'builtin');
  return { data, view: fixView(fixes, options.dryRun), exitCode: stillBroken ? EXIT.CHECK : EXIT.OK };
}

export const privilegeFixCommand = defineCommand({
  summary: 'rewrite a role list to the smallest one with the same effective roles (asks first)',
  effect: 'change',
  calls: ['privilege.update', 'privilege.get_instance', 'privilege.query', 'privilege.roles'],
  asks: true,
  args: { privilege: arg.optional('id or name (or use --all)', 'privilege') },
  options,
  examples: [
    'stor privilege fix ops --dry-run',
    'stor privilege fix 7 --yes',
    'stor privilege fix --all --yes --drop-self-including',
  ],
  notes: 'Run it as an administrator who is not bound to the broken privilege: its own members cannot log in.',
  fanOut: 'change',
  run: (ctx, { privilege }, opts) => privilegeFix(ctx, privilege, opts),
});
