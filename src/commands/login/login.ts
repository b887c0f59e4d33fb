import { resolve } from 'node:path';
import { configDirFrom } from '../../core/config/paths.js';
import { ProfileStore, type Profile } from '../../core/config/profiles.js';
import { call } from '../../core/contract/client.js';
import { StorError } from '../../core/errors.js';
import { assertSecretMayTravel, parseEndpoint, type Endpoint } from '../../core/transport/endpoint.js';
import { openTarget, type CommandContext } from '../shared/context.js';
import type { CommandResult } from '../shared/render.js';
import { readApiKey, type KeySourceOptions } from './read-key.js';
import type { PasswordSourceOptions } from './read-password.js';

export interface LoginOptions extends KeySourceOptions, PasswordSourceOptions {
  username?: string;
}

/** `stor login --json` */
export interface LoginResult {
  profile: string;
  url: string;
  username: string;
  current: true;
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
  const url = ctx.globals.url ?? ctx.io.env.STOR_URL;
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
  if (options.username !== undefined) {
    const { loginWithPassword } = await import('./login-password.js');
    const { username, apiKey, keyName } = await loginWithPassword(ctx, settings, options.username, options);
    return saveProfile(ctx, settings, apiKey, username, keyName);
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
  return saveProfile(ctx, settings, apiKey, username);
}

async function saveProfile(
  ctx: CommandContext,
  settings: ConnectionSettings,
  apiKey: string,
  username: string,
  keyName?: string,
): Promise<CommandResult<LoginResult>> {
  const name = ctx.globals.profile ?? ctx.io.env.STOR_PROFILE ?? 'default';
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
  const data: LoginResult = { profile: name, url, username, current: true, config_file: store.path, ...(keyName ? { api_key_name: keyName } : {}) };
  if (keyName && !ctx.globals.json) ctx.note(`stor: created API key "${keyName}" and saved it, not the password, in the profile`);
  return {
    data,
    view: {
      kind: 'record',
      fields: [
        ['profile', name],
        ['url', url],
        ['username', username],
        ['current', true],
        ...(keyName ? [['api key name', keyName] as [string, string]] : []),
        ['config file', store.path],
      ],
    },
  };
}
