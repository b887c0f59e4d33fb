// `npm run bench`: measures stor against references in the same run and rewrites bench/RESULTS.md.
// Every figure is a median of several runs and is reported as a ratio against its reference.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { benchDatasets } from './datasets.mjs';
import { benchFleet, benchWarmFleet } from './fleet.mjs';
import { benchGuards } from './guards.mjs';
import { benchReplication } from './replication.mjs';
import { benchShares } from './shares.mjs';
import { benchSlowReader } from './slow-reader.mjs';
import { benchState } from './state.mjs';
import { CLIENT_VERSION, SESSIONS_LABEL_SUFFIX, benchSessions } from './sessions.mjs';
import {
  ROOT,
  NODE,
  STOR,
  LoginServers,
  cleanup,
  machine,
  agentPidIn,
  cpuSeconds,
  measurePeak,
  median,
  startServe,
  tempDir,
  timeMediansInterleaved,
  timeOnce,
  waitJob,
} from './lib.mjs';

// Every section but sessions measures each command in a process of its own with its own login, as
// before the session agent: no agent is started or used there. bench/sessions.mjs sets
// STOR_SESSION for each of its runs.
process.env.STOR_SESSION = 'off';

const GIB = 1024 ** 3;
const UPLOAD_BYTES = Number(process.env.STOR_BENCH_UPLOAD_BYTES ?? GIB);
const rows = [];
const notes = [];
// STOR_BENCH_ONLY=<section> (startup, remote, upload, trees, throughput, roles, fleet, datasets, replication, shares, state, guards, slowreader, sessions) runs one
// section and replaces only its rows and notes in RESULTS.md. The sessions section (bench/sessions.mjs) is named after the Node
// major of the stor client it measures (STOR_BENCH_NODE, bench/node-majors.sh), so each major's rows are kept beside the others'.
const ONLY = process.env.STOR_BENCH_ONLY;
const SESSIONS = `sessions, Node ${CLIENT_VERSION.replace(/^v(\d+).*/, '$1')}${SESSIONS_LABEL_SUFFIX}`;
const SECTIONS = {
  startup: 'start-up',
  remote: 'remote round trip',
  upload: 'upload',
  trees: 'whole trees',
  throughput: 'JSON-RPC throughput',
  roles: 'role expansion',
  fleet: 'fleet',
  datasets: 'datasets',
  replication: 'replication',
  shares: 'shares',
  state: 'desired state',
  guards: 'guards',
  slowreader: 'slow reader',
  sessions: SESSIONS,
};
if (ONLY !== undefined && !(ONLY in SECTIONS))
  throw new Error(`STOR_BENCH_ONLY: one of ${Object.keys(SECTIONS).join(', ')}`);
const runs = (section) => ONLY === undefined || ONLY === section;

/** The environment a row was measured in: Node, whether a CA bundle is loaded, the load at the time. */
function where() {
  const ca = process.env.NODE_EXTRA_CA_CERTS ? 'NODE_EXTRA_CA_CERTS set' : 'no CA bundle';
  return `Node ${process.version}, ${ca}, load ${loadavg()[0].toFixed(1)}`;
}

/**
 * Which Node ran the stor client: STOR_BENCH_NODE is read by the sessions section and by the fleet
 * section's warm rows only; every other row's stor runs on the node running this script.
 */
function clientNode() {
  if (!process.env.STOR_BENCH_NODE) return '';
  if (ONLY === 'sessions') return `, stor client on Node ${CLIENT_VERSION}`;
  if (ONLY === 'fleet')
    return `, the warm rows' stor client on Node ${CLIENT_VERSION}, the others' on Node ${process.version}`;
  return `, stor on Node ${process.version} (STOR_BENCH_NODE is read by the sessions and fleet sections only)`;
}

/** Starts the session agent for `env` (STOR_SESSION=on) and waits until it holds a logged-in connection. */
async function startAgent(env) {
  for (let i = 0; i < 50; i++) {
    timeOnce(NODE, [STOR, 'whoami'], { env });
    const r = spawnSync(NODE, [STOR, 'session', 'list', '--json'], { env, encoding: 'utf8' });
    if (r.status === 0 && JSON.parse(r.stdout).length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the session agent did not start');
}

function record(section, what, value, unit, reference, refValue, ratio, target, met) {
  rows.push({ section, what, value, unit, reference, refValue, ratio, target, met });
  console.log(
    `${section}: ${what} = ${value.toFixed(2)} ${unit} vs ${reference} = ${refValue.toFixed(2)} ${unit} → ${ratio.toFixed(2)}× (${target}: ${met ? 'met' : 'MISSED'})`,
  );
}

// --- start-up -------------------------------------------------------------------------------
if (runs('startup')) {
  const home = tempDir();
  const env = { ...process.env, STOR_HOME: home };
  timeOnce(NODE, [STOR, 'whoami'], { env }); // seed the state outside the measurement
  const { bare, version, whoami } = timeMediansInterleaved(
    {
      bare: [NODE, ['-e', '0'], {}],
      version: [NODE, [STOR, '--version'], { env }],
      whoami: [NODE, [STOR, 'whoami'], { env }],
    },
    { runs: Number(process.env.STOR_BENCH_STARTUP_RUNS ?? 21) },
  );
  record(
    'start-up',
    '`stor --version`',
    version,
    'ms',
    '`node -e 0`',
    bare,
    version / bare,
    '≤ 1.5×',
    version / bare <= 1.5,
  );
  record(
    'start-up',
    '`stor whoami` (embedded)',
    whoami,
    'ms',
    '`node -e 0`',
    bare,
    whoami / bare,
    '≤ 2.0×',
    whoami / bare <= 2.0,
  );
  // The state's own key file is admitted without a second scrypt (src/core/appliance/session/admin-key-file.ts);
  // a key given any other way (STOR_API_KEY, a profile) still pays it, as the first command on a
  // state seeded by an older stor does once.
  const { hashSecret, verifySecret } = await import(join(ROOT, 'dist/core/store/secrets.js'));
  const hash = await hashSecret('k'.repeat(64));
  const checks = [];
  for (let i = 0; i < 5; i++) {
    const t0 = process.hrtime.bigint();
    if (!(await verifySecret('k'.repeat(64), hash))) throw new Error('scrypt check failed');
    checks.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const scrypt = median(checks);
  notes.push(
    `start-up: the embedded \`stor whoami\` opened with the state's own administrator key file makes no scrypt check; ` +
      `a key given through STOR_API_KEY adds one, ${scrypt.toFixed(1)} ms (N=2^14: keys are stored only as a salted slow hash), ` +
      `${((whoami + scrypt) / bare).toFixed(2)}× bare node.`,
  );
  cleanup(home);
}

// --- remote round trip ----------------------------------------------------------------------
if (runs('remote')) {
  // Side by side: every round runs stor, the Python client and bare node once each, so load
  // changes weigh on all alike. Each client logs in to servers of its own (LoginServers).
  const python = ['python3', '/usr/bin/python3'].find(
    (py) => spawnSync(py, ['-c', 'import websocket'], { stdio: 'ignore' }).status === 0,
  );
  const home = tempDir();
  const storServers = new LoginServers();
  const pyServers = new LoginServers();
  const rounds = Number(process.env.STOR_BENCH_REMOTE_RUNS ?? 21);
  const times = { stor: [], py: [], pyBare: [], nodeBare: [] };
  for (let i = -2; i < rounds; i++) {
    const s = await storServers.next();
    const stor = timeOnce(NODE, [STOR, 'whoami'], {
      env: { ...process.env, STOR_HOME: home, STOR_URL: s.base, STOR_API_KEY: s.key },
    });
    const nodeBare = timeOnce(NODE, ['-e', '0']);
    if (i >= 0) {
      times.stor.push(stor);
      times.nodeBare.push(nodeBare);
    }
    if (!python) continue;
    const p = await pyServers.next();
    const py = timeOnce(python, [join(ROOT, 'bench/rpc-client.py'), p.rpc_url, p.key]);
    const pyBare = timeOnce(python, ['-c', 'import websocket, json']);
    if (i >= 0) {
      times.py.push(py);
      times.pyBare.push(pyBare);
    }
  }
  await storServers.stop();
  await pyServers.stop();
  cleanup(home);
  const [stor, nodeBare] = [median(times.stor), median(times.nodeBare)];
  if (python) {
    const [py, pyBare] = [median(times.py), median(times.pyBare)];
    notes.push(
      `remote round trip: ${rounds} interleaved rounds, load ${loadavg()[0].toFixed(1)} at the end. The runtimes alone start in ${nodeBare.toFixed(0)} ms (node) and ${pyBare.toFixed(0)} ms ` +
        `(python3 importing websocket); past that, stor takes ${(stor - nodeBare).toFixed(0)} ms and the Python client ` +
        `${(py - pyBare).toFixed(0)} ms, both mostly the server's scrypt check of the key.`,
    );
    record(
      'remote round trip',
      '`stor whoami` against `stor serve`',
      stor,
      'ms',
      `minimal Python client (${python})`,
      py,
      stor / py,
      '≤ 1× (not slower)',
      stor <= py,
    );
  } else {
    notes.push(
      `remote round trip: \`stor whoami\` against \`stor serve\` took ${stor.toFixed(1)} ms; no python3 with the \`websocket\` module here, so no reference was run.`,
    );
  }
}

// --- upload throughput ------------------------------------------------------------------------
if (runs('upload')) {
  const work = tempDir();
  const src = join(work, 'big.bin');
  // Random bytes: nothing on the way can compress or deduplicate them.
  await new Promise((resolve, reject) => {
    const out = createWriteStream(src);
    const chunk = randomBytes(16 * 1024 * 1024);
    let left = UPLOAD_BYTES;
    const write = () => {
      while (left > 0) {
        const n = Math.min(left, chunk.length);
        left -= n;
        if (!out.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return out.once('drain', write);
      }
      out.end(resolve);
    };
    out.on('error', reject);
    write();
  });
  const size = statSync(src).size;
  const state = tempDir();
  const server = await startServe(state);
  const env = { ...process.env, STOR_HOME: tempDir(), STOR_URL: server.base, STOR_API_KEY: server.key };
  // Through the session agent as well: it runs the command and posts the file itself
  // (docs/SESSIONS.md). Started and logged in before the runs, as a runbook's later commands find it.
  // A session directory of its own, so that the agent whose CPU is counted is this one.
  const agentEnv = { ...env, STOR_HOME: tempDir(), STOR_SESSION: 'on', XDG_RUNTIME_DIR: tempDir() };
  await startAgent(agentEnv);
  const agentPid = agentPidIn(agentEnv.XDG_RUNTIME_DIR);
  const storRuns = [];
  const agentRuns = [];
  const curlRuns = [];
  const cpRuns = [];
  // Client CPU (user + system seconds) of each run: the stor process; through the agent, the first
  // stage and the agent's own over the run (it reads the file and posts it); curl's process.
  const storCpu = [];
  const agentCpu = [];
  const curlCpu = [];
  let clientPeak = 0;
  // Alternate which goes first, and start each run with no dirty pages: the disk's write-back of
  // one run otherwise slows the next.
  const settle = () => spawnSync('sync');
  for (let i = 0; i < 6; i++) {
    const storRun = () => {
      settle();
      const run = measurePeak(NODE, [STOR, 'upload', src, `/mnt/tank/bench/stor-${i}.bin`], { env });
      storRuns.push(run.ms);
      storCpu.push(run.cpu);
      clientPeak = Math.max(clientPeak, run.mib);
      settle();
      const agentBefore = agentPid ? cpuSeconds(agentPid) : NaN;
      const viaAgent = measurePeak(NODE, [STOR, 'upload', src, `/mnt/tank/bench/agent-${i}.bin`], { env: agentEnv });
      agentRuns.push(viaAgent.ms);
      agentCpu.push(viaAgent.cpu + (agentPid ? cpuSeconds(agentPid) - agentBefore : NaN));
    };
    if (i % 2 === 0) storRun();
    // curl returns when the bytes are sent; `stor upload` also waits for the job (fsync, rename).
    // The reference waits for the job too, so both measure a durable upload.
    settle();
    const t0 = process.hrtime.bigint();
    const curl = measurePeak(
      'curl',
      [
        '-sS',
        '-f',
        '-H',
        `Authorization: Bearer ${server.key}`,
        '-F',
        `data={"method":"filesystem.put","params":["/mnt/tank/bench/curl-${i}.bin",{"mode":420}]};type=application/json`,
        '-F',
        `file=@${src}`,
        `${server.url}/_upload/`,
      ],
      {},
    );
    await waitJob(server.rpc_url, server.key, JSON.parse(curl.stdout).job_id);
    curlRuns.push(Number(process.hrtime.bigint() - t0) / 1e6);
    curlCpu.push(curl.cpu);
    if (i % 2 === 1) storRun();
    const dst = join(state, `cp-${i}.bin`);
    // cp then fsync, as the server fsyncs before it renames.
    settle();
    cpRuns.push(timeOnce('sh', ['-c', `cp "$0" "$1" && sync "$1"`, src, dst]));
    cleanup(dst);
  }
  const runs = `stor ${storRuns.map(Math.round).join(', ')}; stor through the agent ${agentRuns.map(Math.round).join(', ')}; curl ${curlRuns.map(Math.round).join(', ')}; cp ${cpRuns.map(Math.round).join(', ')}`;
  const cpus = `stor ${storCpu.map((s) => s.toFixed(2)).join(', ')}; through the agent ${agentCpu.map((s) => s.toFixed(2)).join(', ')}; curl ${curlCpu.map((s) => s.toFixed(2)).join(', ')}`;
  console.log(`upload client CPU (s): ${cpus}`);
  console.log(`upload runs (ms): ${runs}`);
  notes.push(
    `upload: every run of all three is bound by the disk (fsync of ${(size / GIB).toFixed(2)} GiB), which varies from run to run; ` +
      `the single runs, in ms: ${runs}; their client CPU, in s: ${cpus}. stor's fixed costs (start-up, login, two stat calls) add about 0.2 s per file; ` +
      `through the agent there is no start-up of the CLI and no login. ${where()}.`,
  );
  spawnSync(NODE, [STOR, 'session', 'stop', '--all'], { env: agentEnv, stdio: 'ignore' });
  const serverPeak = await server.stop();
  const mibps = (ms) => size / 1024 / 1024 / (ms / 1000);
  const stor = mibps(median(storRuns));
  const agent = mibps(median(agentRuns));
  const curl = mibps(median(curlRuns));
  const cp = mibps(median(cpRuns));
  const sizeLabel = `${(size / GIB).toFixed(2)} GiB`;
  // Goal: at most 1.05× the reference's time, i.e. at least 1/1.05 of its rate.
  record(
    'upload',
    `\`stor upload\` of ${sizeLabel} to \`stor serve\`, STOR_SESSION=off (includes waiting for the job) [${where()}]`,
    stor,
    'MiB/s',
    '`curl -F` to the same server, then `core.job_wait` over a WebSocket',
    curl,
    stor / curl,
    '≥ 0.95× (time ≤ 1.05×)',
    stor / curl >= 1 / 1.05,
  );
  record(
    'upload',
    `\`stor upload\` of ${sizeLabel} through the session agent (includes waiting for the job) [${where()}]`,
    agent,
    'MiB/s',
    '`curl -F` to the same server, then `core.job_wait` over a WebSocket',
    curl,
    agent / curl,
    '≥ 0.95× (time ≤ 1.05×)',
    agent / curl >= 1 / 1.05,
  );
  // Reported, no goal: on a 2-core machine the client's CPU competes with the server's (which
  // parses the body and writes the file); curl's job wait (a WebSocket from this script) is not in it.
  const perGib = (cpu) => median(cpu) / (size / GIB);
  for (const [how, cpu] of [
    ['STOR_SESSION=off', storCpu],
    ['through the session agent (the first stage and the agent)', agentCpu],
  ])
    record(
      'upload',
      `client CPU (user + system) of \`stor upload\` of ${sizeLabel} per GiB (fixed costs included), ${how} [${where()}]`,
      perGib(cpu),
      's',
      '`curl -F` to the same server',
      perGib(curlCpu),
      perGib(cpu) / perGib(curlCpu),
      'reported',
      true,
    );
  record(
    'upload',
    `server write rate (curl upload of ${sizeLabel} until the job ends: fsync + rename)`,
    curl,
    'MiB/s',
    '`cp` + `sync` on the same disk',
    cp,
    curl / cp,
    '≥ 0.5×',
    curl / cp >= 0.5,
  );
  rows.push({
    section: 'upload',
    what: 'peak memory of the `stor upload` client',
    value: clientPeak,
    unit: 'MiB',
    reference: 'limit',
    refValue: 150,
    ratio: clientPeak / 150,
    target: '< 150 MiB',
    met: clientPeak < 150,
  });
  rows.push({
    section: 'upload',
    what: 'peak memory of `stor serve` during the uploads',
    value: serverPeak,
    unit: 'MiB',
    reference: 'limit',
    refValue: 150,
    ratio: serverPeak / 150,
    target: '< 150 MiB',
    met: serverPeak < 150,
  });
  console.log(`upload: peak memory client ${clientPeak.toFixed(1)} MiB, server ${serverPeak.toFixed(1)} MiB`);
  cleanup(env.STOR_HOME);
  cleanup(agentEnv.STOR_HOME);
  cleanup(agentEnv.XDG_RUNTIME_DIR);
  cleanup(state);
  cleanup(work);
}

// --- whole trees --------------------------------------------------------------------------------
if (runs('trees')) {
  // Many small files: per-file costs (the upload's key check, its job, the size check) dominate,
  // not bytes. The reference posts the same files one by one from a shell loop with curl and
  // waits for each job's end, as stor waits for each of its own: over POST /api/current it asks
  // core.get_jobs until the job is SUCCESS. (core.job_wait there is a job of its own on a
  // connection with legacy jobs, as every HTTP call is: it answers a new job's id at once.)
  const count = Number(process.env.STOR_BENCH_TREE_FILES ?? 1000);
  const work = tempDir();
  const tree = join(work, 'tree');
  for (let i = 0; i < count; i++) {
    const dir = join(tree, `d${i % 10}`);
    if (i < 10) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `f${i}.bin`), randomBytes(4096));
  }
  const state = tempDir();
  const server = await startServe(state);
  const env = { ...process.env, STOR_HOME: tempDir(), STOR_URL: server.base, STOR_API_KEY: server.key };
  const loop = `for f in "$1"/*/*; do
    n=$(printf %s "$f" | tr / _)
    id=$(curl -sS -f -H "Authorization: Bearer $STOR_KEY" -F "data={\\"method\\":\\"filesystem.put\\",\\"params\\":[\\"$2/$n\\",{}]};type=application/json" -F "file=@$f" "$3/_upload/" | tr -dc 0-9)
    while :; do
      state=$(curl -sS -f -H "Authorization: Bearer $STOR_KEY" -H 'content-type: application/json' -d "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"method\\":\\"core.get_jobs\\",\\"params\\":[[[\\"id\\",\\"=\\",$id]]]}" "$3/api/current" | grep -o '"state": *"[A-Z]*"' | tr -dc A-Z) || exit 1
      case $state in SUCCESS) break ;; FAILED | ABORTED | '') exit 1 ;; esac
    done
  done`;
  const refMs = timeOnce('sh', ['-c', loop, 'sh', tree, '/mnt/tank/curl', server.url], {
    env: { ...process.env, STOR_KEY: server.key },
  });
  const sent = readdirSync(join(state, 'mnt/tank/curl')).length;
  if (sent !== count) throw new Error(`the curl loop left ${sent} of ${count} files`);
  const ref = count / (refMs / 1000);
  const perParallel = {};
  for (const parallel of [1, 4, 8]) {
    const ms = timeOnce(
      NODE,
      [STOR, 'upload', '-r', tree, `/mnt/tank/p${parallel}/`, '--parallel', String(parallel), '-q'],
      { env },
    );
    perParallel[parallel] = count / (ms / 1000);
  }
  await server.stop();
  for (const parallel of [1, 4, 8]) {
    const got = perParallel[parallel];
    const target = parallel === 4 ? '≥ 1× (default)' : 'effect of --parallel';
    record(
      'whole trees',
      `\`stor upload -r\` of ${count} files of 4 KiB to \`stor serve\`, \`--parallel ${parallel}\` [${where()}]`,
      got,
      'files/s',
      'curl per file in a shell loop, polling core.get_jobs until each job is SUCCESS',
      ref,
      got / ref,
      target,
      parallel === 4 ? got >= ref : true,
    );
  }
  notes.push(
    `whole trees: one run each (${count} files), load ${loadavg()[0].toFixed(1)} at the end. The reference pays the API key's scrypt check on the server ` +
      `twice per file (upload, job_wait); stor pays it once per session (login, first upload) and sends the rest with a session token. ` +
      `\`--parallel\` does not help here: client and server share 2 loaded cores on one host, the emulator's work per file is CPU in one ` +
      `process, and more transfers at once only add contention; it pays where the round trip to the appliance, not its CPU, is the cost.`,
  );
  cleanup(env.STOR_HOME);
  cleanup(state);
  cleanup(work);
}

// --- JSON-RPC throughput ------------------------------------------------------------------------
if (runs('throughput')) {
  const total = 20000;
  const load = (url, key, method, params) =>
    JSON.parse(
      execFileSync(
        NODE,
        [join(ROOT, 'bench/rpc-load.mjs'), url, key, method, JSON.stringify(params), String(total), '20'],
        { encoding: 'utf8' },
      ),
    ).per_second;
  const echo = spawn(NODE, [join(ROOT, 'bench/echo-server.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve) => echo.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
  const state = tempDir();
  const server = await startServe(state);
  execFileSync(NODE, [STOR, 'upload', join(ROOT, 'README.md'), '/mnt/tank/docs/'], {
    env: { ...process.env, STOR_HOME: tempDir(), STOR_URL: server.base, STOR_API_KEY: server.key },
  });
  for (const [method, params] of [
    ['auth.me', []],
    ['filesystem.stat', ['/mnt/tank/docs/README.md']],
  ]) {
    const ref = median([0, 1, 2].map(() => load(`ws://127.0.0.1:${port}`, '-', method, params)));
    const got = median([0, 1, 2].map(() => load(server.rpc_url, server.key, method, params)));
    record(
      'JSON-RPC throughput',
      `\`${method}\` calls/s, one WebSocket, 20 in flight`,
      got,
      'calls/s',
      'bare `ws` echo server, same client',
      ref,
      got / ref,
      '≥ 0.3×',
      got / ref >= 0.3,
    );
  }
  echo.kill();
  await server.stop();
  cleanup(state);
}

// --- role expansion -----------------------------------------------------------------------------
if (runs('roles')) {
  const { composePrivileges } = await import(join(ROOT, 'dist/core/appliance/session/compose.js'));
  const { CONTRACT_METHODS } = await import(join(ROOT, 'dist/core/contract/index.js'));
  const { release25101Catalogue } = await import(join(ROOT, 'dist/core/roles/index.js'));
  const catalogue = release25101Catalogue();
  const names = catalogue.names;
  // Deterministic pseudo-random lists, so every run measures the same work.
  let seed = 42;
  const rand = (n) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const logins = Array.from({ length: 10000 }, (_, i) =>
    Array.from({ length: 1 + rand(3) }, (_, j) => ({
      id: i * 10 + j,
      builtin_name: null,
      name: `p${i}-${j}`,
      local_groups: [],
      ds_groups: [],
      roles: Array.from({ length: 1 + rand(8) }, () => names[rand(names.length)]),
      web_shell: false,
    })),
  );
  // The reference: a straightforward recursive expansion with a visited set, per login.
  const naive = (privileges) => {
    const out = new Set();
    const visit = (role) => {
      const def = catalogue.get(role);
      if (!def || out.has(role)) return;
      out.add(role);
      if (def.fullAdmin) for (const n of names) out.add(n);
      else for (const inc of def.includes) visit(inc);
    };
    for (const p of privileges) for (const r of p.roles) visit(r);
    return out;
  };
  const timeIt = (fn) =>
    median(
      [0, 1, 2, 3, 4].map(() => {
        const t0 = process.hrtime.bigint();
        for (const l of logins) fn(l);
        return Number(process.hrtime.bigint() - t0) / 1e3 / logins.length;
      }),
    );
  for (const l of logins.slice(0, 100)) {
    const a = composePrivileges(catalogue, l, 'terminating', CONTRACT_METHODS).roles;
    const b = naive(l);
    if (a.size !== b.size) throw new Error('compositions disagree');
  }
  const stor = timeIt((l) => composePrivileges(catalogue, l, 'terminating', CONTRACT_METHODS));
  const rolesOnly = timeIt((l) => naive(l));
  record(
    'role expansion',
    'composition of one login (roles + allowlist), 10 000 random logins',
    stor,
    'µs',
    'naive recursive expansion with a visited set (roles only)',
    rolesOnly,
    stor / rolesOnly,
    'per-call cost',
    true,
  );
}

// --- fleet ---------------------------------------------------------------------------------------
if (runs('fleet')) {
  await benchFleet({ record, notes, rows });
  await benchWarmFleet({ record, notes, rows });
}
if (runs('datasets')) await benchDatasets({ record, notes });
if (runs('replication')) await benchReplication({ record, notes });
if (runs('shares')) await benchShares({ record, notes });
if (runs('state')) await benchState({ record, notes });
if (runs('guards')) await benchGuards({ record, notes, rows });
if (runs('slowreader')) await benchSlowReader({ record, notes });
if (runs('sessions')) await benchSessions({ record, notes, label: SESSIONS });

// --- RESULTS.md ---------------------------------------------------------------------------------
const date = new Date().toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
const fmt = (n) => (n >= 100 ? n.toFixed(0) : n.toFixed(2));
const lines = [
  '# stor benchmark results',
  '',
  `Measured by \`npm run bench\` on ${date}; machine: ${machine()}.`,
  'Each figure is the median of several runs, next to a reference measured in the same run.',
  '',
  '| area | measurement | stor | reference | reference value | ratio | target | |',
  '|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.section} | ${r.what} | ${fmt(r.value)} ${r.unit} | ${r.reference} | ${fmt(r.refValue)} ${r.unit} | ${r.ratio.toFixed(2)}× | ${r.target} | ${r.met ? 'met' : '**missed**'} |`,
  ),
  '',
  ...(notes.length ? ['Notes:', '', ...notes.map((n) => `- ${n}`), ''] : []),
];
const history = readFileSync(join(ROOT, 'bench/HISTORY.md'), 'utf8');
if (ONLY === undefined) {
  writeFileSync(join(ROOT, 'bench/RESULTS.md'), `${lines.join('\n')}\n${history}`);
} else {
  // Keep the other sections' rows and notes as the last full run measured them.
  const section = SECTIONS[ONLY];
  const [current] = readFileSync(join(ROOT, 'bench/RESULTS.md'), 'utf8').split('\n## ');
  const kept = current.trimEnd().split('\n');
  const isRow = (l) => l.startsWith(`| ${section} |`);
  const isNote = (l) => l.startsWith(`- ${section}:`);
  const firstRow = kept.findIndex(isRow);
  const firstNote = kept.findIndex(isNote);
  const newRows = lines.filter(isRow);
  const newNotes = lines.filter(isNote);
  const out = [];
  // A section new to RESULTS.md goes after the last row (and the last note) there.
  const lastRow = kept.findLastIndex((l) => l.startsWith('| ') && !l.startsWith('| area'));
  const lastNote = kept.findLastIndex((l) => l.startsWith('- '));
  kept.forEach((l, i) => {
    if (i === firstRow) out.push(...newRows);
    if (i === firstNote) out.push(...newNotes);
    if (isRow(l) || isNote(l) || l.startsWith(`Rows of ${section} re-measured`)) return;
    out.push(l);
    if (firstRow < 0 && i === lastRow) out.push(...newRows);
    if (firstNote < 0 && i === lastNote) out.push(...newNotes);
    if (l.startsWith('Measured by'))
      out.push(
        `Rows of ${section} re-measured by \`STOR_BENCH_ONLY=${ONLY}\` on ${date}; machine: ${machine()}${clientNode()}.`,
      );
  });
  writeFileSync(join(ROOT, 'bench/RESULTS.md'), `${out.join('\n')}\n\n${history}`);
}
console.log('wrote bench/RESULTS.md');
