import { configDirFrom } from '../../core/config/paths.js';
import { ProfileStore } from '../../core/config/profiles.js';
import type { CommandContext } from '../shared/context.js';
import type { CommandResult } from '../shared/render.js';

/** One row of `stor profile list --json`; the key is never listed. */
export interface ProfileSummary {
  name: string;
  url: string;
  current: boolean;
  insecure: boolean;
  ca: string | null;
  rpc: 'ws' | 'http';
}

function store(ctx: CommandContext): ProfileStore {
  return new ProfileStore(configDirFrom(ctx.io.env));
}

export async function profileList(ctx: CommandContext): Promise<CommandResult<ProfileSummary[]>> {
  const doc = await store(ctx).read();
  const data = Object.entries(doc.profiles).map(([name, p]) => ({
    name,
    url: p.url,
    current: doc.current === name,
    insecure: p.insecure ?? false,
    ca: p.ca ?? null,
    rpc: p.rpc ?? 'ws',
  }));
  return {
    data,
    view: {
      kind: 'table',
      columns: ['', 'name', 'url', 'tls', 'rpc'],
      rows: data.map((p) => [p.current ? '*' : '', p.name, p.url, p.insecure ? 'insecure' : p.ca ? `ca ${p.ca}` : 'verified', p.rpc]),
      empty: 'No profiles: commands use the embedded appliance. Add one with `stor login --url <url>`.',
    },
  };
}

export interface ProfileChange {
  profile: string;
  current: boolean;
}

export async function profileUse(ctx: CommandContext, name: string): Promise<CommandResult<ProfileChange>> {
  await store(ctx).use(name);
  return { data: { profile: name, current: true }, view: { kind: 'lines', lines: [`Profile "${name}" is now current.`] } };
}

export async function profileRemove(ctx: CommandContext, name: string): Promise<CommandResult<ProfileChange>> {
  const wasCurrent = await store(ctx).remove(name);
  return { data: { profile: name, current: false }, view: { kind: 'lines', lines: [`Removed profile "${name}"${wasCurrent ? ' (it was current)' : ''}.`] } };
}
