import type { CommandContext } from '../framework/context.js';
import { choice, defineCommand } from '../framework/declare.js';
import { tableResult, toned, type CommandResult } from '../output/render.js';
import { listShares, nameOf, SHARE_KINDS, type Share, type ShareKind } from './model.js';

/** What the last-but-one column shows: an NFS share's hosts and networks, an SMB share's purpose. */
function reach(s: Share): string {
  if (s.kind === 'smb') return s.purpose;
  const all = [...s.hosts, ...s.networks];
  return all.length === 0 ? 'everybody' : all.join(', ');
}

/** `stor share list`: NFS and SMB shares in one table; `--json` the entries as answered, each with its kind. */
export async function shareList(ctx: CommandContext, kind: ShareKind | undefined): Promise<CommandResult<Share[]>> {
  const data = await listShares(await ctx.transport(), kind ? [kind] : SHARE_KINDS);
  return tableResult(data, {
    columns: [
      'kind',
      { header: 'id', align: 'right' },
      { header: 'name', key: true },
      { header: 'path', overflow: 'wrap', minor: true },
      'enabled',
      'ro',
      { header: 'hosts/networks or purpose', overflow: 'wrap' },
      { header: 'comment', overflow: 'wrap', minor: true },
    ],
    rows: data.map((s) => [
      s.kind,
      s.id,
      nameOf(s),
      s.path,
      toned(s.enabled, s.enabled ? undefined : 'warning'),
      s.kind === 'nfs' ? s.ro : s.readonly,
      reach(s),
      s.comment,
    ]),
    empty: kind ? `No ${kind.toUpperCase()} shares.` : 'No shares.',
  });
}

export const shareListCommand = defineCommand({
  summary: 'list the NFS and SMB shares in one table (an SMB share by its name, an NFS share by its path)',
  effect: 'read',
  calls: ['sharing.nfs.query', 'sharing.smb.query'],
  fanOut: 'read',
  options: { kind: choice(SHARE_KINDS, '<nfs|smb>', 'only shares of this kind') },
  examples: [
    'stor share list',
    'stor share list --kind smb --json',
    'stor share list --json | jq -r \'.[] | select(.enabled | not) | "\\(.kind):\\(.id)"\'',
  ],
  run: (ctx, _args, { kind }) => shareList(ctx, kind),
});
