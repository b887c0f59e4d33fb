import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { storIn } from '../../helpers/run-stor.js';
import { stor } from '../../helpers/runbook.js';
import { spawnServe } from '../../helpers/serve-process.js';
import { startStandinAppliance } from '../../helpers/standin-appliance.js';
import { tempDir } from '../../helpers/temp-dir.js';

type Env = Record<string, string>;

/** Group `ops` and a password-less user `alice` whose primary group it is, through raw calls (the account verbs are not these tests' subject). */
async function alice(run: ReturnType<typeof stor>): Promise<void> {
  await run(['call', 'group.create', JSON.stringify({ name: 'ops', smb: false })]);
  const id = JSON.parse(
    (await run(['call', 'group.query', '[["name","=","ops"]]', '{"get":true,"select":["id"]}'])).stdout,
  ).id as number;
  await run([
    'call',
    'user.create',
    JSON.stringify({ username: 'alice', full_name: 'Alice', group: id, password_disabled: true, smb: false }),
  ]);
}

/** The api-key walk on whichever target `env` points at; the key reaches whoami through the environment only. */
async function keyWalk(env: Env) {
  const run = stor({ ...env, TZ: 'America/New_York' });
  await alice(run);

  // No privilege bound to alice's groups: the refusal says what to bind (MW/plugins/api_key.py:193).
  const none = await run(['api-key', 'create', 'alice-key', '--user', 'alice', '--json'], 1);
  const noneError = JSON.parse(none.stderr).error;
  expect(noneError.code).toBe('USER_WITHOUT_ROLES');
  expect(noneError.message).toContain('User lacks privilege role membership.');
  expect(noneError.message).toContain(
    "bind a privilege to one of alice's groups (ops): `stor privilege update NAME --groups ops` or `stor privilege create NAME --groups ops --roles ROLE`",
  );

  // A privilege bound to ops that grants nothing: the message names it.
  await run(['privilege', 'create', 'operators', '--groups', 'ops']);
  const empty = await run(['api-key', 'create', 'alice-key', '--user', 'alice'], 1);
  expect(empty.stderr).toContain(
    'privilege "operators" is bound to alice\'s groups but grants no roles: give it roles with `stor privilege update operators --roles ROLE`',
  );

  await run(['privilege', 'update', 'operators', '--roles', 'READONLY_ADMIN']);
  // Off a terminal the key alone goes to stdout; the warning to stderr.
  const created = await run(['api-key', 'create', 'alice-key', '--user', 'alice', '--expires', '2030-01-01']);
  const key = created.stdout.trim();
  expect(key).toMatch(/^\d+-[A-Za-z0-9]{64}$/);
  expect(created.stderr).toContain('shown only now and cannot be shown again');
  const secret = key.split('-')[1]!;

  const asAlice = stor({ ...env, STOR_API_KEY: key });
  expect(JSON.parse((await asAlice(['whoami', '--json'])).stdout).username).toBe('alice');

  // --json carries the key; list never shows one (nor a hash), in any format.
  const second = JSON.parse((await run(['api-key', 'create', 'alice-ci', '--user', 'alice', '--json'])).stdout);
  expect(second).toMatchObject({
    name: 'alice-ci',
    username: 'alice',
    expires_at: null,
    key: expect.stringMatching(/^\d+-/),
  });
  const listed = await run(['api-key', 'list', '--json']);
  const rows = JSON.parse(listed.stdout) as Record<string, unknown>[];
  // A bare date is local midnight: 2030-01-01 in New York is 05:00 UTC.
  expect(rows.find((k) => k.name === 'alice-key')).toEqual({
    id: Number(key.split('-')[0]),
    name: 'alice-key',
    username: 'alice',
    created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    expires_at: '2030-01-01T05:00:00.000Z',
    expired: false,
    revoked: false,
    revoked_reason: null,
  });
  for (const out of [listed.stdout, (await run(['api-key', 'list'])).stdout]) {
    expect(out).not.toContain(secret);
    expect(out).not.toContain(second.key.split('-')[1]);
    expect(out).not.toContain('keyhash');
    expect(out).not.toContain('$scrypt$');
  }

  // A past expiry is a usage error; nothing is created.
  const past = await run(['api-key', 'create', 'old', '--user', 'alice', '--expires', '2020-01-01T10:00'], 2);
  expect(past.stderr).toContain('--expires must be in the future');

  // Revoke asks; off a terminal it needs --yes, and the key keeps working until then.
  expect((await run(['api-key', 'revoke', 'alice-key'], 2)).stderr).toContain('--yes');
  expect((await asAlice(['whoami'])).code).toBe(0);
  const revoked = JSON.parse((await run(['api-key', 'revoke', 'alice-key', '--yes', '--json'])).stdout);
  expect(revoked).toEqual({
    target: expect.any(Object),
    id: Number(key.split('-')[0]),
    name: 'alice-key',
    username: 'alice',
    revoked: true,
  });
  const refused = await asAlice(['whoami'], 4);
  expect(refused.stderr).not.toContain(secret);
  expect((await run(['api-key', 'revoke', 'alice-key', '--yes', '--json'], 1)).stderr).toContain('NOT_FOUND');
  // By id too.
  await run(['api-key', 'revoke', String(second.id), '--yes']);
  expect(JSON.parse((await run(['api-key', 'list', '--json'])).stdout).map((k: { name: string }) => k.name)).toEqual([
    'stor-embedded-admin',
  ]);
}

describe('stor api-key', () => {
  it('creates a key shown once, whoami logs in with it, list hides it, revoke makes it refused (embedded)', async () => {
    await keyWalk({ STOR_HOME: tempDir() });
  });

  it('does the same against stor serve', async () => {
    const server = await spawnServe(tempDir());
    await keyWalk({
      STOR_HOME: tempDir(),
      STOR_URL: server.baseUrl,
      STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
    });
  });

  it('refuses a name two keys share, listing their ids, and revokes nothing', async () => {
    const entry = (id: number) => ({
      id,
      name: 'dup',
      username: 'alice',
      user_identifier: 3000,
      keyhash: '********',
      created_at: { $date: 1_700_000_000_000 },
      expires_at: null,
      local: true,
      revoked: false,
      revoked_reason: null,
    });
    const nas = await startStandinAppliance({
      'auth.login_with_api_key': { result: true },
      'api_key.query': { result: [entry(3), entry(8)] },
      'api_key.delete': { result: true },
    });
    // In-process (storIn): what the stand-in is asked and the refusal, not the process, are checked.
    const run = storIn({
      STOR_HOME: tempDir(),
      STOR_CONFIG_DIR: tempDir(),
      STOR_URL: nas.baseUrl,
      STOR_API_KEY: `7-${'k'.repeat(64)}`,
    });
    const r = await run(['api-key', 'revoke', 'dup', '--yes', '--json'], 2);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'AMBIGUOUS_NAME',
      message: '2 API keys are named "dup": ids 3, 8',
    });
    expect(nas.calls).not.toContain('api_key.delete');
    await run(['api-key', 'revoke', '8', '--yes']);
    expect(nas.calls).toContain('api_key.delete');
  });
});
