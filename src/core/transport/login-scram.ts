import { malformedAnswer } from '../contract/client.js';
import { loginExResult26, type LoginData26, type LoginExAnswer26 } from '../contract/v26_0_0/auth.js';
import { RpcError, StorError } from '../errors.js';
import { E } from '../error-catalogue.js';
import {
  buildClientFinal,
  buildClientFirst,
  keysFromSaltedPassword,
  newNonce,
  parseServerFirst,
  saltedPassword,
  ScramMessageError,
  serverFinalMatches,
  tlsServerEndPoint,
} from '../net/scram.js';
import type { LoginLink, RpcCall } from './login-link.js';

/*
 * The client half of TrueNAS 26's SCRAM key login (truenas_api_client/auth_api_key.py:360-420 at
 * stable/26; messages in net/scram.ts). Over TLS the exchange is bound to the certificate the
 * server presented (tls-server-end-point, `p=` header), as the official client does by default
 * (:207-250). Over plain ws:// — which stor allows only to a loopback address — it is unbound
 * (`n,,`): 26 refuses a bound request there (MW/utils/account/authenticator.py:467-472), and
 * SCRAM never sends the key, bound or not. Any failure after SCRAM was offered is a StorError:
 * the key is never sent instead.
 */

/** `auth.login_ex` with one SCRAM message, checked against 26's AuthLoginExResult. */
async function step(
  call: RpcCall,
  scram_type: 'CLIENT_FIRST_MESSAGE' | 'CLIENT_FINAL_MESSAGE',
  rfc_str: string,
): Promise<LoginExAnswer26> {
  const data: LoginData26 = { mechanism: 'SCRAM', scram_type, rfc_str };
  const answer = await call<unknown>('auth.login_ex', [data]);
  // Checked against 26's AuthLoginExResult (contract/v26_0_0/auth.ts), not 25.10.1's, which has no SCRAM_RESPONSE.
  const parsed = loginExResult26().safeParse(answer);
  if (!parsed.success) throw malformedAnswer('auth.login_ex', answer, parsed.error.issues[0]!);
  return parsed.data;
}

function failed(where: string, why: string, cause?: unknown): StorError {
  return new StorError(E.SCRAM_FAILED, `SCRAM login to ${where} failed: ${why} (the key was not sent)`, {
    hint: "check the key and its user (STOR_USER or the profile's `username`), or create a new key with `stor api-key create NAME --user USER`",
    ...(cause !== undefined ? { cause } : {}),
  });
}

function refusal(where: string, answer: LoginExAnswer26): StorError {
  switch (answer.response_type) {
    case 'AUTH_ERR':
      return failed(where, "the appliance refused the key (wrong, revoked or expired, or not this user's)");
    case 'DENIED':
      return failed(where, "the key's user has no API access (no privilege)");
    case 'EXPIRED':
      return failed(where, 'the key has expired');
    case 'REDIRECT':
      return new StorError(
        E.LOGIN_REDIRECT,
        `${where} is a standby node; log in to the active one: ${answer.urls.join(', ')}`,
      );
    default:
      return failed(where, `unexpected answer ${answer.response_type}`);
  }
}

export async function scramLogin(
  call: RpcCall,
  where: string,
  apiKey: string,
  username: string | undefined,
  link?: LoginLink,
): Promise<void> {
  if (!username) {
    throw new StorError(
      E.SCRAM_NEEDS_USER,
      `${where} offers SCRAM key login (TrueNAS 26), which names the key's user, and stor does not know it`,
      {
        hint: "set STOR_USER=NAME (the key's owner), or run `stor login` again with STOR_USER set: the profile then keeps it",
      },
    );
  }
  const m = /^(\d{1,15})-(.+)$/s.exec(apiKey);
  if (!m) throw failed(where, 'the key is not of the form <id>-<secret>');
  const cert = link?.peerCertificate() ?? null;
  let binding: Buffer | null = null;
  if (cert) {
    try {
      binding = tlsServerEndPoint(cert);
    } catch (err) {
      throw failed(where, `cannot bind to the server's certificate: ${(err as Error).message}`, err);
    }
  }
  const nonce = newNonce();
  let first: ReturnType<typeof buildClientFirst>;
  try {
    first = buildClientFirst(username, Number(m[1]), nonce, binding !== null);
  } catch (err) {
    // As the official client, a name with ',' or '=' is refused, not escaped (py_scram/client_first.py at stable/26).
    throw failed(
      where,
      `the user name ${JSON.stringify(username)} cannot be sent in SCRAM: ${(err as Error).message}`,
      err,
    );
  }
  try {
    const one = await step(call, 'CLIENT_FIRST_MESSAGE', first.rfc);
    if (one.response_type !== 'SCRAM_RESPONSE' || one.scram_type !== 'SERVER_FIRST_RESPONSE') throw refusal(where, one);
    const serverFirst = parseServerFirst(one.rfc_str, nonce);
    const keys = keysFromSaltedPassword(await saltedPassword(m[2]!, serverFirst.salt, serverFirst.iterations));
    const final = buildClientFinal(first.gs2Header, binding, serverFirst.nonce, first.bare, serverFirst.rfc, keys);
    const two = await step(call, 'CLIENT_FINAL_MESSAGE', final.rfc);
    if (two.response_type !== 'SCRAM_RESPONSE' || two.scram_type !== 'SERVER_FINAL_RESPONSE') throw refusal(where, two);
    if (!serverFinalMatches(two.rfc_str, keys.serverKey, final.authMessage)) {
      // The official client logs out before failing (truenas_api_client/auth_api_key.py:410-420).
      await call('auth.logout', []).catch(() => undefined);
      throw failed(
        where,
        'the appliance did not prove it knows the key (server signature mismatch): suspect the connection',
      );
    }
  } catch (err) {
    if (err instanceof ScramMessageError)
      throw failed(where, `the appliance's SCRAM message is not valid: ${err.message}`, err);
    // 26 answers a key whose user lacks API access with an error, not DENIED (MW/plugins/auth_/login_ex_impl.py:486-497).
    if (err instanceof RpcError) throw failed(where, `the appliance answered ${err.reason}`, err);
    throw err;
  }
  link?.trace?.(
    `login: SCRAM-SHA-512${binding ? ', channel-bound (tls-server-end-point)' : ', unbound (no TLS)'}, as ${username}, key id ${m[1]}`,
  );
}
