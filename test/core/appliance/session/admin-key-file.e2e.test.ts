import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { E } from '../../../../src/core/error-catalogue.js';
import { EXIT } from '../../../../src/commands/output/exit-codes.js';
import { openDatabase } from '../../../../src/core/store/sqlite.js';
import { spawnStor, type SpawnResult } from '../../../helpers/bin.js';
import { makeUserWithPrivilege } from '../../../helpers/runbook.js';
import { storIn } from '../../../helpers/run-stor.js';
import { spawnServe } from '../../../helpers/serve-process.js';
import { tempDir } from '../../../helpers/temp-dir.js';

// What -v says when the state's own key file is admitted without a second hash of its key, and
// when it is not (embedded.ts): how these tests tell which way a command logged in.
const ADMITTED_BY_FILE = "admin.key is the state's own key file";
const HASH_CHECKED = 'call auth.login_with_api_key';

// The set-up (seeding, a second administrator, its changes) runs in-process (storIn, the same
// `run()` the binary calls); every login these tests judge is the built binary's.

/** A fresh embedded state, seeded by a first command. */
async function seeded(): Promise<{ home: string; keyFile: string; adminKey: string }> {
  const home = tempDir();
  await storIn({ STOR_HOME: home })(['whoami']);
  const keyFile = join(home, 'admin.key');
  return { home, keyFile, adminKey: readFileSync(keyFile, 'utf8').trim() };
}

/** `whoami --json -v` with the state's key file, and with the same key given through STOR_API_KEY. */
async function bothWays(
  home: string,
  adminKey: string,
  args = ['whoami', '--json', '-v'],
): Promise<{ byFile: SpawnResult; byKey: SpawnResult }> {
  const byFile = await spawnStor(args, { env: { STOR_HOME: home } });
  const byKey = await spawnStor(args, { env: { STOR_HOME: home, STOR_API_KEY: adminKey } });
  return { byFile, byKey };
}

const errorCode = (r: SpawnResult) =>
  (JSON.parse(r.stderr.split('\n').find((l) => l.startsWith('{'))!) as { error: { code: string } }).error.code;

/** Both ways refused alike: exit 4, KEY_REJECTED. */
function refusedAlike({ byFile, byKey }: { byFile: SpawnResult; byKey: SpawnResult }): void {
  expect(byFile.code, byFile.stderr).toBe(EXIT.AUTH);
  expect(errorCode(byFile)).toBe(E.KEY_REJECTED.code);
  expect(byKey.code, byKey.stderr).toBe(EXIT.AUTH);
  expect(errorCode(byKey)).toBe(E.KEY_REJECTED.code);
}

/** A second administrator's key, to change the first key's record with real calls. */
async function secondAdmin(home: string): Promise<ReturnType<typeof storIn>> {
  const key = await makeUserWithPrivilege(storIn({ STOR_HOME: home }), 'ops', 'ops', ['FULL_ADMIN']);
  return storIn({ STOR_HOME: home, STOR_API_KEY: key });
}

function sqlOn(home: string, text: string, ...params: unknown[]): void {
  const db = openDatabase(join(home, 'stor.db'));
  try {
    db.prepare(text).run(...params);
  } finally {
    db.close();
  }
}

describe('the embedded appliance opened with its own administrator key file', () => {
  it('an embedded session opened by the key file has the identity, attributes and roles of a real login', async () => {
    const { home, adminKey } = await seeded();
    const { byFile, byKey } = await bothWays(home, adminKey);
    expect(byFile.code, byFile.stderr).toBe(0);
    expect(byKey.code, byKey.stderr).toBe(0);
    expect(byFile.stderr).toContain(ADMITTED_BY_FILE);
    expect(byFile.stderr).not.toContain(HASH_CHECKED);
    expect(byKey.stderr).toContain(HASH_CHECKED);
    expect(JSON.parse(byFile.stdout)).toEqual(JSON.parse(byKey.stdout));
    expect(JSON.parse(byFile.stdout)).toMatchObject({
      username: 'truenas_admin',
      account_attributes: ['LOCAL', 'API_KEY', 'SYS_ADMIN'],
      role_count: 141,
    });
    // auth.me whole: privilege, roles, allowlist, attributes.
    const me = await bothWays(home, adminKey, ['call', 'auth.me']);
    expect(me.byFile.code, me.byFile.stderr).toBe(0);
    expect(me.byFile.stdout).toBe(me.byKey.stdout);
  });

  it('a key given through STOR_API_KEY to the embedded target is checked for real: the right id with a wrong secret exits 4', async () => {
    const { home, adminKey } = await seeded();
    const wrong = `${adminKey.split('-')[0]}-${'x'.repeat(64)}`;
    const r = await spawnStor(['whoami', '--json', '-v'], { env: { STOR_HOME: home, STOR_API_KEY: wrong } });
    expect(r.code, r.stderr).toBe(EXIT.AUTH);
    expect(errorCode(r)).toBe(E.KEY_REJECTED.code);
    expect(r.stderr).not.toContain(ADMITTED_BY_FILE);
  });

  it('a key file rewritten with the right id and a wrong secret is checked against the hash and refused', async () => {
    const { home, keyFile, adminKey } = await seeded();
    writeFileSync(keyFile, `${adminKey.split('-')[0]}-${'x'.repeat(64)}\n`, { mode: 0o600 });
    const r = await spawnStor(['whoami', '--json', '-v'], { env: { STOR_HOME: home } });
    expect(r.code, r.stderr).toBe(EXIT.AUTH);
    expect(errorCode(r)).toBe(E.KEY_REJECTED.code);
    expect(r.stderr).toContain(HASH_CHECKED);
  });

  it('a key file replaced by the same key is checked against the hash once, then known again', async () => {
    const { home, keyFile, adminKey } = await seeded();
    writeFileSync(`${keyFile}.new`, `${adminKey}\n`, { mode: 0o600 });
    renameSync(`${keyFile}.new`, keyFile);
    const first = await spawnStor(['whoami', '-v'], { env: { STOR_HOME: home } });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(HASH_CHECKED);
    const second = await spawnStor(['whoami', '-v'], { env: { STOR_HOME: home } });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(ADMITTED_BY_FILE);
    expect(second.stderr).not.toContain(HASH_CHECKED);
  });

  it('a reset administrator key (new secret, new hash) is refused as before: the old file takes the real check', async () => {
    const { home, adminKey } = await seeded();
    const ops = await secondAdmin(home);
    await ops(['call', 'api_key.update', adminKey.split('-')[0]!, '{"reset": true}']);
    const both = await bothWays(home, adminKey);
    refusedAlike(both);
    expect(both.byFile.stderr).toContain(HASH_CHECKED);
  });

  it('a revoked administrator key is refused as before', async () => {
    const { home, adminKey } = await seeded();
    sqlOn(
      home,
      "UPDATE api_keys SET revoked = 1, revoked_reason = 'test' WHERE id = ?",
      Number(adminKey.split('-')[0]),
    );
    const both = await bothWays(home, adminKey);
    refusedAlike(both);
    expect(both.byFile.stderr).toContain(ADMITTED_BY_FILE);
  });

  it('a deleted (stor api-key revoke) administrator key is refused as before', async () => {
    const { home, adminKey } = await seeded();
    const ops = await secondAdmin(home);
    await ops(['api-key', 'revoke', adminKey.split('-')[0]!, '--yes']);
    refusedAlike(await bothWays(home, adminKey));
  });

  it('an expired administrator key is refused as before', async () => {
    const { home, adminKey } = await seeded();
    sqlOn(home, 'UPDATE api_keys SET expires_at = ? WHERE id = ?', Date.now() - 1000, Number(adminKey.split('-')[0]));
    const both = await bothWays(home, adminKey);
    refusedAlike(both);
    expect(both.byFile.stderr).toContain(ADMITTED_BY_FILE);
  });

  it('an administrator key whose user holds no privilege any more is refused as before', async () => {
    const { home, adminKey } = await seeded();
    const ops = await secondAdmin(home);
    const admin = JSON.parse(
      (await ops(['call', 'user.query', '[["username","=","truenas_admin"]]', '{"get":true,"select":["id"]}'])).stdout,
    ) as { id: number };
    await ops(['call', 'user.update', String(admin.id), '{"groups": []}']);
    const both = await bothWays(home, adminKey);
    refusedAlike(both);
    expect(both.byFile.stderr).toContain(ADMITTED_BY_FILE);
  });

  it('an administrator key whose user is locked is refused as before', async () => {
    const { home, adminKey } = await seeded();
    const ops = await secondAdmin(home);
    const admin = JSON.parse(
      (await ops(['call', 'user.query', '[["username","=","truenas_admin"]]', '{"get":true,"select":["id"]}'])).stdout,
    ) as { id: number };
    sqlOn(home, 'UPDATE users SET locked = 1 WHERE id = ?', admin.id);
    refusedAlike(await bothWays(home, adminKey));
  });

  it('stor serve with the administrator key still makes the network login: a wrong secret with the right id is refused', async () => {
    const { home, adminKey } = await seeded();
    const server = await spawnServe(home);
    const remote = (key: string) =>
      spawnStor(['whoami', '--json'], { env: { STOR_HOME: tempDir(), STOR_URL: server.baseUrl, STOR_API_KEY: key } });
    const good = await remote(adminKey);
    expect(good.code, good.stderr).toBe(0);
    expect(JSON.parse(good.stdout).username).toBe('truenas_admin');
    const wrong = await remote(`${adminKey.split('-')[0]}-${'x'.repeat(64)}`);
    expect(wrong.code, wrong.stderr).toBe(EXIT.AUTH);
    expect(errorCode(wrong)).toBe(E.KEY_REJECTED.code);
  });
});
