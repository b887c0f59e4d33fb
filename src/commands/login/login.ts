import { resolve } from 'node:path';
import { configDirFrom } from '../../core/config/paths.js';
import { ProfileStore, type Profile } from '../../core/config/profiles.js';
import { callChecked } from '../../core/contract/checked-call.js';
import { StorError } from '../../core/errors.js';
import { assertKeyMayTravel, parseEndpoint } from '../../core/transport/endpoint.js';
import { openTarget, type CommandContext } from '../shared/context.js';
import type { CommandResult } from '../shared/render.js';
import { readApiKey, type KeySourceOptions } from './read-key.js';

/** `stor login --json` */
export interface LoginResult {
  profile: string;
  url: string;
  username: string;
  current: true;
  config_file: string;
}

/** `stor login`: verify a key with a real login, then save it as a profile and make it current. */
export async function login(ctx: CommandContext, options: KeySourceOptions): Promise<CommandResult<LoginResult>> {
  const url = ctx.globals.url ?? ctx.io.env.STOR_URL;
  if (!url) {
    throw new StorError('usage', 'NO_URL', 'which appliance? pass --url (e.g. --url wss://nas.example.com) or set STOR_URL');
  }
  const endpoint = parseEndpoint(url);
  // Refuse before a prompt or a connection: a key in clear over the network gets revoked.
  assertKeyMayTravel(endpoint);
  const apiKey = await readApiKey(ctx, options);
  const name = ctx.globals.profile ?? ctx.io.env.STOR_PROFILE ?? 'default';
  const caPath = ctx.globals.ca ? resolve(ctx.io.cwd, ctx.globals.ca) : undefined;
  const rpc = ctx.globals.rpc ?? 'ws';
  const transport = await openTarget(
    { kind: 'remote', endpoint, apiKey, insecure: ctx.globals.insecure ?? false, rpc, ...(caPath ? { caPath } : {}) },
    ctx.timeoutSeconds,
  );
  let username: string;
  try {
    username = (await callChecked(transport, 'auth.me')).pw_name;
  } finally {
    await transport.close();
  }
  const profile: Profile = {
    url: endpoint.display,
    apiKey,
    ...(ctx.globals.insecure ? { insecure: true } : {}),
    ...(caPath ? { ca: caPath } : {}),
    ...(rpc !== 'ws' ? { rpc } : {}),
  };
  const store = new ProfileStore(configDirFrom(ctx.io.env));
  await store.save(name, profile, true);
  const data: LoginResult = { profile: name, url: endpoint.display, username, current: true, config_file: store.path };
  return { data, view: { kind: 'lines', lines: [`Logged in to ${data.url} as ${username}; saved as profile "${name}" (now current).`] } };
}
