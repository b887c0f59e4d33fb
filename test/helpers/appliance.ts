import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { Appliance, type ApplianceOptions } from '../../src/core/appliance/appliance.js';
import type { Session } from '../../src/core/appliance/session/session.js';
import type { ApplianceSettings } from '../../src/core/appliance/settings.js';
import { RpcError } from '../../src/core/errors.js';
import { Dispatcher } from '../../src/core/rpc/dispatcher.js';
import { tempDir } from './temp-dir.js';
import { secretOf } from './totp.js';

export interface TestAppliance {
  stateDir: string;
  appliance: Appliance;
  dispatcher: Dispatcher;
  /** A session logged in with the seeded administrator key. */
  admin: Session;
  adminKey: string;
  session(secure?: boolean): Session;
  call<T = unknown>(session: Session, method: string, ...params: unknown[]): Promise<T>;
  /** The RpcError a call fails with; fails the test if the call succeeds. */
  callError(session: Session, method: string, ...params: unknown[]): Promise<RpcError>;
  login(key: string, secure?: boolean): Promise<{ session: Session; ok: unknown }>;
  reopen(settings?: Partial<ApplianceSettings>): Promise<TestAppliance>;
}

/**
 * A real appliance on a temporary state directory, driven through the real dispatcher; `hostLookup`
 * gives it name servers of the test's own. It is closed when the test ends, or through `closeWhen`
 * (afterAll: one appliance opened in a beforeAll for tests that only read it).
 */
export async function openTestAppliance(
  settings?: Partial<ApplianceSettings>,
  stateDir = tempDir(),
  hostLookup?: ApplianceOptions['hostLookup'],
  closeWhen: (close: () => void) => void = onTestFinished,
): Promise<TestAppliance> {
  const appliance = Appliance.open({
    stateDir,
    ...(settings ? { settings } : {}),
    ...(hostLookup ? { hostLookup } : {}),
  });
  closeWhen(() => appliance.close());
  const dispatcher = new Dispatcher(appliance);
  const session = (secure = true) => appliance.createSession({ transport: 'embedded', address: 'local', secure });
  const call = <T>(s: Session, method: string, ...params: unknown[]) =>
    dispatcher.call(s, method, params) as Promise<T>;
  const callError = async (s: Session, method: string, ...params: unknown[]) => {
    try {
      await dispatcher.call(s, method, params);
    } catch (err) {
      if (err instanceof RpcError) return err;
      throw err;
    }
    throw new Error(`${method} unexpectedly succeeded`);
  };
  const login = async (key: string, secure = true) => {
    const s = session(secure);
    const ok = await call(s, 'auth.login_with_api_key', key);
    return { session: s, ok };
  };
  const adminKey = readFileSync(join(stateDir, 'admin.key'), 'utf8').trim();
  const admin = (await login(adminKey)).session;
  return {
    stateDir,
    appliance,
    dispatcher,
    admin,
    adminKey,
    session,
    call,
    callError,
    login,
    reopen: async (next) => {
      appliance.close();
      return openTestAppliance(next, stateDir, hostLookup, closeWhen);
    },
  };
}

/** Creates group `group` (if new), a password-less user in it, and an API key for that user. */
export async function createUserWithKey(
  t: TestAppliance,
  username: string,
  options: { group?: string; privilegeRoles?: string[] } = {},
): Promise<{ key: string; userId: number; gid: number }> {
  const groupName = options.group ?? username;
  const existing = await t.call<{ id: number; gid: number }[]>(t.admin, 'group.query', [['name', '=', groupName]]);
  const groupId = existing[0]?.id ?? (await t.call<number>(t.admin, 'group.create', { name: groupName, smb: false }));
  const [group] = await t.call<{ id: number; gid: number }[]>(t.admin, 'group.query', [['id', '=', groupId]]);
  const user = await t.call<{ id: number }>(t.admin, 'user.create', {
    username,
    full_name: username,
    group: groupId,
    password_disabled: true,
    smb: false,
  });
  if (options.privilegeRoles) {
    await t.call(t.admin, 'privilege.create', {
      name: `${groupName}-privilege`,
      local_groups: [group!.gid],
      roles: options.privilegeRoles,
      web_shell: false,
    });
  }
  // A key needs the user to hold some privilege; a user without one gets it created first by the caller.
  const created = await t.call<{ key: string }>(t.admin, 'api_key.create', { name: `${username}-key`, username });
  return { key: created.key, userId: user.id, gid: group!.gid };
}

/** Creates group `username`, a user in it with `password`, and (optionally) a privilege for the group. */
export async function createUserWithPassword(
  t: TestAppliance,
  username: string,
  password: string,
  options: { privilegeRoles?: string[] } = {},
): Promise<{ userId: number; gid: number }> {
  const groupId = await t.call<number>(t.admin, 'group.create', { name: username, smb: false });
  const [group] = await t.call<{ gid: number }[]>(t.admin, 'group.query', [['id', '=', groupId]]);
  const user = await t.call<{ id: number }>(t.admin, 'user.create', {
    username,
    full_name: username,
    group: groupId,
    password,
    smb: false,
  });
  if (options.privilegeRoles) {
    await t.call(t.admin, 'privilege.create', {
      name: `${username}-privilege`,
      local_groups: [group!.gid],
      roles: options.privilegeRoles,
      web_shell: false,
    });
  }
  return { userId: user.id, gid: group!.gid };
}

/** Turns two-factor on (window 1: a code a test computes may cross an interval boundary) and gives `username` a secret. */
export async function enableTwoFactor(t: TestAppliance, username: string): Promise<string> {
  await t.call(t.admin, 'auth.twofactor.update', { enabled: true, window: 1 });
  const renewed = await t.call<{ twofactor_config: { provisioning_uri: string } }>(
    t.admin,
    'user.renew_2fa_secret',
    username,
    {},
  );
  return secretOf(renewed.twofactor_config.provisioning_uri);
}

/** alice's password in stateWithAlice(). */
export const ALICE_PASSWORD = 'Tr0ub4dor&3 horse';

/** A state directory whose appliance has alice (password ALICE_PASSWORD, READONLY_ADMIN), closed for a `stor serve` to open. */
export async function stateWithAlice(): Promise<string> {
  const stateDir = tempDir();
  const t = await openTestAppliance(undefined, stateDir);
  await createUserWithPassword(t, 'alice', ALICE_PASSWORD, { privilegeRoles: ['READONLY_ADMIN'] });
  t.appliance.close();
  return stateDir;
}
