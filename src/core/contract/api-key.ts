import * as z from 'zod';
import { defineContract, queryResult, roles, once } from './method.js';
import { QUERY_PARAMS, instanceParams } from './query.js';

// `MW/api/v25_10_1/api_key.py`; methods in `MW/plugins/api_key.py` (role prefix API_KEY).

/** A datetime as EJSON carries it (truenas_api_client/ejson.py:48-52). */
const datetime = once(() => z.object({ $date: z.number() }));

export const apiKeyEntry = once(() => z.object({
  id: z.int(),
  name: z.string().min(1).max(200),
  username: z.string().nullable(),
  user_identifier: z.union([z.int(), z.string()]),
  /** The hash, or `********` for callers who are neither FULL_ADMIN nor API_KEY_WRITE holders. */
  keyhash: z.string(),
  created_at: datetime(),
  expires_at: datetime().nullable(),
  local: z.boolean(),
  revoked: z.boolean(),
  revoked_reason: z.string().nullable(),
}));

/** ApiKeyEntryWithKey: the full `<id>-<secret>`, answered by create and by update with `reset`. */
export const apiKeyEntryWithKey = once(() => apiKeyEntry().extend({ key: z.string() }));

const name = once(() => z.string().min(1).max(200));
const expiresAt = once(() => z.strictObject({ $date: z.number() }).nullable());

const apiKeyCreate = once(() => z.strictObject({
  name: name(),
  username: z.string().min(1).max(1024),
  expires_at: expiresAt().default(null),
}));

const apiKeyUpdate = once(() => z.strictObject({
  name: name().optional(),
  expires_at: expiresAt().optional(),
  reset: z.boolean().optional(),
}));

// create/update/delete: `roles=['READONLY_ADMIN', 'API_KEY_WRITE']`; callers that are neither
// FULL_ADMIN nor API_KEY_WRITE holders manage their own keys only (api_key_privilege_check).
const WRITE = roles('API_KEY_WRITE', 'READONLY_ADMIN');

export const apiKeyContract = {
  'api_key.query': defineContract({
    name: 'api_key.query',
    summary: 'List API keys (the secret is never returned; the hash only to key administrators).',
    access: roles('API_KEY_READ'),
    params: () => QUERY_PARAMS,
    result: () => queryResult(apiKeyEntry()),
  }),
  'api_key.get_instance': defineContract({
    name: 'api_key.get_instance',
    summary: 'One API key by id.',
    access: roles('API_KEY_READ'),
    params: () => instanceParams(z.int()),
    result: () => apiKeyEntry(),
  }),
  'api_key.my_keys': defineContract({
    name: 'api_key.my_keys',
    summary: 'The API keys of the logged-in user.',
    access: roles('READONLY_ADMIN', 'API_KEY_READ'),
    params: () => [],
    result: () => z.array(apiKeyEntry()),
  }),
  'api_key.create': defineContract({
    name: 'api_key.create',
    summary: 'Create an API key {name(), username, expires_at}; the full key is returned once, here.',
    access: WRITE,
    params: () => [{ name: 'api_key_create', schema: apiKeyCreate() }],
    result: () => apiKeyEntryWithKey(),
  }),
  'api_key.update': defineContract({
    name: 'api_key.update',
    summary: 'Rename a key, change its expiry, or `reset` it (a new secret, returned once; revocation cleared).',
    access: WRITE,
    params: () => [
      { name: 'id', schema: z.int() },
      { name: 'api_key_update', schema: apiKeyUpdate() },
    ],
    result: () => z.union([apiKeyEntryWithKey(), apiKeyEntry()]),
  }),
  'api_key.delete': defineContract({
    name: 'api_key.delete',
    summary: 'Delete an API key by id.',
    access: WRITE,
    params: () => [{ name: 'id', schema: z.int() }],
    result: () => z.literal(true),
  }),
};
