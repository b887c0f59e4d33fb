import { z } from 'zod';
import { ERRNO, rpcErrors, type ValidationTriple } from '../errors.js';
import { deleteApiKey, findApiKey, insertApiKey, listApiKeys, type ApiKeyRecord } from '../store/api-keys.js';
import { generateKeySecret, hashSecret } from '../store/secrets.js';
import { AccountsSnapshot } from './accounts.js';
import { defineMethod, roles, type CallContext } from './method.js';
import { query } from './query.js';
import { QUERY_PARAMS } from './query-params.js';

const MAX_KEYS_PER_USER = 10;
const REDACTED = '********';

const dateParam = z.strictObject({ $date: z.number() });

const apiKeyCreate = z.strictObject({
  name: z.string().min(1).max(200),
  username: z.string().min(1).max(1024),
  expires_at: dateParam.nullable().default(null),
});

/** FULL_ADMIN and API_KEY_WRITE may manage anyone's keys; others only their own (facts §2.4). */
function mayManageOthers(ctx: CallContext): boolean {
  return ctx.session.holdsAny(['API_KEY_WRITE']);
}

function entry(ctx: CallContext, k: ApiKeyRecord, usernames: Map<number, string>): Record<string, unknown> {
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

export const apiKeyMethods = [
  defineMethod({
    name: 'api_key.query',
    summary: 'List API keys (the secret is never returned; the hash only to key administrators).',
    access: roles('API_KEY_READ'),
    params: QUERY_PARAMS,
    handler: (ctx, filters, options) => {
      const { store } = ctx.appliance;
      const { keys, accounts } = store.read(() => ({ keys: listApiKeys(store.db), accounts: AccountsSnapshot.load(store.db) }));
      const names = usernamesOf(accounts);
      return query(keys.map((k) => entry(ctx, k, names)), filters, options);
    },
  }),
  defineMethod({
    name: 'api_key.create',
    summary: 'Create an API key {name, username, expires_at}; the full key is returned once, here.',
    access: roles('API_KEY_WRITE', 'READONLY_ADMIN'),
    params: [{ name: 'api_key_create', schema: apiKeyCreate }],
    handler: (ctx, data) => {
      const { store } = ctx.appliance;
      const caller = ctx.session.credentials!.username;
      if (data.username !== caller && !mayManageOthers(ctx)) {
        throw rpcErrors.call(ERRNO.EACCES, `${caller}: authenticated user lacks privileges to create or modify API keys of other users.`);
      }
      const secret = generateKeySecret();
      const keyHash = hashSecret(secret);
      const id = store.write(() => {
        const accounts = AccountsSnapshot.load(store.db);
        const keys = listApiKeys(store.db);
        const user = accounts.users.find((u) => u.username === data.username);
        const errors: ValidationTriple[] = [];
        if (!user) errors.push(['api_key_create', 'User does not exist.', ERRNO.EINVAL]);
        else if (accounts.privilegesForGids(accounts.gidsOf(user)).length === 0) {
          errors.push(['api_key_create', 'User lacks privilege role membership.', ERRNO.EINVAL]);
        } else if (keys.filter((k) => k.user_id === user.id).length >= MAX_KEYS_PER_USER) {
          errors.push(['api_key_create.username', `User already meets or exceeds maximum per-user API key limit of ${MAX_KEYS_PER_USER}`, ERRNO.EINVAL]);
        }
        if (keys.some((k) => k.name === data.name)) errors.push(['api_key_create', 'name must be unique', ERRNO.EINVAL]);
        if (data.expires_at !== null && data.expires_at.$date <= Date.now()) {
          errors.push(['api_key_create', 'Expiration date is in the past', ERRNO.EINVAL]);
        }
        if (errors.length > 0) throw rpcErrors.validation(errors);
        return insertApiKey(store.db, {
          name: data.name,
          user_id: user!.id,
          key_hash: keyHash,
          created_at: Date.now(),
          expires_at: data.expires_at?.$date ?? null,
          revoked: false,
          revoked_reason: null,
        });
      });
      const { record, accounts } = store.read(() => ({ record: findApiKey(store.db, id)!, accounts: AccountsSnapshot.load(store.db) }));
      // The create result carries user_identifier as a string (facts §2.4).
      return { ...entry(ctx, record, usernamesOf(accounts)), user_identifier: String(record.user_id), key: `${id}-${secret}` };
    },
  }),
  defineMethod({
    name: 'api_key.delete',
    summary: 'Delete an API key by id.',
    access: roles('API_KEY_WRITE', 'READONLY_ADMIN'),
    params: [{ name: 'id', schema: z.int() }],
    handler: (ctx, id) => {
      const { store } = ctx.appliance;
      return store.write(() => {
        const record = findApiKey(store.db, id);
        if (!record) throw rpcErrors.instanceNotFound('ApiKey', id);
        if (record.user_id !== ctx.session.credentials!.userId && !mayManageOthers(ctx)) {
          throw rpcErrors.call(
            ERRNO.EACCES,
            `${ctx.session.credentials!.username}: authenticated user lacks privileges to create or modify API keys of other users.`,
          );
        }
        deleteApiKey(store.db, id);
        return true;
      });
    },
  }),
];
