/**
 * API keys: matched by name; only the expiry is ever updated (a key's user is a note, never
 * changed); a new key's secret goes to --keys-out or piped stdout, never into the file or a log.
 */
import { call, queryItems } from '../../../core/contract/client.js';
import { stateApiKeySchema } from '../../../core/state/index.js';
import { iso, listApiKeys, type ApiKey } from '../../api-key/model.js';
import { madeByStor } from '../ownership.js';
import { stepOf, type KindAdapter, type World } from './kind.js';
import { markName } from './mark.js';

/**
 * A file's key expiry in ms, as the appliance will keep it: whole seconds (it stores
 * `int(expires_at.timestamp())`, MW/plugins/api_key.py:142), so `…:00.567Z` plans, and reads back, as `…:00.000Z`.
 */
export const expiryMs = (expires: string): number => Math.floor(Date.parse(expires) / 1000) * 1000;

const keysIn = (world: World): readonly ApiKey[] => world.objects.api_keys as readonly ApiKey[];

export const apiKeys: KindAdapter<'api_keys', ApiKey> = {
  key: 'api_keys',
  schema: stateApiKeySchema,
  read: (t) => listApiKeys(t),
  live: keysIn,
  readOne: async (t, name) => ({ api_keys: await listApiKeys(t, [['name', '=', name]]) }),

  plan(want, world, ctx) {
    const have = keysIn(world).filter((k) => k.name === want.name);
    const expires = want.expires === undefined ? undefined : want.expires === null ? null : iso(expiryMs(want.expires));
    if (have.length === 0)
      return stepOf('api_keys', want, 'create', [
        { field: 'user', from: null, to: want.user },
        { field: 'expires', from: null, to: expires ?? null },
      ]);
    if (have.length > 1)
      ctx.note(
        `api key ${want.name}: ${have.length} keys have this name (ids ${have.map((k) => k.id).join(', ')}); left as they are`,
      );
    const k = have[0]!;
    if (have.length === 1 && k.username !== want.user)
      ctx.note(
        `api key ${want.name}: belongs to ${k.username ?? '(a deleted user)'} on the target, ${want.user} in the file; a key's user is never changed`,
      );
    const now = k.expires_at ? iso(k.expires_at.$date) : null;
    if (have.length === 1 && expires !== undefined && expires !== now)
      return stepOf('api_keys', want, 'update', [{ field: 'expires', from: now, to: expires }]);
    return null;
  },

  prune: (world, named) =>
    [
      ...new Set(
        keysIn(world)
          .filter((k) => madeByStor(world.marks, 'api_key', k.name, k.id))
          .map((k) => k.name),
      ),
    ].filter((name) => !named.has(name)),

  exists: (world, name) => keysIn(world).some((k) => k.name === name),

  async apply(t, step, { world, keys }) {
    const { name, action } = step.change;
    const want = step.want;
    const expiresAt = want?.expires ? { $date: expiryMs(want.expires) } : null;
    if (action === 'create') {
      const created = await call(t, 'api_key.create', [{ name, username: want!.user, expires_at: expiresAt }]);
      keys.push({ name, user: want!.user, id: created.id, key: created.key });
      await markName(t, world, 'api_key', name, created.id);
      return;
    }
    const found = await queryItems(t, 'api_key.query', ['id'], [['name', '=', name]], { select: ['id'] });
    if (action === 'update') await call(t, 'api_key.update', [found[0]!.id, { expires_at: expiresAt }]);
    else {
      for (const k of found) await call(t, 'api_key.delete', [k.id]);
      await markName(t, world, 'api_key', name, null);
    }
  },

  export(world) {
    const seen = new Set<string>();
    return keysIn(world)
      .filter((k) => !k.revoked && k.username !== null && !seen.has(k.name) && seen.add(k.name))
      .map((k) => ({ name: k.name, user: k.username!, expires: k.expires_at ? iso(k.expires_at.$date) : null }));
  },
};
