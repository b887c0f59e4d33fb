import { resolve } from 'node:path';
import { EMBEDDED_PROFILE, ProfileStore, profileNamed, type Profile } from '../../core/config/profiles.js';
import { call } from '../../core/contract/client.js';
import { StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';
import { assertSecretMayTravel, parseEndpoint, type Endpoint } from '../../core/transport/endpoint.js';
import { speaksScram } from '../../core/transport/login-strategies.js';
import type { CommandContext } from '../framework/context.js';
import { openTarget } from '../framework/open-target.js';
import { envSetting, isSameAppliance, profilesFor } from '../framework/target.js';
import { type CommandResult, recordResult } from '../output/render.js';
import { readApiKey } from './read-key.js';
import { defineCommand, flag, value, type OptionValues } from '../framework/declare.js';
import { closeSessionsOf } from '../shared/close-sessions.js';

const options = {
  apiKeyFile: value('<file>', 'read the key from this file', { conflicts: ['username'], complete: 'file' }),
  apiKeyStdin: flag('read the key from standard input', { conflicts: ['username'] }),
  username: value('<name>', 'log in as this user with its password (and one-time code), and save a new API key for it'),
  passwordStdin: flag(
    'with --username: read the password from the first line of standard input (the one-time code, if asked for, from the second)',
  ),
  force: flag('replace a profile of the same name that is saved for another appliance'),
};

export type LoginOptions = OptionValues<typeof options>;

/** `stor login --json` */
export interface LoginResult {
  profile: string;
  url: string;
  username: string;
  current: true;
  /** False when a profile of that name was already saved (and is now updated). */
  created: boolean;
  /** With `--force`: the URL the replaced profile pointed at. */
  replaced_url?: string;
  config_file: string;
  /** With `--username`: the name of the API key created for this profile. */
  api_key_name?: string;
}

/** How the profile reaches the appliance, from the global options. */
export interface ConnectionSettings {
  endpoint: Endpoint;
  insecure: boolean;
  caPath?: string;
  rpc: 'ws' | 'http';
}

/**
 * `stor login`: verify a key with a real login (or, with `--username`, log in with a password and
 * create a key), then save the key as a profile and make it current.
 */
export async function login(ctx: CommandContext, options: LoginOptions): Promise<CommandResult<LoginResult>> {
  const url = ctx.globals.url ?? envSetting(ctx.io.env, 'STOR_URL');
  if (!url) {
    throw new StorError(E.NO_URL, 'which appliance? pass --url (e.g. --url wss://nas.example.com) or set STOR_URL');
  }
  const caPath = ctx.globals.ca ? resolve(ctx.io.cwd, ctx.globals.ca) : undefined;
  const settings: ConnectionSettings = {
    endpoint: parseEndpoint(url),
    insecure: ctx.globals.insecure ?? false,
    rpc: ctx.globals.rpc ?? 'ws',
    ...(caPath ? { caPath } : {}),
  };
  // Chosen before any prompt or connection: a refusal must not leave a new key on the appliance.
  const target = await chooseProfile(ctx, settings.endpoint, options.force ?? false);
  if (options.username !== undefined) {
    const { loginWithPassword } = await import('./login-password.js');
    const { username, apiKey, keyName, keyId, scram } = await loginWithPassword(
      ctx,
      settings,
      options.username,
      options,
    );
    return saveProfile(ctx, target, settings, apiKey, username, scram && settings.rpc === 'ws', {
      name: keyName,
      id: keyId,
    });
  }
  if (options.passwordStdin) {
    throw new StorError(E.NO_USERNAME, '--password-stdin needs --username: whose password is it?');
  }
  // Refuse before a prompt or a connection: a key in clear over the network gets revoked.
  assertSecretMayTravel(settings.endpoint, 'an API key');
  const apiKey = await readApiKey(ctx, options);
  // SCRAM (TrueNAS 26) names the key's user before any login: STOR_USER gives it.
  const keyUser = envSetting(ctx.io.env, 'STOR_USER');
  const transport = await openTarget(
    { kind: 'remote', apiKey, ...settings, ...(keyUser ? { username: keyUser } : {}) },
    ctx.timeoutSeconds,
    ctx.trace ? { trace: ctx.trace } : {},
  );
  let username: string;
  let scram: boolean;
  try {
    username = (await call(transport, 'auth.me')).pw_name;
    // Pinned in the profile (Profile.scram); not over --rpc http, where the key is every request's bearer.
    scram = settings.rpc === 'ws' && (await speaksScram((method, params) => transport.call(method, params)));
  } finally {
    await transport.close();
  }
  return saveProfile(ctx, target, settings, apiKey, username, scram);
}

/** Where login saves, and what was there before. */
interface ProfileChoice {
  name: string;
  created: boolean;
  /** With `--force`: the URL of the other appliance the profile pointed at. */
  replacedUrl?: string;
}

/**
 * The profile named by `--profile` (or STOR_PROFILE); else the one already saved for this
 * appliance, so that logging in again updates it; else a new one named after the host. A name
 * taken by another appliance is refused without `--force`.
 */
async function chooseProfile(ctx: CommandContext, endpoint: Endpoint, force: boolean): Promise<ProfileChoice> {
  const store = ProfileStore.of(ctx.io.env);
  store.writable();
  const doc = await store.read();
  const name =
    ctx.globals.profile ??
    (ctx.io.env.STOR_PROFILE || undefined) ??
    profilesFor(endpoint, doc)[0] ??
    profileNameFor(endpoint);
  if (name === EMBEDDED_PROFILE) {
    // Reserved for the embedded appliance (docs/REMOTE.md "Remote appliances", Profile names), a host named so included.
    throw new StorError(
      E.PROFILE_EXISTS,
      `the profile name "${EMBEDDED_PROFILE}" is reserved: it names the embedded appliance`,
      {
        hint: 'save this appliance under another name with --profile NAME',
      },
    );
  }
  const previous = profileNamed(doc, name);
  const replacedUrl = previous && !isSameAppliance(previous.url, endpoint) ? previous.url : undefined;
  if (replacedUrl !== undefined && !force) {
    throw new StorError(E.PROFILE_EXISTS, `profile "${name}" is saved for ${replacedUrl}, not ${endpoint.display}`, {
      hint: 'save this one under another name with --profile NAME, or replace that profile with --force',
    });
  }
  return { name, created: !previous, ...(replacedUrl !== undefined ? { replacedUrl } : {}) };
}

/**
 * The name of a new profile: the URL's host, plus `-PORT` when it names a port other than the
 * scheme's default (`nas.example.com`, `127.0.0.1-6000`); IPv6 brackets dropped.
 */
export function profileNameFor(endpoint: Endpoint): string {
  const host = endpoint.base.hostname.replace(/^\[(.*)\]$/, '$1');
  return endpoint.base.port ? `${host}-${endpoint.base.port}` : host;
}

async function saveProfile(
  ctx: CommandContext,
  target: ProfileChoice,
  settings: ConnectionSettings,
  apiKey: string,
  username: string,
  scram: boolean,
  createdKey?: { name: string; id: number },
): Promise<CommandResult<LoginResult>> {
  const { name, created, replacedUrl } = target;
  const keyName = createdKey?.name;
  const url = settings.endpoint.display;
  const profile: Profile = {
    url,
    apiKey,
    username,
    ...(settings.insecure ? { insecure: true } : {}),
    ...(settings.caPath ? { ca: settings.caPath } : {}),
    ...(settings.rpc !== 'ws' ? { rpc: settings.rpc } : {}),
    // That stor made this key, so that logout may revoke it (docs/REMOTE.md "Remote appliances", Logging out).
    ...(createdKey ? { createdKey } : {}),
    // The appliance spoke SCRAM: its key is never to be sent itself (a later downgrade is refused).
    ...(scram ? { scram: true as const } : {}),
  };
  const store = ProfileStore.of(ctx.io.env);
  const previous = profileNamed(await store.read(), name);
  await store.save(name, profile, true);
  // The sessions of the key this login replaces must not outlive it.
  if (previous && (previous.apiKey !== apiKey || previous.url !== url)) await closeSessionsOf(ctx, previous);
  // A key an earlier `login --username` made for this profile is forgotten here, not revoked: say so
  // (as logout does), or it would live on unseen.
  const orphan = previous?.createdKey;
  if (orphan && previous.apiKey !== apiKey) {
    ctx.note(
      `stor: API key "${orphan.name}" (id ${orphan.id}) that stor created at an earlier login for profile "${name}" stays valid on ${previous.url}; revoke it there with \`stor ${previous.url === url ? '' : `--url ${previous.url} `}api-key revoke ${orphan.id}\``,
    );
  }
  const data: LoginResult = {
    profile: name,
    url,
    username,
    current: true,
    created,
    ...(replacedUrl !== undefined ? { replaced_url: replacedUrl } : {}),
    config_file: store.path,
    ...(keyName ? { api_key_name: keyName } : {}),
  };
  const how = created
    ? `new profile "${name}"`
    : replacedUrl !== undefined
      ? `profile "${name}", replacing its ${replacedUrl}`
      : `profile "${name}", updated`;
  ctx.note(
    keyName ? `stor: created API key "${keyName}" and saved it, not the password, in ${how}` : `stor: saved in ${how}`,
  );
  return recordResult(data, {
    fields: [
      ['profile', name],
      ['created', created],
      ['url', url],
      ['username', username],
      ['current', true],
      ...(replacedUrl !== undefined ? [['replaced url', replacedUrl] as [string, string]] : []),
      ...(keyName ? [['api key name', keyName] as [string, string]] : []),
      ['config file', store.path],
    ],
  });
}

export const loginCommand = defineCommand({
  summary: 'save an appliance as a profile (made current): verify an API key, or log in with a password and create one',
  effect: 'change',
  asks: true,
  options,
  examples: [
    'stor login --url wss://nas.example.com --profile nas1 --api-key-file ~/.config/nas1.key',
    'pass show nas1/api-key | stor login --url wss://nas.example.com --api-key-stdin --ca ./nas-ca.pem',
    'stor login --url ws://127.0.0.1:6000      # a local `stor serve`, saved as profile 127.0.0.1-6000; prompts for the key',
    'stor login --url wss://nas.example.com --username alice      # prompts for the password (and code)',
    '(pass show nas1/alice; echo 123456) | stor login --url wss://nas.example.com --username alice --password-stdin',
  ],
  notes:
    'The key is never taken from the command line. Without --api-key-file/--api-key-stdin it comes from\n' +
    'STOR_API_KEY, or from a hidden prompt on a terminal. ws:// and http:// are refused for other hosts.\n' +
    '\nWith --username, stor logs in with the password (hidden prompt, or --password-stdin), answers a\n' +
    'two-factor challenge with the one-time code (prompt, or the second line of standard input), creates an\n' +
    'API key named stor-<this host>-<UTC time> for the user, and saves only that key. The password is never saved.\n' +
    '\nWithout --profile, login updates the profile already saved for that appliance, else saves a new one named\n' +
    "after the host: the host name, plus -PORT when the URL names a port other than the scheme's default\n" +
    '(wss://nas.example.com → nas.example.com, ws://127.0.0.1:6000 → 127.0.0.1-6000). A name saved for another\n' +
    'appliance is refused unless --force.',
  run: (ctx, _args, opts) => login(ctx, opts),
});
