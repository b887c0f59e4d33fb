import { EMBEDDED_PROFILE, profileNamed, type Profile } from '../../core/config/profiles.js';
import type { CommandContext } from '../framework/context.js';
import { type CommandResult, tableResult } from '../output/render.js';
import { profileStore } from './store.js';
import { defineCommand } from '../framework/declare.js';

/** One row of `stor profile list --json`; the key is never listed. */
export interface ProfileSummary {
  name: string;
  /** `embedded`: the embedded appliance, first and always listed (docs/REMOTE.md "Remote appliances"). */
  kind: 'embedded' | 'remote';
  /** Null for the embedded appliance, which has none. */
  url: string | null;
  /** True for the profile commands use when no flag or variable names one. */
  current: boolean;
  /** `none` for ws:// and http://; for wss:// and https://, how the certificate is checked. */
  tls: ProfileTls;
  insecure: boolean;
  ca: string | null;
  /** Null for the embedded appliance (called in-process). */
  rpc: 'ws' | 'http' | null;
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
  const saved = Object.entries(doc.profiles).map(([name, p]): ProfileSummary => ({
    name,
    kind: 'remote',
    url: p.url,
    current: doc.current === name,
    tls: tlsOf(p),
    insecure: p.insecure ?? false,
    ca: p.ca ?? null,
    rpc: p.rpc ?? 'ws',
    tags: p.tags ?? [],
  }));
  // Current when no saved profile is: what commands then use (a dangling `current` included).
  const embeddedCurrent = doc.current === undefined || !profileNamed(doc, doc.current);
  const embedded: ProfileSummary = {
    name: EMBEDDED_PROFILE,
    kind: 'embedded',
    url: null,
    current: embeddedCurrent,
    tls: 'none',
    insecure: false,
    ca: null,
    rpc: null,
    tags: [],
  };
  const data = [embedded, ...saved];
  return tableResult(data, {
    columns: [
      '',
      { header: 'name', key: true },
      { header: 'url', key: true },
      { header: 'tls', minor: true },
      { header: 'rpc', minor: true },
      { header: 'tags', overflow: 'wrap' },
    ],
    rows: data.map((p) => [
      p.current ? '*' : '',
      p.name,
      p.url ?? `(embedded) ${ctx.stateDir}`,
      p.tls === 'ca' ? `ca ${p.ca}` : p.tls,
      p.rpc,
      p.tags.join(','),
    ]),
    empty: 'No profiles: commands use the embedded appliance. Add one with `stor login --url <url>`.',
  });
}

export const profileListCommand = defineCommand({
  summary: 'list the embedded appliance and the saved profiles; * marks the current one (keys are never shown)',
  effect: 'read',
  examples: ['stor profile list', 'stor profile list --json'],
  run: (ctx) => profileList(ctx),
});
