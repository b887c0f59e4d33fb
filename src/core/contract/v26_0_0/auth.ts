import * as z from 'zod';
import { authContract, authUserInfo, plainMechanisms } from '../auth.js';
import { str, once } from '../method.js';
import { method, service } from '../service.js';

// What 26.0 changed in the auth.* methods stor serves (`git diff stable/26:MW/api/v25_10_1/auth.py
// stable/26:MW/api/v26_0_0/auth.py`): login_options gains `reconnect_token` (default false,
// MW/api/v26_0_0/auth.py:81-98); login_ex takes a fifth mechanism, SCRAM (:136-183), and answers
// two more response types, SCRAM_RESPONSE (:236-254) and DENIED (:214-217); SUCCESS carries
// `reconnect_token` (:225-234). auth.mechanism_choices keeps its shape and now lists SCRAM
// (MW/utils/auth.py:96-104). The rest is 25.10.1's.

const loginOptions = once(() =>
  z.strictObject({ user_info: z.boolean().default(true), reconnect_token: z.boolean().default(false) }),
);
const { apiKeyPlain, passwordPlain, tokenPlain, otpToken } = plainMechanisms(() =>
  loginOptions().default(() => ({ user_info: true, reconnect_token: false })),
);

/** AuthSCRAM (MW/api/v26_0_0/auth.py:136-183): no login_options. */
const scram = once(() =>
  z.strictObject({
    mechanism: z.literal('SCRAM'),
    scram_type: z.enum(['CLIENT_FIRST_MESSAGE', 'CLIENT_FINAL_MESSAGE']),
    rfc_str: str(),
  }),
);

/** AuthLoginExArgs.login_data in 26 (MW/api/v26_0_0/auth.py:318-322). */
export const loginData26 = once(() =>
  z.discriminatedUnion('mechanism', [apiKeyPlain(), passwordPlain(), tokenPlain(), otpToken(), scram()]),
);

export type LoginData26 = z.output<ReturnType<typeof loginData26>>;

/** AuthLoginExResult in 26 (MW/api/v26_0_0/auth.py:325-332), in its order. */
export const loginExResult26 = once(() =>
  z.discriminatedUnion('response_type', [
    z.object({
      response_type: z.literal('SUCCESS'),
      user_info: authUserInfo().nullable(),
      authenticator: z.enum(['LEVEL_1', 'LEVEL_2']),
      reconnect_token: z.string().nullable(),
    }),
    z.object({ response_type: z.literal('AUTH_ERR') }),
    z.object({ response_type: z.literal('EXPIRED') }),
    z.object({ response_type: z.literal('OTP_REQUIRED'), username: z.string() }),
    z.object({ response_type: z.literal('REDIRECT'), urls: z.array(z.string()) }),
    z.object({
      response_type: z.literal('SCRAM_RESPONSE'),
      scram_type: z.enum(['SERVER_FIRST_RESPONSE', 'SERVER_FINAL_RESPONSE']),
      rfc_str: z.string(),
      user_info: authUserInfo().nullable(),
    }),
    z.object({ response_type: z.literal('DENIED') }),
  ]),
);

export type LoginExAnswer26 = z.output<ReturnType<typeof loginExResult26>>;

const base = authContract;

/** The auth.* entries 26.0 changed; every other auth.* method is 25.10.1's. */
export const authContract26 = service('auth', {
  login_ex: method({
    summary:
      'Log in with a mechanism object (PASSWORD_PLAIN, API_KEY_PLAIN, TOKEN_PLAIN, OTP_TOKEN, SCRAM); returns a response_type object.',
    access: base['auth.login_ex'].access,
    app: base['auth.login_ex'].app,
    params: () => [{ name: 'login_data', schema: loginData26() }],
    result: () => loginExResult26(),
  }),
  login_ex_continue: method({
    summary: base['auth.login_ex_continue'].summary,
    access: base['auth.login_ex_continue'].access,
    app: base['auth.login_ex_continue'].app,
    params: () => [{ name: 'login_data', schema: otpToken() }],
    result: () => loginExResult26(),
  }),
  mechanism_choices: method({
    summary:
      'The login_ex mechanisms the current authenticator level allows (SCRAM among them at LEVEL_1); no login needed.',
    access: base['auth.mechanism_choices'].access,
    app: base['auth.mechanism_choices'].app,
    params: () => [],
    result: () => z.array(z.string()),
  }),
});
