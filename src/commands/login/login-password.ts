import { hostname } from 'node:os';
import { call } from '../../core/contract/client.js';
import { ERRNO, RpcError, StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';
import { assertSecretMayTravel } from '../../core/transport/endpoint.js';
import { passwordLogin, speaksScram } from '../../core/transport/login-strategies.js';
import { RemoteTransport } from '../../core/transport/remote.js';
import type { CommandContext } from '../framework/context.js';
import { readCa } from '../framework/target.js';
import type { ConnectionSettings } from './login.js';
import { readPassword, type PasswordSourceOptions } from './read-password.js';

/** `20260314T091502Z`: when the key was made, in UTC, sortable. */
function stamp(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}

/** A key name that says stor made it, on which host, and when: `stor-<host>-<yyyymmddThhmmssZ>`. */
function keyName(date: Date, host = hostname()): string {
  return `stor-${host}-${stamp(date)}`;
}

function isNameTaken(err: unknown): boolean {
  return err instanceof RpcError && err.triples.some(([, message]) => message === 'name must be unique');
}

/** Creates a key for `username` on the logged-in session; a second login in the same second gets `-2`, `-3`, … */
async function createKey(
  transport: RemoteTransport,
  username: string,
): Promise<{ key: string; name: string; id: number }> {
  const base = keyName(new Date());
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}-${n}`;
    try {
      const created = await call(transport, 'api_key.create', [{ name, username }]);
      return { key: created.key, name, id: created.id };
    } catch (err) {
      if (isNameTaken(err) && n < 10) continue;
      if (err instanceof RpcError && err.errno === ERRNO.EACCES) {
        throw new StorError(
          E.CANNOT_CREATE_KEY,
          `${username} logged in, but may not create an API key for itself (${err.reason})`,
          {
            hint: "creating one's own key takes READONLY_ADMIN, API_KEY_WRITE or FULL_ADMIN; or have an administrator create a key and use `stor login --api-key-stdin`",
            cause: err,
          },
        );
      }
      throw err;
    }
  }
}

/**
 * Logs in with a password (and a one-time code when the appliance asks), creates an API key for
 * the user and logs out. Only the key leaves this function; the password is dropped with it.
 */
export async function loginWithPassword(
  ctx: CommandContext,
  settings: ConnectionSettings,
  username: string,
  options: PasswordSourceOptions,
): Promise<{ username: string; apiKey: string; keyName: string; keyId: number; scram: boolean }> {
  // Before the prompt: no password is asked for that would then be refused.
  assertSecretMayTravel(settings.endpoint, 'a password');
  const input = await readPassword(ctx, username, options);
  // Password logins are stateful (the code follows on the same connection): always a WebSocket.
  const transport = await RemoteTransport.open({
    endpoint: settings.endpoint,
    login: passwordLogin(username, input.password, input.otp),
    timeoutSeconds: ctx.timeoutSeconds,
    insecure: settings.insecure,
    ...(settings.caPath ? { ca: readCa(settings.caPath) } : {}),
  });
  try {
    const me = (await call(transport, 'auth.me')).pw_name;
    const created = await createKey(transport, me);
    const scram = await speaksScram((method, params) => transport.call(method, params));
    // Closing the connection ends the session too; a failed logout must not lose the key just made.
    await call(transport, 'auth.logout').catch(() => undefined);
    return { username: me, apiKey: created.key, keyName: created.name, keyId: created.id, scram };
  } finally {
    await transport.close();
  }
}
