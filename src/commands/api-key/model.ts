import { queryItems, type Needed } from '../../core/contract/client.js';
import { StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';
import type { Transport } from '../../core/transport/transport.js';
import type { CommandContext } from '../framework/context.js';

const FIELDS = ['id', 'name', 'username', 'created_at', 'expires_at', 'revoked', 'revoked_reason'] as const;

/** An `api_key.query` item with the fields the api-key verbs read; never the key or its hash. */
export type ApiKey = Needed<'api_key.query', (typeof FIELDS)[number]>;

/** One row of `stor api-key list --json`. 25.10.1 keeps no "last used" time for a key. */
export interface ApiKeySummary {
  id: number;
  name: string;
  /** Null for a key whose user is gone (the appliance shows it revoked). */
  username: string | null;
  /** ISO 8601, UTC. */
  created_at: string;
  expires_at: string | null;
  expired: boolean;
  revoked: boolean;
  revoked_reason: string | null;
}

export const iso = (ms: number): string => new Date(ms).toISOString();

export function summary(k: ApiKey, now = Date.now()): ApiKeySummary {
  return {
    id: k.id,
    name: k.name,
    username: k.username,
    created_at: iso(k.created_at.$date),
    expires_at: k.expires_at ? iso(k.expires_at.$date) : null,
    expired: k.expires_at !== null && k.expires_at.$date <= now,
    revoked: k.revoked,
    revoked_reason: k.revoked_reason,
  };
}

export async function listApiKeys(t: Transport, filters: unknown[] = []): Promise<ApiKey[]> {
  // `select` keeps the hash off the wire: nothing here needs it.
  return queryItems(t, 'api_key.query', FIELDS, filters, { select: [...FIELDS] });
}

/** A key by id, else by name; a name several keys share is refused with their ids. */
export async function findApiKey(t: Transport, ref: string): Promise<ApiKey> {
  const all = await listApiKeys(t);
  const byId = /^\d+$/.test(ref) ? all.find((k) => k.id === Number(ref)) : undefined;
  if (byId) return byId;
  const named = all.filter((k) => k.name === ref);
  if (named.length > 1) {
    throw new StorError(
      E.AMBIGUOUS_NAME,
      `${named.length} API keys are named ${JSON.stringify(ref)}: ids ${named.map((k) => k.id).join(', ')}`,
      {
        hint: 'name the key by its id',
      },
    );
  }
  if (named.length === 0) {
    throw new StorError(E.NOT_FOUND, `no API key with id or name ${JSON.stringify(ref)}`, {
      hint: '`stor api-key list` shows them all',
    });
  }
  return named[0]!;
}

/**
 * The id of the API key this command logs in with, when it logs in with one: a key is
 * `<id>-<secret>` (MW/plugins/api_key.py:232, `f"{data['id']}-{key}"`), so its id is known without a call.
 */
export async function keyInUse(ctx: CommandContext): Promise<number | undefined> {
  const id = /^(\d+)-/.exec((await ctx.target()).apiKey ?? '')?.[1];
  return id === undefined ? undefined : Number(id);
}
