/**
 * auth.* and auth.twofactor.* of `stor serve --emulate truenas-25.10.1`, driven with raw JSON-RPC
 * frames, and the credentials `/_upload/` takes, driven with raw HTTP: every answer checked against
 * the contract (MW/api/v25_10_1/auth.py, auth_two_factor.py) and every error against the literal
 * texts and codes of the 25.10.1 source.
 */
import { describe, expect, it } from 'vitest';
import {
  createUserWithKey,
  createUserWithPassword,
  enableTwoFactor,
  type TestAppliance,
} from '../../../helpers/appliance.js';
import { SAFETY_MS, connectWs, loggedInWs, type TestServer } from '../../../helpers/server.js';
import { currentCode, wrongCode } from '../../../helpers/totp.js';
import { server25, conforming, errorOf, validation } from '../../../conformance/harness.js';

/** The `error` of a reply, with the trace left out (its frames are ours, not the appliance's). */
const callError = (errno: number, errname: string, reason: string) => ({
  code: -32001,
  message: 'Method call error',
  data: { error: errno, errname, reason: `[${errname}] ${reason}`, extra: null },
  traceClass: 'CallError',
});

const NOT_AUTHENTICATED = callError(207, 'ENOTAUTHENTICATED', 'Not authenticated');
const NOT_AUTHORIZED = callError(13, 'EACCES', 'Not authorized');
const TOKEN = /^[A-Za-z0-9_-]{64}$/;

/** A member of builtin_administrators (so FULL_ADMIN through "Local Administrator") with a password. */
async function adminMember(t: TestAppliance, username: string, password: string): Promise<void> {
  const [admins] = await t.call<{ id: number }[]>(t.admin, 'group.query', [['gid', '=', 544]]);
  await t.call(t.admin, 'user.create', {
    username,
    full_name: username,
    group_create: true,
    groups: [admins!.id],
    password,
    smb: false,
  });
}

describe('auth login methods as 25.10.1 (MW/plugins/auth.py:514-543, 650-1209)', () => {
  it('auth.login_with_api_key: true for a good key, false for a wrong one (MW/plugins/auth.py:1162-1195)', async () => {
    const server = await server25();
    const client = await connectWs(server.rpcUrl);
    expect(await conforming(client, 'auth.login_with_api_key', [`${server.adminKey.split('-')[0]}-wrong`])).toBe(false);
    expect(await conforming(client, 'auth.login_with_api_key', [server.adminKey])).toBe(true);
  });

  it('auth.login: true with the password, false without the code a two-factor user needs (MW/plugins/auth.py:516-542)', async () => {
    const server = await server25();
    await createUserWithPassword(server.testAppliance, 'alice', 'pw-alice-1', { privilegeRoles: ['READONLY_ADMIN'] });
    const client = await connectWs(server.rpcUrl);
    expect(await conforming(client, 'auth.login', ['alice', 'wrong'])).toBe(false);
    expect(await conforming(client, 'auth.login', ['alice', 'pw-alice-1'])).toBe(true);
    const secret = await enableTwoFactor(server.testAppliance, 'alice');
    const second = await connectWs(server.rpcUrl);
    expect(await conforming(second, 'auth.login', ['alice', 'pw-alice-1'])).toBe(false);
    expect(await conforming(second, 'auth.login', ['alice', 'pw-alice-1', currentCode(secret)])).toBe(true);
  });

  it('auth.login_ex: SUCCESS with user_info (AuthUserInfo), AUTH_ERR, and user_info null on request (MW/plugins/auth.py:1107-1124, MW/api/v25_10_1/auth.py:159-176)', async () => {
    const server = await server25();
    await createUserWithPassword(server.testAppliance, 'bob', 'pw-bob-1', { privilegeRoles: ['READONLY_ADMIN'] });
    const client = await connectWs(server.rpcUrl);
    expect(
      await conforming(client, 'auth.login_ex', [{ mechanism: 'PASSWORD_PLAIN', username: 'bob', password: 'nope' }]),
    ).toEqual({ response_type: 'AUTH_ERR' });
    const ok = await conforming<Record<string, any>>(client, 'auth.login_ex', [
      { mechanism: 'PASSWORD_PLAIN', username: 'bob', password: 'pw-bob-1' },
    ]);
    expect(ok).toMatchObject({
      response_type: 'SUCCESS',
      authenticator: 'LEVEL_1',
      user_info: { pw_name: 'bob', account_attributes: ['LOCAL'] },
    });
    expect(Object.keys(ok.user_info)).toEqual([
      'pw_name',
      'pw_gecos',
      'pw_dir',
      'pw_shell',
      'pw_uid',
      'pw_gid',
      'grouplist',
      'sid',
      'source',
      'local',
      'attributes',
      'two_factor_config',
      'privilege',
      'account_attributes',
    ]);
    const quiet = await conforming(client, 'auth.login_ex', [
      {
        mechanism: 'API_KEY_PLAIN',
        username: 'truenas_admin',
        api_key: server.adminKey,
        login_options: { user_info: false },
      },
    ]);
    expect(quiet).toEqual({ response_type: 'SUCCESS', user_info: null, authenticator: 'LEVEL_1' });
  });

  it('auth.login_ex: the mechanism tag is required and names the member in error locations (MW/api/v25_10_1/auth.py:239-240, MW/api/base/handler/accept.py:74-80)', async () => {
    const server = await server25();
    const client = await connectWs(server.rpcUrl);
    expect(errorOf(await client.call('auth.login_ex', [{ username: 'x', password: 'y' }]))).toEqual(
      validation(['login_data.mechanism', 'Field required']),
    );
    expect(errorOf(await client.call('auth.login_ex', [{ mechanism: 'API_KEY_PLAIN', username: 'x' }]))).toEqual(
      validation(['login_data.API_KEY_PLAIN.api_key', 'Field required']),
    );
    expect(errorOf(await client.call('auth.login_ex', [{ mechanism: 'KERBEROS' }]))).toEqual(
      validation([
        'login_data',
        "Input tag 'KERBEROS' found using 'mechanism' does not match any of the expected tags: 'API_KEY_PLAIN', 'PASSWORD_PLAIN', 'TOKEN_PLAIN', 'OTP_TOKEN'",
      ]),
    );
  });

  it('auth.login_ex: OTP_TOKEN without a pending challenge is EINVAL (MW/plugins/auth.py:619-620)', async () => {
    const server = await server25();
    const client = await connectWs(server.rpcUrl);
    expect(errorOf(await client.call('auth.login_ex', [{ mechanism: 'OTP_TOKEN', otp_token: '123456' }]))).toEqual(
      callError(22, 'EINVAL', 'OTP_TOKEN: no authentication in progress'),
    );
  });

  it('auth.login_ex_continue: OTP_REQUIRED, a wrong code asks again, the right one is SUCCESS (MW/plugins/auth.py:650-677, 978-1034)', async () => {
    const server = await server25();
    await createUserWithPassword(server.testAppliance, 'carol', 'pw-carol-1', { privilegeRoles: ['READONLY_ADMIN'] });
    const secret = await enableTwoFactor(server.testAppliance, 'carol');
    const client = await connectWs(server.rpcUrl);
    expect(
      await conforming(client, 'auth.login_ex', [
        { mechanism: 'PASSWORD_PLAIN', username: 'carol', password: 'pw-carol-1' },
      ]),
    ).toEqual({
      response_type: 'OTP_REQUIRED',
      username: 'carol',
    });
    expect(
      await conforming(client, 'auth.login_ex_continue', [{ mechanism: 'OTP_TOKEN', otp_token: wrongCode(secret) }]),
    ).toEqual({
      response_type: 'OTP_REQUIRED',
      username: 'carol',
    });
    const ok = await conforming<Record<string, any>>(client, 'auth.login_ex_continue', [
      { mechanism: 'OTP_TOKEN', otp_token: currentCode(secret) },
    ]);
    expect(ok.response_type).toBe('SUCCESS');
    expect(ok.user_info.account_attributes).toEqual(['LOCAL', '2FA']);
  });

  it('auth.mechanism_choices: EINVAL AttributeError before login, the AAL1 mechanisms after (MW/plugins/auth.py:630-647, MW/utils/auth.py:71-80)', async () => {
    const server = await server25();
    const client = await connectWs(server.rpcUrl);
    expect(errorOf(await client.call('auth.mechanism_choices'))).toEqual({
      code: -32001,
      message: 'Method call error',
      data: {
        error: 22,
        errname: 'EINVAL',
        reason: "'NoneType' object has no attribute 'may_create_auth_token'",
        extra: null,
      },
      traceClass: 'AttributeError',
    });
    await client.result('auth.login_with_api_key', [server.adminKey]);
    expect(await conforming(client, 'auth.mechanism_choices')).toEqual([
      'API_KEY_PLAIN',
      'TOKEN_PLAIN',
      'PASSWORD_PLAIN',
    ]);
  });

  it('auth.me and auth.logout need a login; logout answers true and leaves the socket unauthenticated (MW/plugins/auth.py:1212-1242)', async () => {
    const server = await server25();
    const client = await connectWs(server.rpcUrl);
    expect(errorOf(await client.call('auth.me'))).toEqual(NOT_AUTHENTICATED);
    expect(errorOf(await client.call('auth.logout'))).toEqual(NOT_AUTHENTICATED);
    await client.result('auth.login_with_api_key', [server.adminKey]);
    const me = await conforming<Record<string, any>>(client, 'auth.me');
    expect(me).toMatchObject({
      pw_name: 'truenas_admin',
      pw_uid: 950,
      grouplist: null,
      sid: null,
      source: 'LOCAL',
      local: true,
      attributes: {},
    });
    expect(me.privilege.allowlist).toEqual([{ method: '*', resource: '*' }]);
    expect(await conforming(client, 'auth.logout')).toBe(true);
    expect(errorOf(await client.call('auth.me'))).toEqual(NOT_AUTHENTICATED);
  });
});

describe('auth tokens as 25.10.1 (MW/plugins/auth.py:51-117, 386-438, 1036-1101)', () => {
  it('auth.generate_token needs a login and answers 64 URL-safe characters; auth.login_with_token logs another socket in as the same user', async () => {
    const server = await server25();
    const anonymous = await connectWs(server.rpcUrl);
    expect(errorOf(await anonymous.call('auth.generate_token'))).toEqual(NOT_AUTHENTICATED);
    const { key } = await createUserWithKey(server.testAppliance, 'dave', { privilegeRoles: ['READONLY_ADMIN'] });
    const owner = await loggedInWs(server.rpcUrl, key);
    const token = await conforming<string>(owner, 'auth.generate_token');
    expect(token).toMatch(TOKEN);
    const other = await connectWs(server.rpcUrl);
    expect(await conforming(other, 'auth.login_with_token', ['not-a-token'])).toBe(false);
    expect(await conforming(other, 'auth.login_with_token', [token])).toBe(true);
    const me = await conforming<Record<string, any>>(other, 'auth.me');
    // The token's session is its parent's: user, privilege and account attributes (MW/plugins/auth.py:1266-1292).
    expect(me).toMatchObject({ pw_name: 'dave', account_attributes: ['LOCAL', 'API_KEY'] });
    expect(errorOf(await other.call('privilege.create', [{ name: 'x', web_shell: false }]))).toEqual(NOT_AUTHORIZED);
    // Multi-use: a third socket may use it too.
    expect(await conforming(await connectWs(server.rpcUrl), 'auth.login_with_token', [token])).toBe(true);
  });

  it('TOKEN_PLAIN in auth.login_ex: SUCCESS with user_info; a single-use token works once (MW/plugins/auth.py:1091-1093)', async () => {
    const server = await server25();
    const owner = await loggedInWs(server.rpcUrl, server.adminKey);
    const token = await conforming<string>(owner, 'auth.generate_token', [600, {}, true, true]);
    const first = await connectWs(server.rpcUrl);
    const ok = await conforming<Record<string, any>>(first, 'auth.login_ex', [{ mechanism: 'TOKEN_PLAIN', token }]);
    expect(ok).toMatchObject({
      response_type: 'SUCCESS',
      authenticator: 'LEVEL_1',
      user_info: { pw_name: 'truenas_admin' },
    });
    const second = await connectWs(server.rpcUrl);
    expect(await conforming(second, 'auth.login_ex', [{ mechanism: 'TOKEN_PLAIN', token }])).toEqual({
      response_type: 'AUTH_ERR',
    });
  });

  it('a token with attrs cannot log in; one with ttl 0 has expired; null ttl is the default (MW/plugins/auth.py:413-414, 1057-1068)', async () => {
    const server = await server25();
    const owner = await loggedInWs(server.rpcUrl, server.adminKey);
    const withAttrs = await conforming<string>(owner, 'auth.generate_token', [600, { purpose: 'download' }]);
    const expired = await conforming<string>(owner, 'auth.generate_token', [0]);
    const defaultTtl = await conforming<string>(owner, 'auth.generate_token', [null]);
    const client = await connectWs(server.rpcUrl);
    expect(await conforming(client, 'auth.login_with_token', [withAttrs])).toBe(false);
    expect(await conforming(client, 'auth.login_with_token', [expired])).toBe(false);
    expect(await conforming(client, 'auth.login_with_token', [defaultTtl])).toBe(true);
    expect(errorOf(await owner.call('auth.generate_token', ['600']))).toEqual(
      validation(['ttl', 'Input should be a valid integer']),
    );
  });

  it('match_origin binds a token to the address that asked for it (MW/utils/origin.py:90-94)', async () => {
    const server = await server25();
    const t = server.testAppliance;
    // The in-process administrator session is not at 127.0.0.1, where the socket below comes from.
    const bound = await t.call<string>(t.admin, 'auth.generate_token');
    const unbound = await t.call<string>(t.admin, 'auth.generate_token', 600, {}, false);
    const client = await connectWs(server.rpcUrl);
    expect(await conforming(client, 'auth.login_with_token', [bound])).toBe(false);
    expect(await conforming(client, 'auth.login_with_token', [unbound])).toBe(true);
  });

  it('logging out a token session destroys its token (TokenSessionManagerCredentials.logout, MW/auth.py)', async () => {
    const server = await server25();
    const owner = await loggedInWs(server.rpcUrl, server.adminKey);
    const token = await owner.result<string>('auth.generate_token');
    const user = await connectWs(server.rpcUrl);
    expect(await user.result('auth.login_with_token', [token])).toBe(true);
    expect(await user.result('auth.logout')).toBe(true);
    expect(await (await connectWs(server.rpcUrl)).result('auth.login_with_token', [token])).toBe(false);
  });
});

describe('auth.twofactor.* as 25.10.1 (MW/api/v25_10_1/auth_two_factor.py)', () => {
  it('config and update answer TwoFactorAuthEntry; SYSTEM_SECURITY roles; window must be ≥ 0', async () => {
    const server = await server25();
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    expect(await conforming(admin, 'auth.twofactor.config')).toEqual({
      enabled: false,
      services: { ssh: false },
      window: 0,
      id: 1,
    });
    expect(await conforming(admin, 'auth.twofactor.update', [{ enabled: true, window: 2 }])).toEqual({
      enabled: true,
      services: { ssh: false },
      window: 2,
      id: 1,
    });
    expect(errorOf(await admin.call('auth.twofactor.update', [{ window: -1 }]))).toEqual(
      validation(['auth_twofactor_update.window', 'Input should be greater than or equal to 0']),
    );
    expect(errorOf(await admin.call('auth.twofactor.update', [{ id: 1 }]))).toEqual(
      validation(['auth_twofactor_update.id', 'Extra inputs are not permitted']),
    );
    const { key } = await createUserWithKey(server.testAppliance, 'erin', { privilegeRoles: ['DATASET_READ'] });
    const limited = await loggedInWs(server.rpcUrl, key);
    expect(errorOf(await limited.call('auth.twofactor.config'))).toEqual(NOT_AUTHORIZED);
    expect(errorOf(await limited.call('auth.twofactor.update', [{ enabled: false }]))).toEqual(NOT_AUTHORIZED);
  });
});

describe('account attributes under --emulate truenas-25.10.1 (MW/utils/account/authenticator.py:231-256)', () => {
  it('SYS_ADMIN for uid 950 only, not for another member of builtin_administrators (MW/utils/account/authenticator.py:253-256)', async () => {
    const server = await server25();
    await adminMember(server.testAppliance, 'frank', 'pw-frank-1');
    const frank = await connectWs(server.rpcUrl);
    expect(await frank.result('auth.login', ['frank', 'pw-frank-1'])).toBe(true);
    const me = await conforming<Record<string, any>>(frank, 'auth.me');
    expect(me.account_attributes).toEqual(['LOCAL']);
    expect(me.privilege.allowlist).toEqual([{ method: '*', resource: '*' }]);
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    expect((await conforming<Record<string, any>>(admin, 'auth.me')).account_attributes).toEqual([
      'LOCAL',
      'API_KEY',
      'SYS_ADMIN',
    ]);
  });
});

/** A multipart `filesystem.put` of `hello` to `path`, with the given headers and query string. */
async function upload(server: TestServer, headers: Record<string, string>, query = '', path = '/mnt/tank/hello.txt') {
  const form = new FormData();
  form.append('data', JSON.stringify({ method: 'filesystem.put', params: [path, { mode: 420 }] }));
  form.append('file', new Blob(['hello']), 'hello.txt');
  const res = await fetch(`${server.url}/_upload/${query}`, {
    method: 'POST',
    headers,
    body: form,
    signal: AbortSignal.timeout(SAFETY_MS),
  });
  return { status: res.status, text: await res.text() };
}

const basic = (user: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

describe('/_upload/ credentials as 25.10.1 (MW/apps/file_app.py:142-166, MW/restful.py:30-126)', () => {
  it('HTTP Basic: a FULL_ADMIN user other than 950 may upload; a wrong password is 401; malformed values are 400 and 500', async () => {
    const server = await server25();
    await adminMember(server.testAppliance, 'gina', 'pw-gina-1');
    expect(await upload(server, basic('gina', 'pw-gina-1'))).toEqual({
      status: 200,
      text: expect.stringMatching(/^\{"job_id": ?\d+\}$/),
    });
    expect(await upload(server, basic('gina', 'wrong'))).toEqual({ status: 401, text: 'Bad username or password' });
    expect(await upload(server, basic('nobody', 'pw-gina-1'))).toEqual({
      status: 401,
      text: 'Bad username or password',
    });
    expect(await upload(server, { authorization: 'Basic Z2luYQ' })).toEqual({ status: 400, text: '400: Bad Request' });
    expect(
      await upload(server, { authorization: `Basic ${Buffer.from([0xff, 0xfe, 0x3a, 0x41]).toString('base64')}` }),
    ).toEqual({
      status: 400,
      text: '400: Bad Request',
    });
    // `username, password = ...split(':', 1)` raises ValueError, which aiohttp answers with its generic 500.
    expect((await upload(server, { authorization: `Basic ${Buffer.from('gina').toString('base64')}` })).status).toBe(
      500,
    );
  });

  it('HTTP Basic is refused while two-factor is on (MW/restful.py:97-99)', async () => {
    const server = await server25();
    await adminMember(server.testAppliance, 'hank', 'pw-hank-1');
    await server.testAppliance.call(server.testAppliance.admin, 'auth.twofactor.update', { enabled: true });
    expect(await upload(server, basic('hank', 'pw-hank-1'))).toEqual({
      status: 401,
      text: 'HTTP Basic Auth is unavailable when OTP is enabled',
    });
  });

  it('Token header and ?auth_token=: a token of a FULL_ADMIN session uploads; single-use ones once; unknown ones are 403 Invalid token', async () => {
    const server = await server25();
    const owner = await loggedInWs(server.rpcUrl, server.adminKey);
    const multi = await owner.result<string>('auth.generate_token');
    expect((await upload(server, { authorization: `Token ${multi}` })).status).toBe(200);
    expect((await upload(server, {}, `?auth_token=${multi}`)).status).toBe(200);
    const once = await owner.result<string>('auth.generate_token', [600, {}, true, true]);
    expect((await upload(server, {}, `?auth_token=${once}`)).status).toBe(200);
    expect(await upload(server, {}, `?auth_token=${once}`)).toEqual({ status: 403, text: 'Invalid token' });
    expect(await upload(server, { authorization: 'Token not-a-token' })).toEqual({
      status: 403,
      text: 'Invalid token',
    });
    const withAttrs = await owner.result<string>('auth.generate_token', [600, { purpose: 'upload' }]);
    expect(await upload(server, { authorization: `Token ${withAttrs}` })).toEqual({
      status: 403,
      text: 'Invalid token',
    });
    // A header of another scheme counts as no credentials, and then the query string is not read.
    expect(await upload(server, { authorization: 'Digest x' }, `?auth_token=${multi}`)).toEqual({
      status: 401,
      text: '401: Unauthorized',
    });
  });

  it('a token whose parent may not call filesystem.put is 403 Invalid token, and a single-use one is not consumed by the refusal (MW/plugins/auth.py:458-476)', async () => {
    const server = await server25();
    const { key } = await createUserWithKey(server.testAppliance, 'ivan', {
      privilegeRoles: ['FILESYSTEM_FULL_CONTROL'],
    });
    const ivan = await loggedInWs(server.rpcUrl, key);
    const once = await ivan.result<string>('auth.generate_token', [600, {}, true, true]);
    expect(await upload(server, { authorization: `Token ${once}` })).toEqual({ status: 403, text: 'Invalid token' });
    expect(await (await connectWs(server.rpcUrl)).result('auth.login_with_token', [once])).toBe(true);
  });

  it('the gate is FULL_ADMIN: every filesystem role without FULL_ADMIN is 403 with a key too (MW/apps/file_app.py:190-200)', async () => {
    const server = await server25();
    const { key } = await createUserWithKey(server.testAppliance, 'jane', {
      privilegeRoles: [
        'FILESYSTEM_FULL_CONTROL',
        'FILESYSTEM_ATTRS_READ',
        'FILESYSTEM_ATTRS_WRITE',
        'FILESYSTEM_DATA_READ',
        'FILESYSTEM_DATA_WRITE',
      ],
    });
    expect(await upload(server, { authorization: `Bearer ${key}` })).toEqual({ status: 403, text: '403: Forbidden' });
    expect((await upload(server, { authorization: `Bearer ${server.adminKey}` })).status).toBe(200);
  });
});
