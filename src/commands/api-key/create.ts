import { call } from '../../core/contract/client.js';
import { RpcError, RPC_CODE, StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';
import { futureMoment } from '../framework/arg-parsers.js';
import type { CommandContext } from '../framework/context.js';
import { formatTime } from '../output/format.js';
import { type CommandResult, recordResult, tableResult } from '../output/render.js';
import { arg, defineCommand, value } from '../framework/declare.js';
import { iso } from './model.js';
import { LACKS_ROLES, privilegeAdvice } from './privilege-advice.js';

/** `stor api-key create --json`: the only time the key is ever shown. */
export interface ApiKeyCreated {
  id: number;
  name: string;
  username: string;
  /** ISO 8601, UTC. */
  created_at: string;
  expires_at: string | null;
  /** `<id>-<secret>`: what STOR_API_KEY or `stor login --api-key-stdin` take. */
  key: string;
}

const options = {
  user: value('<user>', 'the local user the key logs in as (required)'),
  expires: value(
    '<date>',
    'when the key stops working: ISO 8601 date or date-time, local time unless it has an offset',
    { parse: futureMoment('--expires') },
  ),
};

export async function apiKeyCreate(
  ctx: CommandContext,
  name: string,
  user: string | undefined,
  expires: number | undefined,
): Promise<CommandResult<ApiKeyCreated>> {
  if (user === undefined)
    throw new StorError(E.USAGE, 'say whose key it is: --user USER', {
      hint: 'e.g. `stor api-key create backup-key --user backup`',
    });
  const t = await ctx.transport();
  let created;
  try {
    created = await call(t, 'api_key.create', [
      { name, username: user, expires_at: expires === undefined ? null : { $date: expires } },
    ]);
  } catch (err) {
    if (
      err instanceof RpcError &&
      err.code === RPC_CODE.INVALID_PARAMS &&
      err.triples.some(([, message]) => message === LACKS_ROLES)
    ) {
      const others = err.triples
        .filter(([, message]) => message !== LACKS_ROLES)
        .map(([attr, message]) => `${attr ?? 'ALL'}: ${message}`);
      throw new StorError(
        E.USER_WITHOUT_ROLES,
        `${user} holds no privilege roles, so the appliance will not create an API key for it ("${LACKS_ROLES}"); ${await privilegeAdvice(t, user)}` +
          (others.length ? `. The appliance also said: ${others.join('; ')}` : ''),
      );
    }
    throw err;
  }
  const data: ApiKeyCreated = {
    id: created.id,
    name: created.name,
    username: user,
    created_at: iso(created.created_at.$date),
    expires_at: created.expires_at ? iso(created.expires_at.$date) : null,
    key: created.key,
  };
  ctx.note('This key is shown only now and cannot be shown again: store it (e.g. in a file only you can read).');
  // Piped, the key alone, so `key=$(stor api-key create …)` captures exactly it.
  if (!ctx.io.stdout.isTTY) return tableResult(data, { columns: ['key'], rows: [[data.key]] });
  return recordResult(data, {
    heading: `API key ${data.id} "${data.name}" for ${user}`,
    fields: [
      ['expires', created.expires_at ? formatTime(new Date(created.expires_at.$date), ctx.io.env.TZ) : 'never'],
      ['key', data.key],
    ],
  });
}

export const apiKeyCreateCommand = defineCommand({
  summary: 'create an API key for a user and print it once (stdout; the key alone when piped)',
  effect: 'change',
  calls: ['api_key.create'],
  args: { name: arg.required('a name for the key, unique on the appliance') },
  options,
  examples: [
    'stor api-key create backup-key --user backup > backup.key',
    'stor api-key create ci --user ci --expires 2027-06-30',
    'stor api-key create ci --user ci --json',
  ],
  notes:
    'The key is printed once and never again: redirect it to a file. A warning saying so goes to stderr. ' +
    'The user must hold roles through a privilege bound to one of its groups; when it holds none, the error says which privilege to bind.',
  run: (ctx, { name }, opts) => apiKeyCreate(ctx, name, opts.user, opts.expires),
});
