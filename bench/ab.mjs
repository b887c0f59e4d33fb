// Same-run A/B of start-up: `node bench/ab.mjs ROUNDS BUILD…`, each BUILD a directory holding a copy
// of bin/, dist/bundle/, package.json and a node_modules link (or this checkout). Every round runs
// `node -e 0`, the minimal Python client, and each build's embedded and remote `stor whoami` once, in
// turn, so load changes weigh on all alike; prints medians and ratios. STOR_AB_NODE picks the node
// that runs the builds (the servers run on this one). Besides wall time, the CPU time each run
// took (user + system, from /proc/self/stat's waited-for children, in 10 ms ticks; mean): on a
// shared, loaded machine the wall time mostly measures the wait for a core.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { cleanup, LoginServers, median, tempDir, timeOnce } from './lib.mjs';

const [roundsArg, ...builds] = process.argv.slice(2);
// In-process start-up, as before the session agent: each run its own process and login.
process.env.STOR_SESSION = 'off';
const rounds = Number(roundsArg ?? 21);
const node = process.env.STOR_AB_NODE ?? process.execPath;
// STOR_AB_REMOTE_ONLY=1: a node without the SQLite binding its ABI needs can still run the remote case.
const remoteOnly = process.env.STOR_AB_REMOTE_ONLY === '1';
const floor = process.env.STOR_AB_FLOOR === '1';
const python = ['python3', '/usr/bin/python3'].find(
  (py) => spawnSync(py, ['-c', 'import websocket'], { stdio: 'ignore' }).status === 0,
);

const home = tempDir();
const emptyHome = tempDir();
// The code caches in a directory of this run's own: in the caller's ~/.cache, a cache another run of
// the same build wrote (another command's, or a remote whoami's, without the emulator's functions)
// is used as it is, and the embedded case would compile those functions at every run.
const cacheHome = tempDir();
process.env.XDG_CACHE_HOME = cacheHome;
const cases = [['node -e 0', () => [node, ['-e', '0'], {}]]];
const servers = [];
if (python) {
  const s = new LoginServers();
  servers.push(s);
  cases.push([
    'python client',
    async () => {
      const srv = await s.next();
      return [python, [resolve('bench/rpc-client.py'), srv.rpc_url, srv.key], {}];
    },
  ]);
}
// With STOR_AB_FLOOR=1, the least an embedded `whoami` must do, without stor: open the state's
// SQLite file with node:sqlite (Node >= 22.13), read the users and print them (bench/floor-sqlite.cjs).
if (floor && !remoteOnly) {
  timeOnce(node, [join(resolve(builds[0]), 'bin/stor.js'), 'whoami'], { env: { ...process.env, STOR_HOME: home } });
  cases.push([
    'node, SQLite read',
    () => [node, [resolve('bench/floor-sqlite.cjs')], { env: { ...process.env, STOR_HOME: home } }],
  ]);
}
for (const b of builds) {
  const bin = join(resolve(b), 'bin/stor.js');
  if (!remoteOnly) {
    timeOnce(node, [bin, 'whoami'], { env: { ...process.env, STOR_HOME: home } });
    cases.push([`${b} embedded`, () => [node, [bin, 'whoami'], { env: { ...process.env, STOR_HOME: home } }]]);
  }
  // STOR_AB_FLOOR=1: what a command costs before it does anything: the first stage and start.cjs
  // only (`--version`), and the whole CLI bundle loaded for a help text (`whoami --help`).
  if (floor) {
    cases.push([`${b} --version`, () => [node, [bin, '--version'], {}]]);
    cases.push([`${b} whoami --help`, () => [node, [bin, 'whoami', '--help'], {}]]);
  }
  const s = new LoginServers();
  servers.push(s);
  cases.push([
    `${b} remote`,
    async () => {
      const srv = await s.next();
      return [
        node,
        [bin, 'whoami'],
        { env: { ...process.env, STOR_HOME: emptyHome, STOR_URL: srv.base, STOR_API_KEY: srv.key } },
      ];
    },
  ]);
}

/** CPU seconds of the waited-for children so far (Linux: /proc/self/stat cutime + cstime, 100 ticks a second). */
const childCpuMs = () => {
  const fields = readFileSync('/proc/self/stat', 'utf8')
    .replace(/^.*\) /su, '')
    .split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
};
const times = Object.fromEntries(cases.map(([name]) => [name, []]));
const cpu = Object.fromEntries(cases.map(([name]) => [name, []]));
const load0 = loadavg()[0];
for (let i = -2; i < rounds; i++) {
  for (const [name, make] of cases) {
    const [cmd, args, options] = await make();
    const cpu0 = childCpuMs();
    const ms = timeOnce(cmd, args, options);
    if (i >= 0) times[name].push(ms);
    if (i >= 0) cpu[name].push(childCpuMs() - cpu0);
  }
}
const load1 = loadavg()[0];
for (const s of servers) await s.stop();
cleanup(home);
cleanup(emptyHome);
cleanup(cacheHome);

const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
console.log(
  `${rounds} rounds, node ${spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim()}, load ${load0.toFixed(1)} → ${load1.toFixed(1)}`,
);
const c = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, v.reduce((a, b) => a + b, 0) / v.length]));
for (const [name, ms] of Object.entries(m)) {
  const refName = name.endsWith('remote') && python ? 'python client' : 'node -e 0';
  console.log(
    `${name.padEnd(40)} ${ms.toFixed(1).padStart(7)} ms  ${(ms / m[refName]).toFixed(2)}× ${refName.padEnd(13)} cpu ${c[name].toFixed(0).padStart(4)} ms  ${(c[name] / c[refName]).toFixed(2)}×`,
  );
}
