import { call, queryItems } from '../../core/contract/client.js';
import { hasAppliance } from '../../core/store/state-file.js';
import type { Transport } from '../../core/transport/transport.js';
import type { CommandContext } from '../framework/context.js';
import { openTarget } from '../framework/open-target.js';
import { profileStore } from '../profile/store.js';
import { listShares, nameOf, refOf } from '../share/model.js';
import { EMBEDDED_PROFILE } from '../../core/config/profiles.js';
import { abandonWork } from '../startup/abandoned-work.js';

/**
 * A completion must not hang the shell: everything (connecting, logging in, asking) ends within
 * this long, one deadline for all of it, not a timeout per step.
 */
const COMPLETION_DEADLINE_SECONDS = 3;

/**
 * The completion's deadline in seconds. STOR_COMPLETION_TIMEOUT sets it, for a target that a slow
 * link or a busy machine cannot reach in 3 s (up to 60); anything that is no such number leaves the
 * default, since completion never prints an error into the shell. A `--timeout` given on the
 * command line lowers it; the default `--timeout` (30 s) does not, or the variable could never go
 * past 30 (the shell scripts pass none).
 */
export function completionDeadlineSeconds(
  timeoutGiven: number | undefined,
  env: Record<string, string | undefined>,
): number {
  const raw = env.STOR_COMPLETION_TIMEOUT?.trim();
  const seconds = raw && /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : NaN;
  const wanted = seconds > 0 && seconds <= 60 ? seconds : COMPLETION_DEADLINE_SECONDS;
  return timeoutGiven === undefined ? wanted : Math.min(timeoutGiven, wanted);
}

/** Candidates offered at most: a shell lists them all, and a target may hold hundreds of thousands. */
export const MAX_CANDIDATES = 1000;

// A candidate is inserted into the command line: any control (a newline would even split it into
// two candidates) could repaint the terminal or smuggle in more than the name. Such a name is not
// offered at all; stripped, it would name something else.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Candidates for one kind of value, for the completion scripts: starting with `prefix`, without
 * controls, sorted, at most MAX_CANDIDATES. Anything that fails (no target, no rights, the
 * deadline) yields no candidates: completion never prints an error into the shell.
 */
export async function candidateValues(ctx: CommandContext, kind: string, prefix: string): Promise<string[]> {
  const deadline = performance.now() + completionDeadlineSeconds(ctx.globals.timeout, ctx.io.env) * 1000;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string[]>((resolve) => {
    timer = setTimeout(() => {
      abandonWork();
      resolve([]);
    }, deadline - performance.now());
  });
  try {
    const found = await Promise.race([lookup(ctx, kind, prefix, deadline), late]);
    return found
      .filter((v) => typeof v === 'string' && v.startsWith(prefix) && !CONTROL.test(v))
      .sort()
      .slice(0, MAX_CANDIDATES);
  } catch {
    return [];
  } finally {
    clearTimeout(timer);
  }
}

async function lookup(ctx: CommandContext, kind: string, prefix: string, deadline: number): Promise<string[]> {
  if (kind === 'profile') return [EMBEDDED_PROFILE, ...Object.keys((await profileStore(ctx).read()).profiles)];
  const spec = await ctx.target();
  // Opening the embedded appliance would create and seed its state: a TAB must leave nothing behind.
  if (spec.kind === 'embedded' && !hasAppliance(spec.stateDir)) return [];
  // What is left of the deadline bounds each step on its own too, so the work given up on ends soon.
  const t = await openTarget(spec, Math.max(0.1, (deadline - performance.now()) / 1000));
  try {
    return await ask(t, kind, prefix);
  } finally {
    await t.close();
  }
}

async function ask(t: Transport, kind: string, prefix: string): Promise<string[]> {
  switch (kind) {
    case 'privilege': {
      const privileges = await queryItems(t, 'privilege.query', ['id', 'name'], [], { select: ['id', 'name'] });
      return privileges.flatMap((p) => [p.name, String(p.id)]);
    }
    case 'method':
      return Object.keys(await call(t, 'core.get_methods'));
    case 'dataset':
      return (await queryItems(t, 'pool.dataset.query', ['id'], [], { select: ['id'] })).map((d) => d.id);
    case 'service':
      return (await queryItems(t, 'service.query', ['service'], [], { select: ['service'] })).map((s) => s.service);
    case 'share': {
      const shares = await listShares(t);
      return shares.flatMap((s) => [refOf(s), nameOf(s)]);
    }
    case 'snapshot-task':
      return (await queryItems(t, 'pool.snapshottask.query', ['id'], [], { select: ['id'] })).map((s) => String(s.id));
    case 'replication': {
      const tasks = await queryItems(t, 'replication.query', ['id', 'name'], [], { select: ['id', 'name'] });
      return tasks.flatMap((r) => [r.name, String(r.id)]);
    }
    case 'smb-purpose':
      return Object.keys(await call(t, 'sharing.smb.presets'));
    case 'remote-path': {
      if (!prefix.startsWith('/mnt/')) return ['/mnt/'];
      const dir = prefix.slice(0, prefix.lastIndexOf('/')) || '/';
      const entries = await queryItems(t, 'filesystem.listdir', ['path', 'type'], [], {}, [dir]);
      return entries.map((e) => (e.type === 'DIRECTORY' ? `${e.path}/` : e.path));
    }
    default:
      return [];
  }
}
