import { resolve } from 'node:path';
import { configDirFrom } from '../../core/config/paths.js';
import { ProfileStore, type Profile } from '../../core/config/profiles.js';
import { call } from '../../core/contract/client.js';
import { StorError } from '../../core/errors.js';
import { assertSecretMayTravel, parseEndpoint, type Endpoint } from '../../core/transport/endpoint.js';
import { openTarget, type CommandContext } from '../shared/context.js';
import { envSetting, isSameAppliance, profilesFor } from '../shared/target.js';
import type { CommandResult } from '../shared/render.js';
import { readApiKey, type KeySourceOptions } from './read-key.js';
import type { PasswordSourceOptions } from './read-password.js';

export interface LoginOptions extends KeySourceOptions, PasswordSourceOptions {
  username?: string;
  /** Replace a profile of the chosen name that is saved for another appliance. */
  force?: boolean;
}

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
    throw new StorError('usage', 'NO_URL', 'which appliance? pass --url (e.g. --url wss://nas.example.com) or set STOR_URL');
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
    const { username, apiKey, keyName } = await loginWithPassword(ctx, settings, options.username, options);
    return saveProfile(ctx, target, settings, apiKey, username, keyName);
  }
  if (options.passwordStdin) {
    throw new StorError('usage', 'NO_USERNAME', '--password-stdin needs --username: whose password is it?');
  }
  // Refuse before a prompt or a connection: a key in clear over the network gets revoked.
  assertSecretMayTravel(settings.endpoint, 'an API key');
  const apiKey = await readApiKey(ctx, options);
  const transport = await openTarget({ kind: 'remote', apiKey, ...settings }, ctx.timeoutSeconds);
  let username: string;
  try {
    username = (await call(transport, 'auth.me')).pw_name;
  } finally {
    await transport.close();
  }
  return saveProfile(ctx, target, settings, apiKey, username);
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
  const doc = await new ProfileStore(configDirFrom(ctx.io.env)).read();
  const name = ctx.globals.profile ?? (ctx.io.env.STOR_PROFILE || undefined) ?? profilesFor(endpoint, doc)[0] ?? profileNameFor(endpoint);
  const previous = doc.profiles[name];
  const replacedUrl = previous && !isSameAppliance(previous.url, endpoint) ? previous.url : undefined;
  if (replacedUrl !== undefined && !force) {
    throw new StorError('usage', 'PROFILE_EXISTS', `profile "${name}" is saved for ${replacedUrl}, not ${endpoint.display}`, {
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
  keyName?: string,
): Promise<CommandResult<LoginResult>> {
  const { name, created, replacedUrl } = target;
  const url = settings.endpoint.display;
  const profile: Profile = {
    url,
    apiKey,
    ...(settings.insecure ? { insecure: true } : {}),
    ...(settings.caPath ? { ca: settings.caPath } : {}),
    ...(settings.rpc !== 'ws' ? { rpc: settings.rpc } : {}),
  };
  const store = new ProfileStore(configDirFrom(ctx.io.env));
  await store.save(name, profile, true);
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
  const how = created ? `new profile "${name}"` : replacedUrl !== undefined ? `profile "${name}", replacing its ${replacedUrl}` : `profile "${name}", updated`;
  const saved = keyName ? `created API key "${keyName}" and saved it (not the password) in ${how}` : `saved in ${how}`;
  return { data, view: { kind: 'lines', lines: [`Logged in to ${url} as ${username}; ${saved} (now current).`] } };
}
