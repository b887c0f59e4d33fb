import type { CommandContext } from '../framework/context.js';
import { formatTime } from '../output/format.js';
import { type CommandResult, shown, tableResult } from '../output/render.js';
import { defineCommand } from '../framework/declare.js';
import { listApiKeys, summary, type ApiKeySummary } from './model.js';

export async function apiKeyList(ctx: CommandContext): Promise<CommandResult<ApiKeySummary[]>> {
  const t = await ctx.transport();
  const keys = await listApiKeys(t);
  const data = keys.map((k) => summary(k));
  return tableResult(data, {
    // The id and name name the key, the user whose it is: never cut. Narrow, the times go first.
    columns: [
      { header: 'id', key: true },
      { header: 'name', key: true },
      { header: 'user', key: true },
      { header: 'created', minor: true },
      'expires',
      { header: 'revoked', overflow: 'wrap' },
    ],
    rows: data.map((k, i) => [
      k.id,
      k.name,
      k.username,
      shown(k.created_at, formatTime(new Date(keys[i]!.created_at.$date), ctx.io.env.TZ)),
      k.expires_at === null
        ? shown(null, 'never')
        : shown(
            k.expires_at,
            `${formatTime(new Date(k.expires_at), ctx.io.env.TZ)}${k.expired ? ' (expired)' : ''}`,
            k.expired ? 'warning' : undefined,
          ),
      k.revoked ? (k.revoked_reason ? `yes: ${k.revoked_reason}` : 'yes') : 'no',
    ]),
    empty: 'No API keys.',
  });
}

export const apiKeyListCommand = defineCommand({
  summary: 'list API keys: id, name, user, created, expires, revoked (never the keys)',
  effect: 'read',
  calls: ['api_key.query'],
  fanOut: 'read',
  examples: ['stor api-key list', 'stor api-key list --json | jq \'.[] | select(.username == "backup")\''],
  notes:
    'Times are local on a terminal and ISO 8601 UTC in --json. A key is shown only once, by `stor api-key create`.',
  run: (ctx) => apiKeyList(ctx),
});
