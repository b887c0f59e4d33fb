import { call } from '../../core/contract/client.js';
import type { CommandContext } from '../framework/context.js';
import { confirmChange } from '../shared/prompts.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { arg, defineCommand, ignoreNotFoundFlag, yesFlag } from '../framework/declare.js';
import { lookupOrNothing, nothingDeleted, type NothingDeleted } from '../shared/ignore-not-found.js';
import { findApiKey, keyInUse } from './model.js';

/** `stor api-key revoke --json` */
export interface ApiKeyRevoked {
  id: number;
  name: string;
  username: string | null;
  revoked: true;
}

export async function apiKeyRevoke(
  ctx: CommandContext,
  ref: string,
  yes: boolean,
  ignoreNotFound = false,
): Promise<CommandResult<ApiKeyRevoked | NothingDeleted>> {
  const t = await ctx.transport();
  const lookup = await lookupOrNothing(ignoreNotFound, () => findApiKey(t, ref));
  if ('missing' in lookup) return nothingDeleted(ctx, ref, lookup.missing);
  const key = lookup.found;
  const own =
    (await keyInUse(ctx)) === key.id
      ? ' It is the key stor is logged in with: the commands after this one that use it will be refused.'
      : '';
  await confirmChange(
    ctx,
    `Revoke API key ${key.id} "${key.name}" of ${key.username ?? 'a deleted user'}? Anything logging in with it will be refused.${own}`,
    yes,
  );
  // 25.10.1 revokes only by deleting: api_key.update has no `revoked` (MW/api/v25_10_1/api_key.py ApiKeyUpdate).
  await call(t, 'api_key.delete', [key.id]);
  const data: ApiKeyRevoked = { id: key.id, name: key.name, username: key.username, revoked: true };
  return recordResult(data, {
    fields: [
      ['id', key.id],
      ['name', key.name],
      ['user', key.username],
      ['revoked', true],
    ],
  });
}

export const apiKeyRevokeCommand = defineCommand({
  summary: 'revoke an API key by id or name (asks first; --yes when not on a terminal)',
  effect: 'change',
  calls: ['api_key.delete', 'api_key.query'],
  asks: true,
  args: { key: arg.required('id or name of the key') },
  options: { yes: yesFlag(), ignoreNotFound: ignoreNotFoundFlag() },
  examples: [
    'stor api-key revoke backup-key',
    'stor api-key revoke 7 --yes',
    'stor api-key revoke backup-key --yes --ignore-not-found',
  ],
  notes:
    'The key is deleted (api_key.delete): 25.10.1 has no other way to revoke one. A name several keys share is refused with their ids.',
  fanOut: 'change',
  run: (ctx, { key }, opts) => apiKeyRevoke(ctx, key, opts.yes, opts.ignoreNotFound),
});
