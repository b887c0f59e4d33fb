import * as z from 'zod';
import { apiKeyContract, apiKeyEntry } from '../api-key.js';
import { crud } from '../crud.js';
import { nonEmptyStr, once, roles } from '../method.js';
import { method, service } from '../service.js';

// What 26.0 changed in the api_key.* methods stor serves (`git diff stable/26:MW/api/v25_10_1/api_key.py
// stable/26:MW/api/v26_0_0/api_key.py`): ApiKeyEntry loses `keyhash` and gains the SCRAM data
// `iterations`, `salt`, `stored_key`, `server_key` (the last three Secret: `********` unless the
// caller is FULL_ADMIN or holds API_KEY_WRITE, MW/main.py:982-993); ApiKeyEntryWithKey adds
// `client_key` beside `key` (:46-48); api_key.convert_raw_key is new (:101-119,
// MW/plugins/api_key.py:407-448). Create and update take what they took in 25.10.1.

/** ApiKeyEntry in 26, fields in the model's order (MW/api/v26_0_0/api_key.py:23-42). */
export const apiKeyEntry26 = once(() => {
  const { keyhash: _dropped, ...shape } = apiKeyEntry().shape;
  return z.object({
    id: shape.id,
    name: shape.name,
    username: shape.username,
    user_identifier: shape.user_identifier,
    iterations: z.int(),
    salt: z.string(),
    stored_key: z.string(),
    server_key: z.string(),
    created_at: shape.created_at,
    expires_at: shape.expires_at,
    local: shape.local,
    revoked: shape.revoked,
    revoked_reason: shape.revoked_reason,
  });
});

/** ApiKeyEntryWithKey in 26: the key and the precomputed ClientKey, answered once. */
export const apiKeyEntryWithKey26 = once(() => apiKeyEntry26().extend({ key: z.string(), client_key: z.string() }));

/** ApiKeyScramData (MW/api/v26_0_0/api_key.py:108-114). */
export const apiKeyScramData = once(() =>
  z.object({
    api_key_id: z.int(),
    iterations: z.int(),
    salt: z.string(),
    client_key: z.string(),
    stored_key: z.string(),
    server_key: z.string(),
  }),
);

const base = apiKeyContract;
const keys = crud(apiKeyEntry26, () => z.int(), {
  read: base['api_key.query'].access,
  write: base['api_key.create'].access,
});

/** The api_key.* entries 26.0 changed or added; api_key.delete is 25.10.1's. */
export const apiKeyContract26 = service('api_key', {
  query: keys.query(base['api_key.query'].summary),
  get_instance: keys.get_instance(base['api_key.get_instance'].summary),
  my_keys: method({
    summary: base['api_key.my_keys'].summary,
    access: base['api_key.my_keys'].access,
    app: base['api_key.my_keys'].app,
    params: () => [],
    result: () => z.array(apiKeyEntry26()),
  }),
  create: {
    ...keys.create(
      'Create an API key {name, username, expires_at}; the full key and its SCRAM ClientKey are returned once, here.',
      'api_key_create',
      () => base['api_key.create'].params[0].schema,
      apiKeyEntryWithKey26,
    ),
    app: base['api_key.create'].app,
  },
  update: {
    ...keys.update(
      base['api_key.update'].summary,
      'api_key_update',
      () => base['api_key.update'].params[1].schema,
      () => z.union([apiKeyEntryWithKey26(), apiKeyEntry26()]),
    ),
    app: base['api_key.update'].app,
  },
  convert_raw_key: method({
    summary:
      'The SCRAM data (api_key_id, iterations, salt, client_key, stored_key, server_key) of a raw key `<id>-<secret>`, with the stored salt.',
    access: roles('API_KEY_READ'),
    params: () => [{ name: 'raw_key', schema: nonEmptyStr() }],
    result: () => apiKeyScramData(),
  }),
});
