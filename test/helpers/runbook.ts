import { spawn } from 'node:child_process';
import { expect } from 'vitest';
import { CHEAP_HASHES, STOR_BIN, spawnStor, type SpawnResult } from './bin.js';
import { EMBEDDED_MEANT } from './embedded-meant.js';

/** Runs `bin/stor` with a fixed environment, failing the test with stderr when the exit code is not the one expected. */
export function stor(env: Record<string, string | undefined>) {
  return async (args: string[], expectCode = 0, stdin?: string): Promise<SpawnResult> => {
    const r = await spawnStor(args, { env, ...(stdin !== undefined ? { stdin } : {}) });
    expect(r.code, `stor ${args.join(' ')}\n${r.stderr}`).toBe(expectCode);
    return r;
  };
}

/** Creates group `group`, a password-less user in it, a privilege for the group, and a key; returns the key. */
export async function makeUserWithPrivilege(
  run: ReturnType<typeof stor>,
  user: string,
  group: string,
  roles: string[],
  extraArgs: string[] = [],
): Promise<string> {
  // group.create answers the new group's id (MW/plugins/account.py:2019, 2048): no query needed for it.
  const groupId: unknown = JSON.parse(
    (await run(['call', 'group.create', JSON.stringify({ name: group, smb: false })])).stdout,
  );
  if (!Number.isInteger(groupId)) throw new Error(`group.create answered ${JSON.stringify(groupId)}, not an id`);
  await run([
    'call',
    'user.create',
    JSON.stringify({ username: user, full_name: user, group: groupId, password_disabled: true, smb: false }),
  ]);
  await run(['privilege', 'create', group, '--groups', group, '--roles', roles.join(','), '--force', ...extraArgs]);
  const created = JSON.parse(
    (await run(['call', 'api_key.create', JSON.stringify({ name: `${user}-key`, username: user })])).stdout,
  );
  return created.key as string;
}

/**
 * Runs a bash runbook with `stor` a function around the built binary, as an operator's script
 * would run it: under `set -euo pipefail` unless `strict` is false (a script that checks each
 * exit code itself).
 */
export function runBash(
  script: string,
  env: Record<string, string>,
  options: { strict?: boolean; cwd?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const prelude = `stor() { node "$STOR_BIN" "$@"; }\n${options.strict === false ? '' : 'set -euo pipefail\n'}`;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `${prelude}${script}`], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        STOR_SESSION: 'off',
        ...EMBEDDED_MEANT,
        STOR_BIN,
        STOR_CHECK_RESULTS: '1',
        ...CHEAP_HASHES,
        ...env,
      },
      ...(options.cwd ? { cwd: options.cwd } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
