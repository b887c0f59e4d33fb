// Shared pieces of the benchmarks: timing, medians, spawning stor, peak memory.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const STOR = join(ROOT, 'bin/stor.js');
export const NODE = process.execPath;

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export function tempDir(prefix = 'stor-bench-') {
  return mkdtempSync(join(process.env.STOR_BENCH_TMP ?? tmpdir(), prefix));
}

export function cleanup(dir) {
  rmSync(dir, { recursive: true, force: true });
}

/** Wall time of one run of a command, in milliseconds; throws if it fails. */
export function timeOnce(cmd, args, options = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], ...options });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

/** Median wall time over `runs` runs, after `warmup` unmeasured ones. */
export function timeMedian(cmd, args, { runs = 11, warmup = 2, ...options } = {}) {
  for (let i = 0; i < warmup; i++) timeOnce(cmd, args, options);
  return median(Array.from({ length: runs }, () => timeOnce(cmd, args, options)));
}

/**
 * Median wall times of several commands measured in turn within each round, so that a change in
 * the machine's load during the measurement weighs on all of them alike. `cases`: name → [cmd, args, options].
 */
export function timeMediansInterleaved(cases, { runs = 21, warmup = 2 } = {}) {
  const entries = Object.entries(cases);
  for (let i = 0; i < warmup; i++) for (const [, [cmd, args, options]] of entries) timeOnce(cmd, args, options);
  const times = Object.fromEntries(entries.map(([name]) => [name, []]));
  for (let i = 0; i < runs; i++)
    for (const [name, [cmd, args, options]] of entries) times[name].push(timeOnce(cmd, args, options));
  return Object.fromEntries(entries.map(([name]) => [name, median(times[name])]));
}

/** Peak resident memory (MiB) and wall time (ms) of one command, from GNU time. */
export function measurePeak(cmd, args, options = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S %M', cmd, ...args], { encoding: 'utf8', ...options });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const [user, sys, kb] = r.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  // cpu: the process's user + system seconds (GNU time: its own and its waited-for children's).
  return { ms, mib: kb / 1024, cpu: user + sys, stdout: r.stdout };
}

/** User + system seconds a running process has used so far (/proc/<pid>/stat, all its threads). */
export function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime (fields 14 and 15 of stat, 12 and 13 after the command's name), in clock ticks of 1/100 s.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The pid of the session agent started with XDG_RUNTIME_DIR=`runtimeDir`, if one runs. */
export function agentPidIn(runtimeDir) {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('stor session agent')) continue;
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`XDG_RUNTIME_DIR=${runtimeDir}`))
        return Number(pid);
    } catch {
      // Ended, or not ours to read.
    }
  }
  return undefined;
}

/** Starts `stor serve` under GNU time; stop() returns its peak memory (MiB). */
export async function startServe(stateDir, extra = []) {
  const child = spawn(
    '/usr/bin/time',
    ['-f', 'PEAK %M', NODE, STOR, 'serve', '--port', '0', '--state', stateDir, '--json', ...extra],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const info = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]));
    });
    exited.then(() => reject(new Error(`stor serve exited early: ${stderr}`)));
  });
  return {
    ...info,
    base: info.rpc_url.replace(/\/api\/current$/, ''),
    key: readFileSync(info.admin_key_file, 'utf8').trim(),
    async stop() {
      // GNU time forwards nothing; signal the node child (time's only child) by its pid.
      const pids = spawnSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' })
        .stdout.trim()
        .split('\n')
        .filter(Boolean);
      for (const pid of pids) process.kill(Number(pid), 'SIGTERM');
      await exited;
      const m = /PEAK (\d+)/.exec(stderr);
      return m ? Number(m[1]) / 1024 : NaN;
    },
  };
}

export function machine() {
  const cpu = readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? 'unknown CPU';
  const memKb = Number(readFileSync('/proc/meminfo', 'utf8').match(/MemTotal:\s*(\d+)/)?.[1] ?? 0);
  const cores = Number(spawnSync('nproc', { encoding: 'utf8' }).stdout.trim());
  return `${cores} cores (${cpu}), ${(memKb / 1024 / 1024).toFixed(0)} GiB RAM, Node ${process.version}, ${process.platform} ${process.arch}`;
}

/** A JSON-RPC client over one WebSocket: call() resolves with the whole reply, result() with its result. */
export async function rpcClient(url) {
  const { default: WebSocket } = await import('ws');
  const ws = new WebSocket(url, { perMessageDeflate: false });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let id = 0;
  const waiting = new Map();
  ws.on('message', (data) => {
    const msg = JSON.parse(data.toString());
    waiting.get(msg.id)?.(msg);
    waiting.delete(msg.id);
  });
  const call = (method, params = []) =>
    new Promise((resolve) => {
      const my = ++id;
      waiting.set(my, resolve);
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: my, method, params }));
    });
  const result = async (method, params) => {
    const reply = await call(method, params);
    if (reply.error) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
    return reply.result;
  };
  return { ws, call, result, close: () => ws.terminate() };
}

/** Waits for a job to end, over one WebSocket: what `stor upload` does after the transfer. */
export async function waitJob(rpcUrl, key, jobId) {
  const client = await rpcClient(rpcUrl);
  await client.result('auth.login_with_api_key', [key]);
  await client.result('core.set_options', [{ legacy_jobs: false }]);
  await client.result('core.job_wait', [jobId]);
  client.ws.close();
}

/**
 * `stor serve` instances for one client's logins, each replaced before its 20 logins a minute
 * per address (as on the appliance) would be refused.
 */
export class LoginServers {
  constructor() {
    this.server = undefined;
    this.used = 0;
  }
  async next() {
    if (!this.server || this.used >= 18) {
      await this.stop();
      this.dir = tempDir();
      this.server = await startServe(this.dir);
      this.used = 0;
    }
    this.used++;
    return this.server;
  }
  async stop() {
    if (!this.server) return;
    await this.server.stop();
    this.server = undefined;
    cleanup(this.dir);
  }
}
