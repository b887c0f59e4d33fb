import type { Profile } from '../../core/config/profiles.js';
import type { CommandContext } from '../shared/context.js';
import type { CommandResult } from '../shared/render.js';
import { profileStore } from './store.js';
import { defineCommand } from '../shared/declare.js';

/** One row of `stor profile list --json`; the key is never listed. */
export interface ProfileSummary {
  name: string;
  url: string;
  current: boolean;
  /** `none` for ws:// and http://; for wss:// and https://, how the certificate is checked. */
  tls: ProfileTls;
  insecure: boolean;
  ca: string | null;
  rpc: 'ws' | 'http';
  /** What `--targets @tag` selects it by. */
  tags: string[];
}

export type ProfileTls = 'none' | 'verified' | 'insecure' | 'ca';

function tlsOf(profile: Profile): ProfileTls {
  // A bare host means wss://, as parseEndpoint reads it.
  if (/^(ws|http):\/\//i.test(profile.url)) return 'none';
  return profile.insecure ? 'insecure' : profile.ca ? 'ca' : 'verified';
}

export async function profileList(ctx: CommandContext): Promise<CommandResult<ProfileSummary[]>> {
  const doc = await profileStore(ctx).read();
  const data = Object.entries(doc.profiles).map(([name, p]) => ({
    name,
    url: p.url,
    current: doc.current === name,
    tls: tlsOf(p),
    insecure: p.insecure ?? false,
    ca: p.ca ?? null,
    rpc: p.rpc ?? 'ws',
    tags: p.tags ?? [],
  }));
  return {
    data,
    view: {
      kind: 'table',
      columns: ['', { header: 'name', key: true }, { header: 'url', key: true }, { header: 'tls', minor: true }, { header: 'rpc', minor: true }, { header: 'tags', overflow: 'wrap' }],
      rows: data.map((p) => [p.current ? '*' : '', p.name, p.url, p.tls === 'ca' ? `ca ${p.ca}` : p.tls, p.rpc, p.tags.join(',')]),
      empty: 'No profiles: commands use the embedded appliance. Add one with `stor login --url <url>`.',
    },
  };
}

export const profileListCommand = defineCommand({
  summary: 'list saved profiles; * marks the current one (keys are never shown)',
  effect: 'read',
  examples: ['stor profile list', 'stor profile list --json'],
  run: (ctx) => profileList(ctx),
});
