import { ERRNO, rpcErrors } from '../../errors.js';
import {
  authMessage,
  buildServerFirst,
  CB_TLS_SERVER_END_POINT,
  parseClientFinal,
  parseClientFirst,
  proofMatches,
  serverSignature,
  type ClientFirst,
} from '../../net/scram.js';
import { findApiKeyScram } from '../../store/api-key-scram.js';
import { findApiKey } from '../../store/api-keys.js';
import type { Appliance } from '../appliance.js';
import { prepareLogin } from './session-check.js';
import type { Session } from './session.js';

/*
 * `auth.login_ex` with `mechanism: "SCRAM"` as TrueNAS 26 answers it (MW/plugins/auth.py:927-960,
 * MW/plugins/auth_/login_ex_impl.py:426-510, MW/utils/account/authenticator.py:421-540, all at
 * stable/26). pam_truenas does the SCRAM arithmetic there and tells the client nothing but
 * AUTH_ERR when any step fails; here net/scram.ts does it against the key's stored SCRAM data.
 */

/** What one SCRAM step answers: the server message, AUTH_ERR, or LIMITED (stor's per-key failure budget). */
export type ScramStep =
  { kind: 'first'; rfc: string } | { kind: 'final'; rfc: string } | { kind: 'AUTH_ERR' } | { kind: 'LIMITED' };

const AUTH_ERR = { kind: 'AUTH_ERR' } as const;

/**
 * CLIENT_FIRST_MESSAGE. Refused with AUTH_ERR, as 26 does, when the message does not parse
 * (MW/utils/account/authenticator.py:425-440 keeps the parse error for handle_first_message), when it
 * asks for channel binding (`p=`) on a connection without TLS (:467-472), when the user does not exist (:478-482), and when
 * pam_truenas has no usable key for `user:id` (unknown, another user's, revoked or expired: 26
 * publishes only live keys to the keyring, MW/etc_files/pam_keyring.py:13-33).
 */
export function scramFirst(appliance: Appliance, session: Session, rfc: string): ScramStep {
  // A new ScramPamAuthenticator replaces whatever handle the connection had (:441-443).
  session.scram = 'idle';
  let first: ClientFirst;
  try {
    first = parseClientFirst(rfc);
  } catch {
    return AUTH_ERR;
  }
  if (first.gs2Flag.startsWith('p=') && !session.origin.tlsEndPoint) return AUTH_ERR;
  // RFC 5802 §7: a cb-name the server does not implement fails (26 implements only
  // tls-server-end-point, scram_authentication.rst "Channel Binding"); §6: `y` where the server
  // could bind (over TLS) means channel binding was stripped on the way, a downgrade: fail.
  if (first.gs2Flag.startsWith('p=') && first.gs2Flag !== `p=${CB_TLS_SERVER_END_POINT}`) return AUTH_ERR;
  if (first.gs2Flag === 'y' && session.origin.tlsEndPoint) return AUTH_ERR;
  const { store, keyChecks } = appliance;
  const { address } = session.origin;
  const user = appliance.accounts().users.find((u) => u.username === first.username);
  const key = first.apiKeyId > 0 ? store.read(() => findApiKey(store.db, first.apiKeyId)) : undefined;
  if (keyChecks.refused(address, key ? key.id : null)) return { kind: 'LIMITED' };
  const scram = key ? store.read(() => findApiKeyScram(store.db, key.id)) : undefined;
  const live = key && !key.revoked && (key.expires_at === null || key.expires_at > Date.now());
  if (!user || !key || !scram || !live || key.user_id !== user.id) {
    keyChecks.failed(address, key ? key.id : null);
    return AUTH_ERR;
  }
  const serverFirst = buildServerFirst(first.nonce, Buffer.from(scram.salt, 'base64'), scram.iterations);
  session.scram = {
    keyId: key.id,
    userId: user.id,
    gs2Header: first.gs2Header,
    clientFirstBare: first.bare,
    serverFirst: serverFirst.rfc,
    nonce: serverFirst.nonce,
    storedKey: Buffer.from(scram.stored_key, 'base64'),
    serverKey: Buffer.from(scram.server_key, 'base64'),
  };
  return { kind: 'first', rfc: serverFirst.rfc };
}

/**
 * CLIENT_FINAL_MESSAGE. Out of turn it fails as 26's code does: on a connection that never started
 * a login (or whose last login succeeded) `_auth_ctx_check` finds no PAM handle and raises
 * RuntimeError (login_ex_impl.py:45-46, reached at :467); after any other attempt, CallError 'SCRAM authentication
 * is not in progress' (:476-477). A proof that does not match, a nonce or `c=` other than the
 * exchange's (the channel binding is the server's own certificate's), or a key revoked meanwhile:
 * AUTH_ERR. A key whose user holds no privilege passes PAM, and 26 then builds the session from
 * `auth.authenticate_user`'s None (:486-497), which fails with TypeError: the emulator answers that.
 */
export function scramFinal(appliance: Appliance, session: Session, rfc: string): ScramStep {
  const pending = session.scram;
  if (pending === null) throw rpcErrors.exception('RuntimeError', 'pam handle was not initialized');
  if (pending === 'idle') throw rpcErrors.call(ERRNO.EFAULT, 'SCRAM authentication is not in progress');
  session.scram = 'idle';
  const { store, keyChecks } = appliance;
  const { address } = session.origin;
  const fail = (): ScramStep => {
    keyChecks.failed(address, pending.keyId);
    return AUTH_ERR;
  };
  let final;
  try {
    final = parseClientFinal(rfc);
  } catch {
    return fail();
  }
  const bound = pending.gs2Header.startsWith('p=');
  const expectedBinding = Buffer.concat([
    Buffer.from(pending.gs2Header),
    bound ? session.origin.tlsEndPoint! : Buffer.alloc(0),
  ]);
  const message = authMessage(pending.clientFirstBare, pending.serverFirst, final.withoutProof);
  if (
    !final.nonce.equals(pending.nonce) ||
    !final.channelBinding.equals(expectedBinding) ||
    !proofMatches(pending.storedKey, message, final.proof)
  ) {
    return fail();
  }
  // Read again: the key may have been revoked, reset or deleted since the server-first-message.
  const key = store.read(() => findApiKey(store.db, pending.keyId));
  const scram = key ? store.read(() => findApiKeyScram(store.db, key.id)) : undefined;
  if (
    !key ||
    key.revoked ||
    (key.expires_at !== null && key.expires_at <= Date.now()) ||
    !scram ||
    scram.stored_key !== pending.storedKey.toString('base64')
  ) {
    return fail();
  }
  const accounts = appliance.accounts();
  const user = accounts.users.find((u) => u.id === pending.userId);
  if (!user || user.locked) return fail();
  const prepared = prepareLogin(appliance, accounts, user, 'API_KEY');
  if (!prepared) throw rpcErrors.exception('TypeError', "'NoneType' object is not subscriptable");
  // The account attributes gain SCRAM after API_KEY (MW/utils/account/authenticator.py:536-540 at stable/26).
  session.establish(
    {
      type: 'API_KEY',
      userId: user.id,
      username: user.username,
      apiKey: { id: key.id, name: key.name, keyHash: key.key_hash, expiresAt: key.expires_at },
      scram: { channelBound: bound },
      loginAt: Date.now(),
    },
    prepared.privilege,
    [...prepared.attributes, 'SCRAM'],
  );
  session.scram = null;
  return { kind: 'final', rfc: `v=${serverSignature(pending.serverKey, message).toString('base64')}` };
}
