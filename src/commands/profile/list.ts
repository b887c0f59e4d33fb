import type { CommandContext } from '../shared/context.js';
import type { CommandResult } from '../shared/render.js';
import { profileStore } from './store.js';
import { defineCommand } from '../shared/declare.js';

/** One row of `stor profile list --json`; the key is never listed. */
export interface ProfileSummary {
  name: string;
  url: string;
  current: boolean;
  insecure: boolean;
  ca: string | null;
  rpc: 'ws' | 'http';
}

export async function profileList(ctx: CommandContext): Promise<CommandResult<ProfileSummary[]>> {
  const doc = await profileStore(ctx).read();
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

export const profileListCommand = defineCommand({
  summary: 'list saved profiles; * marks the current one (keys are never shown)',
  examples: ['stor profile list', 'stor profile list --json'],
  run: (ctx) => profileList(ctx),
});
