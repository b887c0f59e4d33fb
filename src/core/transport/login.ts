import { ERRNO, RpcError, StorError } from '../errors.js';
import { E } from '../error-catalogue.js';

/**
 * Explains a failed login the same way for both targets. The appliance does not say why (25.10.1's
 * auth.login_with_api_key answers false alike for a wrong, revoked or expired key), so the hint
 * names the key by its id, the part before `-` (MW/plugins/api_key.py:232), never its secret, and
 * where its state shows: `api-key list` marks an expired one, which the appliance keeps unrevoked.
 */
export function loginRejected(where: string, apiKey?: string): StorError {
  const id = /^(\d+)-/.exec(apiKey ?? '')?.[1];
  const lookUp =
    id === undefined
      ? ''
      : `key ${id} may have expired or been revoked: \`stor api-key list\`, as an administrator, shows (expired) or its revocation; else `;
  return new StorError(
    E.KEY_REJECTED,
    `the API key was rejected by ${where} (wrong, revoked or expired key, or its user holds no privilege)`,
    {
      hint: `${lookUp}check the key, or create a new one with \`stor api-key create NAME --user USER\``,
    },
  );
}

/**
 * A login that fails with a RecursionError (every release stor knows expands roles with no visited
 * set, MW/role.py:354-365; stable/26 :364-379) means a privilege bound to this identity has a role
 * list the appliance cannot expand. That identity cannot fix it; another administrator can.
 * `release` names the target where the transport knows it before login (the embedded appliance);
 * a remote one has not told its release yet.
 */
export function loginError(err: unknown, release: string | null = null): unknown {
  if (err instanceof RpcError && err.data?.trace?.class === 'RecursionError' && err.errno === ERRNO.EINVAL) {
    return new StorError(
      E.LOGIN_BROKEN_BY_PRIVILEGE,
      `login failed: ${err.reason} — this identity is bound to a privilege whose role list breaks role expansion on ${release ?? 'this appliance'}`,
      {
        hint: 'an administrator who is not bound to that privilege must repair it: `stor privilege check` finds it and `stor privilege fix <id>` rewrites its roles',
        cause: err,
      },
    );
  }
  return err;
}
