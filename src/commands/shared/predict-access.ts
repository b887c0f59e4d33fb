import { call } from '../../core/contract/client.js';
import type { Access } from '../../core/contract/method.js';
import { rpcErrors, type RpcError } from '../../core/errors.js';
import type { Transport } from '../../core/transport/transport.js';

/**
 * For a dry run: the refusal the appliance would answer a call with `access` with, judged from the
 * identity's effective roles (`auth.me`), as the dispatcher judges it before the method runs:
 * FULL_ADMIN or one of the method's roles passes. Null when the call would be let through.
 */
export async function predictedDenial(t: Transport, access: Access): Promise<RpcError | null> {
  if (access.kind !== 'roles') return null;
  const held = new Set((await call(t, 'auth.me')).privilege.roles.$set);
  if (held.has('FULL_ADMIN') || access.roles.some((r) => held.has(r))) return null;
  const denied = rpcErrors.notAuthorized();
  denied.neededRoles = access.roles;
  return denied;
}
