import { expect } from 'vitest';
import { clientEnv } from './client-env.js';
import { runStor, type RunResult } from './run-stor.js';

/** In-process `stor` on a fresh embedded appliance, with a directory or two to share. */
export async function shareTarget(dirs: readonly string[] = ['/mnt/tank/exports', '/mnt/tank/docs']) {
  const env = clientEnv();
  const run = (args: string[], extra: Record<string, string> = {}) => runStor(args, { env: { ...env, ...extra } });
  for (const d of dirs) expect((await run(['mkdir', '-p', d])).code).toBe(0);
  /** The command's `--json` answer; fails the test unless it exits 0. */
  const json = async <T = Record<string, unknown>>(args: string[]): Promise<T> => {
    const r = await run([...args, '--json']);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as T;
  };
  /** `stor share list --json`, without the fields a test need not pin. */
  const shares = () =>
    json<{ kind: string; id: number; name?: string; path: string; enabled: boolean }[]>(['share', 'list']);
  return { home: env.STOR_HOME!, env, run, json, shares };
}

/** The error object `--json` puts on stderr. */
export const errorOf = (r: RunResult) =>
  (JSON.parse(r.stderr) as { error: { code: string; message: string; hint?: string } }).error;
