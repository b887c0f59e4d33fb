import { call, queryItems } from '../../core/contract/client.js';
import { hasAppliance } from '../../core/store/state-file.js';
import type { Transport } from '../../core/transport/transport.js';
import { openTarget, type CommandContext } from '../shared/context.js';
import { profileStore } from '../profile/store.js';

/** A completion must not hang the shell: the target gets this long at most. */
const COMPLETION_TIMEOUT_SECONDS = 3;

/**
 * Candidates for one kind of value, for the completion scripts. Anything that fails (no target,
 * no rights, a timeout) yields no candidates: completion never prints an error into the shell.
 */
export async function candidateValues(ctx: CommandContext, kind: string, prefix: string): Promise<string[]> {
  try {
    const found = await lookup(ctx, kind, prefix);
    return found.filter((v) => v.startsWith(prefix)).sort();
  } catch {
    return [];
  }
}

async function lookup(ctx: CommandContext, kind: string, prefix: string): Promise<string[]> {
  if (kind === 'profile') return Object.keys((await profileStore(ctx).read()).profiles);
  const spec = await ctx.target();
  // Opening the embedded appliance would create and seed its state: a TAB must leave nothing behind.
  if (spec.kind === 'embedded' && !hasAppliance(spec.stateDir)) return [];
  const t = await openTarget(spec, Math.min(ctx.timeoutSeconds, COMPLETION_TIMEOUT_SECONDS));
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
