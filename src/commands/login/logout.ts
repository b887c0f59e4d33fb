import { ProfileStore, profileNamed, type Profile } from '../../core/config/profiles.js';
import { call, queryItems } from '../../core/contract/client.js';
import { parseEndpoint } from '../../core/transport/endpoint.js';
import type { CommandContext } from '../framework/context.js';
import { openTarget } from '../framework/open-target.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { defineCommand, flag, yesFlag, type OptionValues } from '../framework/declare.js';
import { closeSessionsOf } from '../shared/close-sessions.js';
import { confirmChange } from '../shared/prompts.js';

const options = {
  yes: yesFlag(),
  keepKey: flag('keep the API key stor created at login valid on the appliance; only forget the profile'),
};

type LogoutOptions = OptionValues<typeof options>;

/** `stor logout --json` */
export interface LogoutResult {
  /** The profile logged out of; null when none was named and none is current. */
  profile: string | null;
  /** False when nothing was saved under that name (a second logout). */
  removed: boolean;
  was_current: boolean;
  /** The profile's API key as it now stands on the appliance; null when no profile was removed. */
  key: LogoutKey | null;
}

export interface LogoutKey {
  /** Whether `stor login --username` created it (then its name and id are known). */
  created_by_stor: boolean;
  name: string | null;
  id: number | null;
  /** True when logout deleted it on the appliance (or found it already gone); false: it still logs in. */
  revoked: boolean;
}

/**
 * `stor logout`: forget a profile and its key (the current one unless --profile names another).
 * A key stor created at login (`login --username`) is revoked on the appliance after consent
 * (asked on a terminal, `--yes` otherwise, `--keep-key` to keep it); any other key stays valid
 * there, and logout says so. Logging out of what is not saved succeeds, saying so, so that a
 * runbook may log out twice; `stor profile remove NAME` still refuses an unknown one.
 */
export async function logout(
  ctx: CommandContext,
  opts: Partial<LogoutOptions> = {},
): Promise<CommandResult<LogoutResult>> {
  const store = ProfileStore.of(ctx.io.env);
  const doc = await store.read();
  const name = ctx.globals.profile ?? (ctx.io.env.STOR_PROFILE || undefined) ?? doc.current ?? null;
  if (name === null || !profileNamed(doc, name)) {
    const data: LogoutResult = { profile: name, removed: false, was_current: false, key: null };
    ctx.note(
      name === null
        ? 'stor: no profile is current: nothing to log out of'
        : `stor: no profile "${name}" is saved: nothing to log out of`,
    );
    return recordResult(data, {
      fields: [
        ['removed profile', null],
        ['was current', false],
      ],
    });
  }
  const profile = profileNamed(doc, name)!;
  // Before a key is revoked: a profile that cannot be removed here must not lose its key there.
  store.writable();
  const key = await settleKey(ctx, name, profile, opts);
  const wasCurrent = await store.remove(name);
  await closeSessionsOf(ctx, profile);
  const data: LogoutResult = { profile: name, removed: true, was_current: wasCurrent, key };
  if (!key.revoked) {
    ctx.note(
      key.created_by_stor
        ? `stor: API key "${key.name}" (id ${key.id}) stays valid on ${profile.url} (${opts.keepKey ? '--keep-key' : 'its id there names a key of another name now: stor deletes only the key it made, under the name it gave it'}); revoke it there with \`stor api-key revoke ${key.id}\``
        : `stor: the API key of profile "${name}" stays valid on ${profile.url}: stor did not create it, so it does not revoke it; revoke it there (\`stor api-key revoke\`) if it should not log in any more`,
    );
  }
  if (wasCurrent) ctx.note('stor: commands now use the embedded appliance until you log in or pick a profile');
  return recordResult(data, {
    fields: [
      ['removed profile', name],
      ['was current', wasCurrent],
      ['api key', key.name ?? '(not created by stor)'],
      ['key revoked', key.revoked],
    ],
  });
}

/**
 * The key of the profile being logged out of: one stor created is revoked unless kept. Read
 * first (is it still there, under the name stor gave it?), then asked, then deleted, then read
 * again: nothing is deleted before consent, and a key that is gone already is not asked about.
 */
async function settleKey(
  ctx: CommandContext,
  name: string,
  profile: Profile,
  opts: Partial<LogoutOptions>,
): Promise<LogoutKey> {
  const made = profile.createdKey;
  if (!made) return { created_by_stor: false, name: null, id: null, revoked: false };
  const kept: LogoutKey = { created_by_stor: true, name: made.name, id: made.id, revoked: false };
  if (opts.keepKey) return kept;
  const t = await openTarget(
    {
      kind: 'remote',
      endpoint: parseEndpoint(profile.url),
      apiKey: profile.apiKey,
      // The key's user, which SCRAM names (TrueNAS 26): without it a 26 appliance cannot be logged out of.
      ...(profile.username ? { username: profile.username } : {}),
      ...(profile.scram ? { scramOnly: true } : {}),
      insecure: profile.insecure ?? false,
      ...(profile.ca ? { caPath: profile.ca } : {}),
      rpc: profile.rpc ?? 'ws',
      profile: name,
    },
    ctx.timeoutSeconds,
    ctx.trace ? { trace: ctx.trace } : {},
  );
  try {
    const find = async () => (await queryItems(t, 'api_key.query', ['id', 'name'], [['id', '=', made.id]]))[0];
    const found = await find();
    if (!found) return { ...kept, revoked: true };
    // Renamed on the appliance since login (someone adopted it, perhaps), or the id now another key's:
    // not deleted, and not said to be revoked either, for a key of that id still logs in.
    if (found.name !== made.name) return kept;
    await confirmChange(
      ctx,
      `Revoke API key "${made.name}" (id ${made.id}) that stor created at login on ${profile.url}? Anything using it will be refused.`,
      opts.yes,
      'keep the key with `stor logout --keep-key`',
    );
    const deleted = await call(t, 'api_key.delete', [made.id]);
    // Read back; should the appliance end this session with its key, delete's own `true` stands.
    return { ...kept, revoked: deleted === true && (await find().catch(() => undefined)) === undefined };
  } finally {
    await t.close();
  }
}

export const logoutCommand = defineCommand({
  summary:
    'forget a saved profile and its key (the current one, or --profile NAME); a key stor created at login is revoked (asks; --yes, or --keep-key)',
  effect: 'change',
  asks: true,
  options,
  examples: ['stor logout', 'stor --profile nas1 logout --yes', 'stor logout --keep-key'],
  notes:
    'A key `stor login --username` created is revoked on the appliance (api_key.delete) after consent: asked on a terminal, --yes otherwise; --keep-key keeps it. A key you gave stor (--api-key-file, --api-key-stdin) stays valid on the appliance, and logout says so. Nothing saved under the name is not an error.',
  run: (ctx, _args, opts) => logout(ctx, opts),
});
