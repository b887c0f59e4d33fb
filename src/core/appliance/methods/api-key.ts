import type { z } from 'zod';
import { apiKeyContract, type apiKeyEntry } from '../../contract/api-key.js';
import { ERRNO, rpcErrors, type ValidationTriple } from '../../errors.js';
import {
  deleteApiKey,
  findApiKey,
  insertApiKey,
  listApiKeys,
  updateApiKey,
  type ApiKeyRecord,
} from '../../store/api-keys.js';
import { generateKeySecret, hashSecret } from '../../store/secrets.js';
import { apiKeyContract26, type apiKeyEntry26 } from '../../contract/v26_0_0/api-key.js';
import { scramAuthData, type ScramAuthData } from '../../net/scram.js';
import {
  deleteApiKeyScram,
  listApiKeyScram,
  writeApiKeyScram,
  type ApiKeyScramRecord,
} from '../../store/api-key-scram.js';
import { scramDataFor } from '../session/scram-keys.js';
import { AccountsSnapshot } from '../accounts/accounts.js';
import type { ParamValues } from '../../contract/method.js';
import { implement, type CallContext } from '../method.js';
import { getInstance, query } from '../query/index.js';

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
    throw rpcErrors.call(
      ERRNO.EACCES,
      `${caller}: authenticated user lacks privileges to create or modify API keys of other users.`,
    );
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
  const { keys, accounts } = store.read(() => ({
    keys: listApiKeys(store.db),
    accounts: AccountsSnapshot.load(store.db),
  }));
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
  if (expiresAt !== null && Date.now() > expiresAt)
    errors.push([schema, 'Expiration date is in the past', ERRNO.EINVAL]);
  return errors;
}

type CreateData = ParamValues<(typeof apiKeyContract)['api_key.create']['params']>[0];
type UpdateData = ParamValues<(typeof apiKeyContract)['api_key.update']['params']>[1];

/** MW/plugins/api_key.py do_create: the privilege check first, then every validation error at once. */
async function createKey(ctx: CallContext, data: CreateData): Promise<ApiKeyEntry & { key: string }> {
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
        errors.push([
          'api_key_create.username',
          `User already meets or exceeds maximum per-user API key limit of ${MAX_KEYS_PER_USER}`,
          ERRNO.EINVAL,
        ]);
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
}

/**
 * MW/plugins/api_key.py do_update: an unknown id fails in `query(..., {get: true})` (MatchNotFound);
 * the owner is checked before validation; `reset` gives a new secret and clears the revoked flag
 * (the revoked_reason stays, as `compress` leaves it).
 */
async function updateKey(
  ctx: CallContext,
  id: number,
  data: UpdateData,
): Promise<ApiKeyEntry | (ApiKeyEntry & { key: string })> {
  return (await updateKeyWith(ctx, id, data, undefined)).answer;
}

/**
 * api_key.update; `scramOf` gives a reset key its SCRAM data (26.0). The new secret's hash and its
 * SCRAM data are derived first and written in one transaction, as 26 writes both in one
 * `datastore.update` (MW/plugins/api_key.py:265-276 at stable/26): of resets racing on one key, the
 * last written is the key for every login, never a plain hash of one with another's SCRAM data.
 */
async function updateKeyWith(
  ctx: CallContext,
  id: number,
  data: UpdateData,
  scramOf: ((secret: string) => Promise<ScramAuthData>) | undefined,
): Promise<{ answer: ApiKeyEntry | (ApiKeyEntry & { key: string }); scram: ScramAuthData | undefined }> {
  const { store } = ctx.appliance;
  const old = allEntries(ctx).find((e) => e.id === id);
  if (!old) throw rpcErrors.matchNotFound();
  refuseOthersKey(ctx, old.username);
  const secret = data.reset ? generateKeySecret() : null;
  const [keyHash, scram] =
    secret === null ? [null, undefined] : await Promise.all([hashSecret(secret), scramOf?.(secret)]);
  const next = {
    ...old,
    name: data.name ?? old.name,
    expires_at: data.expires_at === undefined ? old.expires_at : data.expires_at,
  };
  store.write(() => {
    const record = findApiKey(store.db, id);
    // Deleted while the secret was hashed: as 26's query of the key would find none.
    if (!record) throw rpcErrors.matchNotFound();
    const expiresAt = next.expires_at?.$date ?? null;
    const errors = validateNameAndExpiry(listApiKeys(store.db), 'api_key_update', next.name, expiresAt, id);
    if (errors.length > 0) throw rpcErrors.validation(errors);
    updateApiKey(store.db, id, {
      name: next.name,
      expires_at: expiresAt === null ? null : wholeSeconds(expiresAt),
      key_hash: keyHash ?? record.key_hash,
      revoked: secret === null ? old.revoked : false,
    });
    // SCRAM data derived from the old secret would no longer match it.
    if (scram)
      writeApiKeyScram(store.db, {
        key_id: id,
        iterations: scram.iterations,
        salt: scram.salt,
        stored_key: scram.stored_key,
        server_key: scram.server_key,
      });
    else if (secret !== null) deleteApiKeyScram(store.db, id);
  });
  if (secret === null) return { answer: next, scram };
  return {
    answer: { ...next, keyhash: mayManageOthers(ctx) ? keyHash! : REDACTED, revoked: false, key: `${id}-${secret}` },
    scram,
  };
}

export const apiKeyMethods = [
  implement(apiKeyContract['api_key.query'], (ctx, filters, options) => query(allEntries(ctx), filters, options)),
  implement(apiKeyContract['api_key.get_instance'], (ctx, id, options) =>
    getInstance(allEntries(ctx), id, options, 'ApiKey'),
  ),
  implement(apiKeyContract['api_key.my_keys'], (ctx) => {
    const caller = ctx.session.credentials!.username;
    return allEntries(ctx).filter((e) => e.username === caller);
  }),
  implement(apiKeyContract['api_key.create'], createKey),
  implement(apiKeyContract['api_key.update'], updateKey),
  implement(apiKeyContract['api_key.delete'], (ctx, id) => {
    const { store } = ctx.appliance;
    const old = allEntries(ctx).find((e) => e.id === id);
    if (!old) throw rpcErrors.instanceNotFound('ApiKey', id);
    refuseOthersKey(ctx, old.username);
    store.write(() => deleteApiKey(store.db, id));
    return true as const;
  }),
];

// --- 26.0 (contract/v26_0_0/api-key.ts), served where the contract holds 26.0's SCRAM entries ---

type ApiKeyEntry26 = z.output<ReturnType<typeof apiKeyEntry26>>;

/**
 * ApiKeyEntry in 26: `keyhash` gone, the SCRAM data in its place, `salt`, `stored_key` and
 * `server_key` redacted like any Secret field for callers who are neither FULL_ADMIN nor
 * API_KEY_WRITE holders (MW/main.py:982-993 at stable/26). A key made before the emulator served
 * SCRAM has none (26's upgrade converts every key; stor cannot, docs/REMOTE.md "SCRAM login (TrueNAS 26)"):
 * `iterations` 0 and empty strings.
 */
function entry26(
  ctx: CallContext,
  e: ApiKeyEntry,
  scram: ApiKeyScramRecord | ScramAuthData | undefined,
): ApiKeyEntry26 {
  const secret = (value: string | undefined) => (mayManageOthers(ctx) ? (value ?? '') : REDACTED);
  return {
    id: e.id,
    name: e.name,
    username: e.username,
    user_identifier: e.user_identifier,
    iterations: scram?.iterations ?? 0,
    salt: secret(scram?.salt),
    stored_key: secret(scram?.stored_key),
    server_key: secret(scram?.server_key),
    created_at: e.created_at,
    expires_at: e.expires_at,
    local: e.local,
    revoked: e.revoked,
    revoked_reason: e.revoked_reason,
  };
}

function allEntries26(ctx: CallContext): ApiKeyEntry26[] {
  const { store } = ctx.appliance;
  const scram = store.read(() => listApiKeyScram(store.db));
  return allEntries(ctx).map((e) => entry26(ctx, e, scram.get(e.id)));
}

/** `generate_api_key_auth_data` of the secret, stored with the key (MW/plugins/api_key.py:206-217, 266-269 at stable/26). */
function storeScram(ctx: CallContext, id: number, data: ScramAuthData): void {
  const { store } = ctx.appliance;
  store.write(() =>
    writeApiKeyScram(store.db, {
      key_id: id,
      iterations: data.iterations,
      salt: data.salt,
      stored_key: data.stored_key,
      server_key: data.server_key,
    }),
  );
}

const RAW_KEY = /^\d+-[a-zA-Z0-9]{64}$/;

export const apiKeyMethods26 = [
  implement(apiKeyContract26['api_key.query'], (ctx, filters, options) => query(allEntries26(ctx), filters, options)),
  implement(apiKeyContract26['api_key.get_instance'], (ctx, id, options) =>
    getInstance(allEntries26(ctx), id, options, 'ApiKey'),
  ),
  implement(apiKeyContract26['api_key.my_keys'], (ctx) => {
    const caller = ctx.session.credentials!.username;
    return allEntries26(ctx).filter((e) => e.username === caller);
  }),
  // 25.10.1's checks and writes, then the SCRAM data of the new secret; `client_key` answered once.
  implement(apiKeyContract26['api_key.create'], async (ctx, data) => {
    const created = await createKey(ctx, data);
    const scram = await scramDataFor(created.key.slice(created.key.indexOf('-') + 1));
    storeScram(ctx, created.id, scram);
    return { ...entry26(ctx, created, scram), key: created.key, client_key: scram.client_key };
  }),
  implement(apiKeyContract26['api_key.update'], async (ctx, id, data) => {
    const { answer: updated, scram } = await updateKeyWith(ctx, id, data, scramDataFor);
    if (!('key' in updated) || !scram)
      return allEntries26(ctx).find((e) => e.id === id) ?? entry26(ctx, updated, undefined);
    return { ...entry26(ctx, updated, scram), key: updated.key, client_key: scram.client_key };
  }),
  /**
   * MW/plugins/api_key.py:407-448 at stable/26: the raw key's SCRAM data with the stored salt and
   * the default 500,000 rounds. It does not check the secret against the key (a convenience for
   * clients, as its docstring says); errors are validation errors under `api_key_convert_raw_key`.
   */
  implement(apiKeyContract26['api_key.convert_raw_key'], async (ctx, rawKey) => {
    const raw = rawKey.trim();
    const errors: ValidationTriple[] = [];
    const err = (message: string) => errors.push(['api_key_convert_raw_key', message, ERRNO.EINVAL]);
    let keyId = 0;
    let secret = '';
    let salt: Buffer | undefined;
    if (!RAW_KEY.test(raw)) err('Not a valid raw API key');
    else {
      keyId = Number(raw.slice(0, raw.indexOf('-')));
      secret = raw.slice(raw.indexOf('-') + 1);
      if (keyId <= 0) err('Invalid key id');
      const found = allEntries26(ctx).find((e) => e.id === keyId);
      const stored = ctx.appliance.store.read(() => listApiKeyScram(ctx.appliance.store.db).get(keyId));
      if (!found) err('Key does not exist.');
      else if (found.revoked) err('Key is revoked.');
      else if (stored) salt = Buffer.from(stored.salt, 'base64');
    }
    if (errors.length > 0) throw rpcErrors.validation(errors);
    const data = await scramAuthData(secret, salt);
    return {
      api_key_id: keyId,
      iterations: data.iterations,
      salt: data.salt,
      client_key: data.client_key,
      stored_key: data.stored_key,
      server_key: data.server_key,
    };
  }),
];
