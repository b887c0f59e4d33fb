import * as z from 'zod';
import { PYDANTIC_DICT, modeledAs } from './json-schema.js';
import { datetime } from './ejson.js';
import { AUTHENTICATED, PUBLIC, queryResult, roles, str, once } from './method.js';
import { queryParams } from './query.js';
import { method, service } from './service.js';

// `MW/api/v25_10_1/auth.py` and `auth_two_factor.py`; methods in `MW/plugins/auth.py` and
// `MW/plugins/auth_/2fa.py` (role prefix SYSTEM_SECURITY).

/**
 * The plain login mechanisms of AuthLoginExArgs over a release's `login_options` (with its
 * default): 25.10.1's here; 26.0 passes its own, which add `reconnect_token` (contract/v26_0_0/auth.ts).
 */
export function plainMechanisms<L extends z.ZodType>(loginOptions: () => L) {
  // The fields too are built on first use, not when this is called at load.
  const mechanism = <M extends string, F extends Record<string, z.ZodType>>(name: M, fields: () => F) =>
    once(() => z.strictObject({ mechanism: z.literal(name), ...fields(), login_options: loginOptions() }));
  return {
    apiKeyPlain: mechanism('API_KEY_PLAIN', () => ({ username: str(), api_key: str() })),
    passwordPlain: mechanism('PASSWORD_PLAIN', () => ({ username: str(), password: str() })),
    tokenPlain: mechanism('TOKEN_PLAIN', () => ({ token: str() })),
    otpToken: mechanism('OTP_TOKEN', () => ({ otp_token: str() })),
  };
}

const loginOptions = once(() => z.strictObject({ user_info: z.boolean().default(true) }));
const { apiKeyPlain, passwordPlain, tokenPlain, otpToken } = plainMechanisms(() =>
  loginOptions().default(() => ({ user_info: true })),
);
export { otpToken };

/** AuthLoginExArgs.login_data: discriminated on `mechanism`. */
export const loginData = once(() =>
  z.discriminatedUnion('mechanism', [apiKeyPlain(), passwordPlain(), tokenPlain(), otpToken()]),
);

export type LoginData = z.output<ReturnType<typeof loginData>>;

/**
 * AuthUserInfo (UserGetUserObj + attributes, two_factor_config, privilege, account_attributes).
 * The model types the last four `dict`/`list[str]`; `privilege` holds what
 * `MW/plugins/account_/privilege.py:376-405` composes (roles a set, sent as `{"$set": [...]}`), and
 * `two_factor_config` what `user.twofactor_config` answers (MW/plugins/account_/2fa.py).
 */
export const authUserInfo = once(() =>
  z.object({
    pw_name: z.string(),
    pw_gecos: z.string(),
    pw_dir: z.string(),
    pw_shell: z.string(),
    pw_uid: z.int(),
    pw_gid: z.int(),
    grouplist: z.array(z.int()).nullable(),
    sid: z.string().nullable(),
    source: z.enum(['LOCAL', 'ACTIVEDIRECTORY', 'LDAP']),
    local: z.boolean(),
    attributes: z.record(z.string(), z.unknown()),
    // Both `dict` in the model (MW/api/v25_10_1/auth.py:162-165).
    two_factor_config: modeledAs(
      z.object({
        provisioning_uri: z.string().nullable(),
        secret_configured: z.boolean(),
        interval: z.int(),
        otp_digits: z.int(),
      }),
      PYDANTIC_DICT,
    ),
    privilege: modeledAs(
      z.object({
        roles: z.object({ $set: z.array(z.string()) }),
        allowlist: z.array(z.object({ method: z.string(), resource: z.string() })),
        web_shell: z.boolean(),
        webui_access: z.boolean(),
      }),
      PYDANTIC_DICT,
    ),
    account_attributes: z.array(z.string()),
  }),
);

export type AuthUserInfo = z.output<ReturnType<typeof authUserInfo>>;

/** AuthLoginExResult: one of AuthResp's answers, discriminated on `response_type`. */
export const loginExResult = once(() =>
  z.discriminatedUnion('response_type', [
    z.object({
      response_type: z.literal('SUCCESS'),
      user_info: authUserInfo().nullable(),
      authenticator: z.enum(['LEVEL_1', 'LEVEL_2']),
    }),
    z.object({ response_type: z.literal('AUTH_ERR') }),
    z.object({ response_type: z.literal('EXPIRED') }),
    z.object({ response_type: z.literal('OTP_REQUIRED'), username: z.string() }),
    z.object({ response_type: z.literal('REDIRECT'), urls: z.array(z.string()) }),
  ]),
);

export type LoginExAnswer = z.output<ReturnType<typeof loginExResult>>;

/** TwoFactorAuthEntry. */
export const twoFactorAuthEntry = once(() =>
  z.object({
    enabled: z.boolean(),
    services: z.object({ ssh: z.boolean() }),
    window: z.int().min(0),
    id: z.int(),
  }),
);

const twoFactorAuthUpdate = once(() =>
  z.strictObject({
    enabled: z.boolean().optional(),
    services: z.strictObject({ ssh: z.boolean().default(false) }).optional(),
    window: z.int().min(0).optional(),
  }),
);

/**
 * AuthSessionsEntry (`MW/api/v25_10_1/auth.py:56-91`). `credentials_data` is one of four models
 * (none, user, API key, token: auth.py:22-53), held here as the dict each `dump()` gives.
 */
export const authSessionsEntry = once(() =>
  z.object({
    id: z.string(),
    current: z.boolean(),
    internal: z.boolean(),
    origin: z.string(),
    credentials: z.enum([
      'UNIX_SOCKET',
      'LOGIN_PASSWORD',
      'LOGIN_TWOFACTOR',
      'LOGIN_ONETIME_PASSWORD',
      'API_KEY',
      'TOKEN',
      'TRUENAS_NODE',
    ]),
    credentials_data: modeledAs(z.record(z.string(), z.unknown()), PYDANTIC_DICT),
    created_at: datetime(z.object({ $date: z.number() })),
    secure_transport: z.boolean(),
  }),
);

export const authContract = service('auth', {
  login_with_api_key: method({
    summary: 'Log the connection in with an API key `<id>-<secret>`; true on success.',
    access: PUBLIC,
    app: 'ws', // MW/plugins/auth.py:1163
    params: () => [{ name: 'api_key', schema: str() }],
    result: () => z.boolean(),
  }),
  login: method({
    summary:
      'Log the connection in with a username and password (and the one-time code when two-factor applies); true on success.',
    access: PUBLIC,
    app: 'ws', // MW/plugins/auth.py:515
    params: () => [
      { name: 'username', schema: str() },
      { name: 'password', schema: str() },
      { name: 'otp_token', schema: str().nullable(), default: () => null },
    ],
    result: () => z.boolean(),
  }),
  login_with_token: method({
    summary: 'Log the connection in with a token from auth.generate_token; true on success.',
    access: PUBLIC,
    app: 'ws', // MW/plugins/auth.py:1199
    params: () => [{ name: 'token', schema: str() }],
    result: () => z.boolean(),
  }),
  login_ex: method({
    summary:
      'Log in with a mechanism object (PASSWORD_PLAIN, API_KEY_PLAIN, TOKEN_PLAIN, OTP_TOKEN); returns a response_type object.',
    access: PUBLIC,
    app: 'ws', // MW/plugins/auth.py:680
    params: () => [{ name: 'login_data', schema: loginData() }],
    result: () => loginExResult(),
  }),
  login_ex_continue: method({
    summary: 'Answer an OTP_REQUIRED login with {mechanism: OTP_TOKEN, otp_token}.',
    access: PUBLIC,
    app: 'ws', // MW/plugins/auth.py:651
    params: () => [{ name: 'login_data', schema: otpToken() }],
    result: () => loginExResult(),
  }),
  mechanism_choices: method({
    summary: 'The login_ex mechanisms the current authenticator level allows.',
    access: PUBLIC,
    app: 'ws', // MW/plugins/auth.py:631
    params: () => [],
    result: () => z.array(z.string()),
  }),
  generate_token: method({
    summary:
      'A token (64 URL-safe characters) that logs in as this session: {ttl seconds, attrs, match_origin, single_use}.',
    // authorization_required=False: any logged-in session (MW/api/base/decorator.py:128-132, MW/main.py:911-917).
    access: AUTHENTICATED,
    app: 'rest', // MW/plugins/auth.py:385
    params: () => [
      { name: 'ttl', schema: z.int().nullable(), default: () => 600 },
      { name: 'attrs', schema: z.record(z.string(), z.unknown()), default: () => ({}) },
      { name: 'match_origin', schema: z.boolean(), default: () => true },
      { name: 'single_use', schema: z.boolean(), default: () => false },
    ],
    result: () => z.string(),
  }),
  me: method({
    summary: 'The logged-in user, its composed privilege and account attributes.',
    access: AUTHENTICATED,
    app: 'ws', // MW/plugins/auth.py:1224
    params: () => [],
    result: () => authUserInfo(),
  }),
  logout: method({
    summary: 'Log the connection out; it stays open, unauthenticated.',
    access: AUTHENTICATED,
    app: 'ws', // MW/plugins/auth.py:1213
    params: () => [],
    result: () => z.literal(true),
  }),
  // MW/plugins/auth.py:252-300: filterable, AUTH_SESSIONS_READ, `pass_app(require=True)` (WebSocket only).
  sessions: method({
    summary: "Logged-in connections: origin, credentials, login time, which one is the caller's (filters, options).",
    access: roles('AUTH_SESSIONS_READ'),
    app: 'ws',
    params: queryParams,
    result: () => queryResult(authSessionsEntry()),
  }),
  // MW/plugins/auth.py:302-312: false for an id no session has; its tokens go, its connection closes.
  terminate_session: method({
    summary:
      'End a logged-in connection by its auth.sessions id: its tokens are destroyed and it is closed. False for an unknown id.',
    access: roles('AUTH_SESSIONS_WRITE'),
    params: () => [{ name: 'id', schema: str() }],
    result: () => z.boolean(),
  }),
  // MW/plugins/auth.py:314-336: every session but the caller's and internal ones.
  terminate_other_sessions: method({
    summary: "End every logged-in connection but the caller's.",
    access: roles('AUTH_SESSIONS_WRITE'),
    app: 'ws',
    params: () => [],
    result: () => z.literal(true),
  }),
  'twofactor.config': method({
    summary: 'The global two-factor setting: enabled, services, window (TOTP intervals accepted either side of now).',
    // ConfigService role_prefix SYSTEM_SECURITY (MW/plugins/auth_/2fa.py, MW/main.py:315).
    access: roles('SYSTEM_SECURITY_READ'),
    params: () => [],
    result: () => twoFactorAuthEntry(),
  }),
  'twofactor.update': method({
    summary: 'Change the global two-factor setting {enabled, services: {ssh}, window}.',
    access: roles('SYSTEM_SECURITY_WRITE'),
    params: () => [{ name: 'auth_twofactor_update', schema: twoFactorAuthUpdate() }],
    result: () => twoFactorAuthEntry(),
  }),
});
