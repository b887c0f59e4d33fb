import * as z from 'zod';
import { crud } from './crud.js';
import { datetime as asDatetime } from './ejson.js';
import { roles, once } from './method.js';
import { method, service } from './service.js';

// `MW/api/v25_10_1/api_key.py`; methods in `MW/plugins/api_key.py` (role prefix API_KEY).

/** A datetime as EJSON carries it (truenas_api_client/ejson.py:48-52). */
const datetime = once(() => asDatetime(z.object({ $date: z.number() })));

export const apiKeyEntry = once(() =>
  z.object({
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
  }),
);

/** ApiKeyEntryWithKey: the full `<id>-<secret>`, answered by create and by update with `reset`. */
export const apiKeyEntryWithKey = once(() => apiKeyEntry().extend({ key: z.string() }));

const name = once(() => z.string().min(1).max(200));
const expiresAt = once(() => asDatetime(z.strictObject({ $date: z.number() })).nullable());

const apiKeyCreate = once(() =>
  z.strictObject({
    name: name(),
    username: z.string().min(1).max(1024),
    expires_at: expiresAt().default(null),
  }),
);

const apiKeyUpdate = once(() =>
  z.strictObject({
    name: name().optional(),
    expires_at: expiresAt().optional(),
    reset: z.boolean().optional(),
  }),
);

// create/update/delete: `roles=['READONLY_ADMIN', 'API_KEY_WRITE']`; callers that are neither
// FULL_ADMIN nor API_KEY_WRITE holders manage their own keys only (api_key_privilege_check).
const WRITE = roles('API_KEY_WRITE', 'READONLY_ADMIN');

const apiKeys = crud(apiKeyEntry, () => z.int(), { read: roles('API_KEY_READ'), write: WRITE });

export const apiKeyContract = service('api_key', {
  query: apiKeys.query('List API keys (the secret is never returned; the hash only to key administrators).'),
  get_instance: apiKeys.get_instance('One API key by id.'),
  my_keys: method({
    summary: 'The API keys of the logged-in user.',
    access: roles('READONLY_ADMIN', 'API_KEY_READ'),
    app: 'ws', // MW/plugins/api_key.py:397
    params: () => [],
    result: () => z.array(apiKeyEntry()),
  }),
  // do_create, do_update, do_delete: `pass_app(rest=True)` (MW/plugins/api_key.py:168, 241, 294).
  create: {
    ...apiKeys.create(
      'Create an API key {name(), username, expires_at}; the full key is returned once, here.',
      'api_key_create',
      apiKeyCreate,
      apiKeyEntryWithKey,
    ),
    app: 'rest',
  },
  update: {
    ...apiKeys.update(
      'Rename a key, change its expiry, or `reset` it (a new secret, returned once; revocation cleared).',
      'api_key_update',
      apiKeyUpdate,
      () => z.union([apiKeyEntryWithKey(), apiKeyEntry()]),
    ),
    app: 'rest',
  },
  delete: { ...apiKeys.delete('Delete an API key by id.', () => z.literal(true)), app: 'rest' },
});
