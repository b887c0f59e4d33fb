import { execFile, spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { MethodContract } from '../../src/core/contract/method.js';
import { contractViolations } from '../../src/core/contract/conformance.js';
import { SAFETY_MS } from '../helpers/server.js';

const MIDCLT_MAIN = "import sys; sys.argv[0] = 'midclt'; from truenas_api_client import main; sys.exit(main())";

/**
 * python3 with the official client on its path, or why there is none. STOR_TEST_API_CLIENT is a
 * PYTHONPATH (colon-separated) under which `import truenas_api_client` gives truenas/api_client and
 * `import websocket` a websocket-client ≥ 1.3.2 (docs/NODE.md "SQLite, CI and other majors").
 */
export function findClient(): { env: NodeJS.ProcessEnv; keyLogin: (key: string) => string[] } | { reason: string } {
  const dir = process.env.STOR_TEST_API_CLIENT;
  if (!dir)
    return {
      reason:
        'STOR_TEST_API_CLIENT is not set (a PYTHONPATH giving truenas_api_client and websocket-client; docs/NODE.md "SQLite, CI and other majors")',
    };
  const env = { ...process.env, PYTHONPATH: dir };
  const probe =
    'import truenas_api_client, websocket; v = tuple(int(x) for x in websocket.__version__.split(".")[:3]); assert v >= (1, 3, 2), "websocket-client " + websocket.__version__ + " < 1.3.2"';
  const r = spawnSync('python3', ['-c', probe], { encoding: 'utf8', env });
  if (r.error) return { reason: `python3 cannot be run: ${r.error.message}` };
  if (r.status !== 0)
    return {
      reason: `STOR_TEST_API_CLIENT=${dir} does not give truenas_api_client with websocket-client ≥ 1.3.2: ${r.stderr.trim().split('\n').at(-1) ?? ''}`,
    };
  // midclt's key login: `-K KEY` in TS-25.10.1's client; stable/26's logs a key in with SCRAM by
  // default, which needs the key's user and a SCRAM-serving appliance, so there `-U … -K … --plain`.
  const scram =
    spawnSync('python3', ['-c', 'import truenas_api_client as t; print(hasattr(t, "APIKeyAuthMech"))'], {
      encoding: 'utf8',
      env,
    }).stdout.trim() === 'True';
  return { env, keyLogin: (key) => (scram ? ['-U', 'truenas_admin', '-K', key, '--plain'] : ['-K', key]) };
}

/**
 * The official client of a release's line: 25.10.1's (STOR_TEST_API_CLIENT), or for 26.0 stable/26's
 * (STOR_TEST_API_CLIENT_26 put before STOR_TEST_API_CLIENT, which still gives websocket-client), so
 * each emulated release is driven by the client shipped with it. Without STOR_TEST_API_CLIENT_26,
 * 26.0 is driven by 25.10.1's client, as before.
 */
export function clientFor(release: '25.10.1' | '26.0'): ReturnType<typeof findClient> {
  const base = findClient();
  const dir26 = process.env.STOR_TEST_API_CLIENT_26;
  if (release !== '26.0' || 'reason' in base || !dir26) return base;
  const env = { ...base.env, PYTHONPATH: `${dir26}:${base.env.PYTHONPATH}` };
  const r = spawnSync('python3', ['-c', 'import truenas_api_client as t; assert hasattr(t, "APIKeyAuthMech")'], {
    encoding: 'utf8',
    env,
  });
  if (r.status !== 0)
    return { reason: `STOR_TEST_API_CLIENT_26=${dir26} does not give truenas_api_client at the 26 line` };
  return { env, keyLogin: (key) => ['-U', 'truenas_admin', '-K', key, '--plain'] };
}

/** `midclt ARGS` (truenas_api_client:main) in its own process: its exit code and what it printed. */
export function midclt(
  env: NodeJS.ProcessEnv,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'python3',
      ['-c', MIDCLT_MAIN, ...args],
      { env, timeout: SAFETY_MS, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr: error?.killed ? `${stderr}\n(killed after ${SAFETY_MS} ms)` : stderr });
      },
    );
  });
}

const RUNNER = fileURLToPath(new URL('./official-client-methods.py', import.meta.url));

/** One call's outcome as official-client-methods.py prints it: midclt's output, or its error as midclt prints it. */
export interface Outcome {
  label: string;
  ok: boolean;
  json?: string;
  class?: string;
  errno?: number | null;
  stderr?: string;
  /** The ClientException's `error` (a job's `error` field when a job failed). */
  error?: string;
  /** The trace's `class` (a failed job's `exc_info.type`). */
  trace_class?: string | null;
  /** What the `pre` calls answered, for a failure's message. */
  pre?: string[];
}

/** Runs the steps through the official client in one Python process; one outcome per step, by label. */
export function runClient(
  env: NodeJS.ProcessEnv,
  url: string,
  key: string,
  steps: unknown[],
): Promise<Map<string, Outcome>> {
  return new Promise((resolve, reject) => {
    const py = spawn('python3', [RUNNER], { env, stdio: ['pipe', 'pipe', 'pipe'], timeout: SAFETY_MS * 3 });
    let out = '';
    let err = '';
    py.stdout.on('data', (d: Buffer) => (out += d.toString()));
    py.stderr.on('data', (d: Buffer) => (err += d.toString()));
    py.on('error', reject);
    py.on('close', (code) => {
      const outcomes = new Map(
        out
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Outcome)
          .map((o) => [o.label, o] as const),
      );
      if (code !== 0) reject(new Error(`runner exited ${code} after ${outcomes.size} calls:\n${err}`));
      else resolve(outcomes);
    });
    py.stdin.end(JSON.stringify({ url, key, steps }));
  });
}

/** A method called once with a valid argument and once with an invalid one, and what midclt prints for the latter. */
/** An earlier call's result (or a field of it), filled in by the runner. */
export const ref = (label: string, ...path: (string | number)[]) => ({ $ref: label, path });

/** What midclt prints for a -32602, one `[ERRNAME] attribute: message` line per error. */
export const printed = (...lines: [errname: string, attribute: string, message: string][]) =>
  lines.map(([errname, a, m]) => `[${errname}] ${a}: ${m}`).join('\n');

export interface ClientCase {
  method: string;
  valid: unknown[];
  bad: unknown[];
  stderr: string;
}

/**
 * What the runner's outcomes of `cases` (labelled `<method>` and `<method> bad`) got wrong: a valid
 * call that failed or answered outside the release's result schema, an invalid one that did not fail
 * with ValidationErrors printed as `stderr`; and the valid calls' answers, by method.
 */
export function caseFailures(
  contract: ReadonlyMap<string, MethodContract>,
  cases: readonly ClientCase[],
  outcomes: ReadonlyMap<string, Outcome>,
): { failures: string[]; answers: Record<string, unknown> } {
  const failures: string[] = [];
  const answers: Record<string, unknown> = {};
  for (const c of cases) {
    const good = outcomes.get(c.method);
    if (!good?.ok) failures.push(`${c.method} ${JSON.stringify(c.valid)}: ${good?.stderr ?? 'no outcome'}`);
    else {
      answers[c.method] = JSON.parse(good.json!);
      const violations = contractViolations(contract.get(c.method)!.result, answers[c.method]);
      if (violations.length > 0) failures.push(`${c.method} result: ${violations.join('; ')}`);
    }
    const bad = outcomes.get(`${c.method} bad`);
    if (bad?.ok !== false || bad.class !== 'ValidationErrors' || bad.stderr !== c.stderr)
      failures.push(
        `${c.method} ${JSON.stringify(c.bad)}: want ${c.stderr}, got ${bad?.class}: ${bad?.stderr ?? bad?.json}`,
      );
  }
  return { failures, answers };
}

/** The NFS methods, called through the official client by test/core/official-client-nfs.test.ts. */
export const NFS_METHODS = [
  'sharing.nfs.query',
  'sharing.nfs.get_instance',
  'sharing.nfs.create',
  'sharing.nfs.update',
  'sharing.nfs.delete',
  'nfs.config',
  'nfs.update',
] as const;

/** The periodic snapshot task methods, called through the official client by test/core/official-client-snapshottask.test.ts. */
export const SNAPSHOT_TASK_METHODS = [
  'pool.snapshottask.query',
  'pool.snapshottask.get_instance',
  'pool.snapshottask.create',
  'pool.snapshottask.update',
  'pool.snapshottask.delete',
  'pool.snapshottask.run',
  'pool.snapshottask.max_count',
  'pool.snapshottask.max_total_count',
  'pool.snapshottask.update_will_change_retention_for',
  'pool.snapshottask.delete_will_change_retention_for',
] as const;

/** The keychain credential methods, called through the official client by test/core/official-client-keychain.test.ts. */
export const KEYCHAIN_METHODS = [
  'keychaincredential.query',
  'keychaincredential.get_instance',
  'keychaincredential.create',
  'keychaincredential.update',
  'keychaincredential.delete',
  'keychaincredential.used_by',
  'keychaincredential.generate_ssh_key_pair',
  'keychaincredential.remote_ssh_host_key_scan',
  'keychaincredential.remote_ssh_semiautomatic_setup',
  'keychaincredential.setup_ssh_connection',
] as const;

/** The replication methods but the runs, called through the official client by test/core/official-client-replication.test.ts; the runs (jobs) by official-client-replication-run.test.ts. */
export const REPLICATION_METHODS = [
  'replication.query',
  'replication.get_instance',
  'replication.create',
  'replication.update',
  'replication.delete',
  'replication.list_naming_schemas',
  'replication.list_datasets',
  'replication.count_eligible_manual_snapshots',
  'replication.target_unmatched_snapshots',
  'replication.create_dataset',
  'replication.config.config',
  'replication.config.update',
] as const;
