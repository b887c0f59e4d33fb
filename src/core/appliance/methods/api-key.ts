import type { z } from 'zod';
import { apiKeyContract, type apiKeyEntry } from '../../contract/api-key.js';
import { ERRNO, rpcErrors, type ValidationTriple } from '../../errors.js';
import { deleteApiKey, findApiKey, insertApiKey, listApiKeys, updateApiKey, type ApiKeyRecord } from '../../store/api-keys.js';
import { generateKeySecret, hashSecret } from '../../store/secrets.js';
import { AccountsSnapshot } from '../accounts/accounts.js';
import { implement, type CallContext } from '../method.js';
import { asInstance, query } from '../query/index.js';

// The handlers of contract/api-key.ts, as `MW/plugins/api_key.py` answers them.

type ApiKeyEntry = z.output<ReturnType<typeof apiKeyEntry>>;

/** PAM_TDB_MAX_KEYS (MW/utils/user_api_key.py). */
const MAX_KEYS_PER_USER = 10;
const REDACTED = '********';

/**
 * FULL_ADMIN and API_KEY_WRITE holders may manage anyone's keys and see real hashes; others only
 * their own keys, and hashes redacted (`api_key_privilege_check`, MW/main.py:835-845).
 */
function mayManageOthers(ctx: CallContext): boolean {
  return ctx.session.holdsAny(['API_KEY_WRITE']);
}

function refuseOthersKey(ctx: CallContext, owner: string | null): void {
  const caller = ctx.session.credentials!.username;
  if (owner !== caller && !mayManageOthers(ctx)) {
    throw rpcErrors.call(ERRNO.EACCES, `${caller}: authenticated user lacks privileges to create or modify API keys of other users.`);
  }
}

/** The expiry as the database keeps it: whole epoch seconds (`expiry`, MW/plugins/api_key.py `compress`). */
const wholeSeconds = (ms: number) => Math.floor(ms / 1000) * 1000;

/** `api_key.item_extend`: a key whose owner is gone shows as revoked, `User does not exist`. */
function entry(ctx: CallContext, k: ApiKeyRecord, usernames: Map<number, string>): ApiKeyEntry {
  const username = usernames.get(k.user_id) ?? null;
  return {
    id: k.id,
    name: k.name,
    username,
    user_identifier: k.user_id,
    keyhash: mayManageOthers(ctx) ? k.key_hash : REDACTED,
    created_at: { $date: k.created_at },
    expires_at: k.expires_at === null ? null : { $date: k.expires_at },
    local: true,
    revoked: username === null ? true : k.revoked,
    revoked_reason: username === null ? 'User does not exist' : k.revoked_reason,
  };
}

function usernamesOf(accounts: AccountsSnapshot): Map<number, string> {
  return new Map(accounts.users.map((u) => [u.id, u.username]));
}

function allEntries(ctx: CallContext): ApiKeyEntry[] {
  const { store } = ctx.appliance;
  const { keys, accounts } = store.read(() => ({ keys: listApiKeys(store.db), accounts: AccountsSnapshot.load(store.db) }));
  const names = usernamesOf(accounts);
  return keys.map((k) => entry(ctx, k, names));
}

/** `_validate` (MW/plugins/api_key.py): the name, then the expiry, under `api_key_create` or `api_key_update`. */
function validateNameAndExpiry(
  keys: ApiKeyRecord[],
  schema: 'api_key_create' | 'api_key_update',
  name: string,
  expiresAt: number | null,
  id: number | null,
): ValidationTriple[] {
  const errors: ValidationTriple[] = [];
  if (keys.some((k) => k.name === name && k.id !== id)) errors.push([schema, 'name must be unique', ERRNO.EINVAL]);
  if (expiresAt !== null && Date.now() > expiresAt) errors.push([schema, 'Expiration date is in the past', ERRNO.EINVAL]);
  return errors;
}

export const apiKeyMethods = [
  implement(apiKeyContract['api_key.query'], (ctx, filters, options) => query(allEntries(ctx), filters, options)),
  implement(apiKeyContract['api_key.get_instance'], (ctx, id, options) => {
    const found = allEntries(ctx).filter((e) => e.id === id);
    if (found.length === 0) throw rpcErrors.instanceNotFound('ApiKey', id);
    return asInstance(query(found, [], { ...options, get: true }));
  }),
  implement(apiKeyContract['api_key.my_keys'], (ctx) => {
    const caller = ctx.session.credentials!.username;
    return allEntries(ctx).filter((e) => e.username === caller);
  }),
  // MW/plugins/api_key.py do_create: the privilege check first, then every validation error at once.
  implement(apiKeyContract['api_key.create'], async (ctx, data) => {
    refuseOthersKey(ctx, data.username);
    const { store } = ctx.appliance;
    const secret = generateKeySecret();
    const keyHash = await hashSecret(secret);
    const createdAt = Date.now();
    const expiresAt = data.expires_at?.$date ?? null;
    const { id, userId } = store.write(() => {
      const accounts = AccountsSnapshot.load(store.db);
      const keys = listApiKeys(store.db);
      const user = accounts.users.find((u) => u.username === data.username);
      const errors = validateNameAndExpiry(keys, 'api_key_create', data.name, expiresAt, null);
      if (!user) errors.push(['api_key_create', 'User does not exist.', ERRNO.EINVAL]);
      else {
        // `user.query` roles: the unexpanded roles of the privileges the user's groups match.
        if (accounts.privilegesForGids(accounts.gidsOf(user)).every((p) => p.roles.length === 0)) {
          errors.push(['api_key_create', 'User lacks privilege role membership.', ERRNO.EINVAL]);
        }
        if (keys.filter((k) => k.user_id === user.id).length >= MAX_KEYS_PER_USER) {
          errors.push(['api_key_create.username', `User already meets or exceeds maximum per-user API key limit of ${MAX_KEYS_PER_USER}`, ERRNO.EINVAL]);
        }
      }
      if (errors.length > 0) throw rpcErrors.validation(errors);
      const newId = insertApiKey(store.db, {
        name: data.name,
        user_id: user!.id,
        key_hash: keyHash,
        created_at: createdAt,
        expires_at: expiresAt === null ? null : wholeSeconds(expiresAt),
        revoked: false,
        revoked_reason: null,
      });
      return { id: newId, userId: user!.id };
    });
    // The answer is the create payload plus what was stored: user_identifier as the string the
    // database holds, expires_at as sent (MW/plugins/api_key.py:205-232).
    return {
      id,
      name: data.name,
      username: data.username,
      user_identifier: String(userId),
      keyhash: mayManageOthers(ctx) ? keyHash : REDACTED,
      created_at: { $date: createdAt },
      expires_at: data.expires_at,
      local: true,
      revoked: false,
      revoked_reason: null,
      key: `${id}-${secret}`,
    };
  }),
  // MW/plugins/api_key.py do_update: an unknown id fails in `query(..., {get: true})` (MatchNotFound);
  // the owner is checked before validation; `reset` gives a new secret and clears the revoked flag
  // (the revoked_reason stays, as `compress` leaves it).
  implement(apiKeyContract['api_key.update'], async (ctx, id, data) => {
    const { store } = ctx.appliance;
    const old = allEntries(ctx).find((e) => e.id === id);
    if (!old) throw rpcErrors.matchNotFound();
    refuseOthersKey(ctx, old.username);
    const secret = data.reset ? generateKeySecret() : null;
    const keyHash = secret === null ? null : await hashSecret(secret);
    const next = { ...old, name: data.name ?? old.name, expires_at: data.expires_at === undefined ? old.expires_at : data.expires_at };
    store.write(() => {
      const record = findApiKey(store.db, id)!;
      const expiresAt = next.expires_at?.$date ?? null;
      const errors = validateNameAndExpiry(listApiKeys(store.db), 'api_key_update', next.name, expiresAt, id);
      if (errors.length > 0) throw rpcErrors.validation(errors);
      updateApiKey(store.db, id, {
        name: next.name,
        expires_at: expiresAt === null ? null : wholeSeconds(expiresAt),
        key_hash: keyHash ?? record.key_hash,
        revoked: secret === null ? old.revoked : false,
      });
    });
    if (secret === null) return next;
    return { ...next, keyhash: mayManageOthers(ctx) ? keyHash! : REDACTED, revoked: false, key: `${id}-${secret}` };
  }),
  implement(apiKeyContract['api_key.delete'], (ctx, id) => {
    const { store } = ctx.appliance;
    const old = allEntries(ctx).find((e) => e.id === id);
    if (!old) throw rpcErrors.instanceNotFound('ApiKey', id);
    refuseOthersKey(ctx, old.username);
    store.write(() => deleteApiKey(store.db, id));
    return true as const;
  }),
];
