import type { LoginData, LoginExAnswer } from '../contract/auth.js';
import { notAnApplianceAnswer } from '../contract/answer-error.js';
import { RPC_CODE, RpcError, StorError } from '../errors.js';
import { E } from '../error-catalogue.js';
import type { SecretKind } from './endpoint.js';
import { loginRejected } from './login.js';

import type { LoginLink, RpcCall } from './login-link.js';

export type { LoginLink, RpcCall } from './login-link.js';

/** How a WebSocket session logs in. The connection code is the same whatever the credential. */
export interface LoginStrategy {
  /** What the login sends; named when sending it in clear is refused. */
  readonly secret: SecretKind;
  /** The key, where there is one: the upload endpoint and HTTP RPC take it on every request. */
  readonly apiKey?: string;
  /** Logs the connection in, or throws (a StorError of kind `auth` when the appliance says no). */
  login(call: RpcCall, where: string, link?: LoginLink): Promise<void>;
  /**
   * True once the appliance offered SCRAM to this login: the key then never leaves stor, not even
   * as an upload's `Bearer` (bearerKey refuses), whatever the login's outcome.
   */
  readonly keyWithheld?: boolean;
}

/** The key for endpoints that authenticate every request with one; a password session has none. */
export function bearerKey(login: LoginStrategy, where: string): string {
  if (login.keyWithheld) {
    throw new StorError(
      E.SCRAM_FAILED,
      `${where} offered SCRAM key login, so stor does not send the key itself, and the appliance gave no token for this request (the key was not sent)`,
      {
        hint: "check that the key's user may call auth.generate_token (stor whoami)",
      },
    );
  }
  if (login.apiKey !== undefined) return login.apiKey;
  throw new StorError(
    E.NEEDS_API_KEY,
    `${where} takes uploads and HTTP calls with an API key, and this session logged in with a password`,
    {
      hint: 'use the profile `stor login --username NAME` saved: it holds an API key',
    },
  );
}

/**
 * An API key login: SCRAM-SHA-512 where the appliance offers it (TrueNAS 26), the key itself
 * otherwise (25.10.x). What is offered is `auth.mechanism_choices`, asked before logging in, as
 * the official client does (truenas_api_client/auth_api_key.py:300-315 at stable/26): 25.04.2 to
 * 25.10.2 fail that call for a connection not logged in (its AttributeError), and an appliance
 * without the method answers -32601; both mean no SCRAM. Once SCRAM is offered the key is never
 * sent, whatever happens (login-scram.ts). `username` is the key's owner, which SCRAM names.
 * `scramOnly`: the appliance is known to speak SCRAM (its profile says so, saved at `stor login`):
 * the key is withheld from the first connection on, so a server that then offers no SCRAM (a man
 * in the middle of an unverified TLS link, say) gets a refusal, not the key.
 */
export function apiKeyLogin(apiKey: string, username?: string, scramOnly = false): LoginStrategy {
  let withheld = scramOnly;
  return {
    secret: 'an API key',
    apiKey,
    get keyWithheld() {
      return withheld;
    },
    async login(call, where, link) {
      if (withheld || (await offersScram(call))) {
        // Sticky: a reconnect to an appliance that no longer offers SCRAM is a downgrade, not a reason to send the key.
        withheld = true;
        const { scramLogin } = await import('./login-scram.js');
        await scramLogin(call, where, apiKey, username, link);
        return;
      }
      link?.trace?.('login: API key (auth.login_with_api_key; the appliance offers no SCRAM)');
      const answer = await call<unknown>('auth.login_with_api_key', [apiKey]);
      if (typeof answer !== 'boolean')
        throw notAnApplianceAnswer(
          'auth.login_with_api_key',
          `${where} answered auth.login_with_api_key with ${JSON.stringify(answer)?.slice(0, 80) ?? 'nothing'}, not true or false`,
        );
      if (!answer) throw loginRejected(where, apiKey);
    },
  };
}

/**
 * Whether the appliance of a logged-in connection offers SCRAM key login (26 lists it; a logged-in
 * 25.10.x lists the plain mechanisms), for `stor login` to pin in the profile (Profile.scram). An
 * answer that cannot be had is no: the login stands, and nothing is pinned.
 */
export const speaksScram = (call: RpcCall): Promise<boolean> => offersScram(call).catch(() => false);

/** Whether `auth.mechanism_choices` lists SCRAM; the 25.10.x failures of that call mean no. */
async function offersScram(call: RpcCall): Promise<boolean> {
  let choices: unknown;
  try {
    choices = await call<unknown>('auth.mechanism_choices', []);
  } catch (err) {
    if (
      err instanceof RpcError &&
      (err.code === RPC_CODE.METHOD_NOT_FOUND ||
        err.reason.includes("'NoneType' object has no attribute 'may_create_auth_token'"))
    )
      return false;
    throw err;
  }
  return Array.isArray(choices) && choices.includes('SCRAM');
}

/**
 * Supplies the one-time code when the appliance asks for one: `attempt` counts the codes it has
 * already rejected. Resolves null to give up.
 */
export type OtpSource = (username: string, attempt: number) => Promise<string | null>;

const NO_USER_INFO = { user_info: false };

/** `auth.login_ex`, its answer checked against the contract (AuthLoginExResult). */
async function loginEx(call: RpcCall, data: LoginData): Promise<LoginExAnswer> {
  // Loaded here, not before the connect: zod and the whole contract (answer-error.ts).
  const { call: contractCall } = await import('../contract/client.js');
  return contractCall({ call }, 'auth.login_ex', [data]);
}

/**
 * `auth.login_ex` with PASSWORD_PLAIN, then OTP_TOKEN for as long as the appliance answers
 * OTP_REQUIRED (25.10.1 allows three retries, then AUTH_ERR). Error texts name the user, never the
 * password or the code.
 */
export function passwordLogin(username: string, password: string, otp: OtpSource): LoginStrategy {
  return {
    secret: 'a password',
    async login(call, where) {
      let answer = await loginEx(call, {
        mechanism: 'PASSWORD_PLAIN',
        username,
        password,
        login_options: NO_USER_INFO,
      });
      let attempts = 0;
      while (answer.response_type === 'OTP_REQUIRED') {
        const code = await otp(answer.username, attempts);
        if (code === null) throw otpRejected(where, username);
        attempts++;
        answer = await loginEx(call, { mechanism: 'OTP_TOKEN', otp_token: code, login_options: NO_USER_INFO });
      }
      switch (answer.response_type) {
        case 'SUCCESS':
          return;
        case 'AUTH_ERR':
          throw attempts > 0 ? otpRejected(where, username) : passwordRejected(where, username);
        case 'EXPIRED':
          throw new StorError(
            E.LOGIN_EXPIRED,
            `${where} refused the login as ${username}: the account or its password has expired`,
            {
              hint: 'an administrator must renew the account or set a new password',
            },
          );
        case 'REDIRECT':
          throw new StorError(
            E.LOGIN_REDIRECT,
            `${where} is a standby node; log in to the active one: ${answer.urls.join(', ')}`,
          );
      }
    },
  };
}

/** The appliance answers AUTH_ERR alike for all of these, so as not to tell which names exist. */
function passwordRejected(where: string, username: string): StorError {
  return new StorError(
    E.LOGIN_REJECTED,
    `${where} refused the login as ${username}: wrong username or password, password login disabled for the user, or the user is bound to no privilege (a user whose groups match no privilege cannot log in)`,
    {
      hint: "check the username and password; an administrator can bind one of the user's groups to a privilege (`stor privilege create`)",
    },
  );
}

function otpRejected(where: string, username: string): StorError {
  return new StorError(E.OTP_REJECTED, `${where} rejected the one-time code for ${username}`, {
    hint: "use the code your authenticator app shows now; if codes keep failing, check this machine's clock and the appliance's",
  });
}
