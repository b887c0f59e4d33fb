// The sessions section of `npm run bench`: the session agent's warm
// and cold `whoami` against the minimal Python client and midclt, the embedded `whoami` through the
// agent, a 200-command runbook, and a warm `--targets` fan-out. Each "after" row (sessions on) has
// its "before" (STOR_SESSION=off: every command its own connection and login) measured in the same
// rounds. Environment:
//
// - STOR_BENCH_MIDCLT_DIR: a PYTHONPATH (colon-separated) under which `import truenas_api_client`
//   finds the official client (truenas/api_client, tag TS-25.10.1) and `import websocket` a
//   websocket-client ≥ 1.3.2 (its WebSocketApp takes a `socket`; TrueNAS 25.10 ships 1.8.0). Unset
//   or unusable: the midclt rows are skipped, with the reason in the notes. midclt is not part of
//   this repository; `bench/README.md` says how to lay it out.
// - STOR_BENCH_NODE, STOR_BENCH_STOR: the node binary and bin/stor.js of the stor client measured
//   (default: this node, this checkout). The servers always run on this node. bench/node-majors.sh
//   sets them to run the section under Node 22 and 24.
// - STOR_BENCH_SESSION_RUNS (21), STOR_BENCH_RUNBOOK_ROUNDS (3), STOR_BENCH_SESSION_FLEET_ROUNDS (9).
// - STOR_BENCH_SESSION_PARTS: which of whoami, runbook, fleet to run (comma-separated; default all).
// - STOR_BENCH_NO_EXTRA_CA=1: the clients run without NODE_EXTRA_CA_CERTS, in rows of their own
//   (SESSIONS_LABEL_SUFFIX). Node 20 reads and parses that file at every start, before any of stor
//   runs (22 and 24 only when TLS first needs it); where a machine points it at the whole system
//   bundle, as this one does, it adds ~110 ms to every Node 20 process and nothing to Python's.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { startAll } from './fleet.mjs';
import { LoginServers, NODE, ROOT, STOR, cleanup, median, startServe, tempDir } from './lib.mjs';

export const CLIENT_NODE = process.env.STOR_BENCH_NODE ?? NODE;
const CLIENT_STOR = process.env.STOR_BENCH_STOR ?? STOR;
const CLIENT_ROOT = dirname(dirname(CLIENT_STOR));
export const CLIENT_VERSION = spawnSync(CLIENT_NODE, ['--version'], { encoding: 'utf8' }).stdout.trim();

const RUNS = Number(process.env.STOR_BENCH_SESSION_RUNS ?? 21);
const RUNBOOK_ROUNDS = Number(process.env.STOR_BENCH_RUNBOOK_ROUNDS ?? 3);
const FLEET_ROUNDS = Number(process.env.STOR_BENCH_SESSION_FLEET_ROUNDS ?? 9);
const FLEET = 20;
const PARTS = new Set((process.env.STOR_BENCH_SESSION_PARTS ?? 'whoami,runbook,fleet').split(',').map((p) => p.trim()));
// Fleet servers take one login per off run, two for the agent's warm-up: at most 20 a minute.
if (FLEET_ROUNDS + 4 > 20)
  throw new Error('STOR_BENCH_SESSION_FLEET_ROUNDS: at most 16, or the login rate limit refuses the last rounds');

/** Variables of the caller's environment that would choose a target, a session setting or a session directory for stor. */
const STOR_VARIABLES = /^(STOR_|XDG_RUNTIME_DIR$|XDG_STATE_HOME$)/;
const NO_EXTRA_CA = process.env.STOR_BENCH_NO_EXTRA_CA === '1';
export const SESSIONS_LABEL_SUFFIX = NO_EXTRA_CA ? ', without NODE_EXTRA_CA_CERTS' : '';
const baseEnv = Object.fromEntries(
  Object.entries(process.env).filter(
    ([k]) => (!STOR_VARIABLES.test(k) || k.startsWith('STOR_BENCH')) && !(NO_EXTRA_CA && k === 'NODE_EXTRA_CA_CERTS'),
  ),
);

/** Wall time of one run (ms); throws when it fails or its standard output does not match `expect`. */
function timeChecked(cmd, args, options, expect) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    ...options,
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0 || (expect && !expect.test(r.stdout))) {
    throw new Error(
      `${cmd} ${args.join(' ').slice(0, 200)} exited ${r.status}: ${r.stderr.slice(0, 2000)} ${r.stdout.slice(0, 500)}`,
    );
  }
  return { ms, stdout: r.stdout };
}

/** A python3 with the `websocket` module: the minimal client's interpreter. */
export function findPython() {
  return ['python3', '/usr/bin/python3'].find(
    (py) => spawnSync(py, ['-c', 'import websocket'], { stdio: 'ignore' }).status === 0,
  );
}

/** midclt as `truenas_api_client:main` under STOR_BENCH_MIDCLT_DIR, or why not. */
function findMidclt() {
  const dir = process.env.STOR_BENCH_MIDCLT_DIR;
  if (!dir) return { reason: 'STOR_BENCH_MIDCLT_DIR is not set (bench/README.md)' };
  const probe =
    'import truenas_api_client, websocket; v = tuple(int(x) for x in websocket.__version__.split(".")[:3]); print(websocket.__version__); assert v >= (1, 3, 2), "websocket-client " + websocket.__version__ + " < 1.3.2"';
  const tried = [];
  for (const py of ['python3', '/usr/bin/python3']) {
    const r = spawnSync(py, ['-c', probe], { encoding: 'utf8', env: { ...baseEnv, PYTHONPATH: dir } });
    if (r.status === 0) return { python: py, env: { ...baseEnv, PYTHONPATH: dir }, websocket: r.stdout.trim() };
    tried.push(`${py}: ${(r.stderr.trim().split('\n').at(-1) ?? '').slice(0, 120)}`);
  }
  return {
    reason: `STOR_BENCH_MIDCLT_DIR=${dir} does not give truenas_api_client with websocket-client ≥ 1.3.2 (${tried.join('; ')})`,
  };
}

/** `midclt -u URL -K KEY call auth.me`, as the console script `midclt = truenas_api_client:main` runs it. */
const MIDCLT_MAIN = "import sys; sys.argv[0] = 'midclt'; from truenas_api_client import main; sys.exit(main())";

/**
 * Why the client cannot run the embedded appliance (no SQLite binding its node can load), or
 * undefined when it can: one embedded `stor whoami`, in-process, in a home of its own. `fatal` when
 * the client cannot start at all (SQLITE_BINDING_MISSING: Node 24.19+ without better-sqlite3 13).
 */
function embeddedProblem(work) {
  const r = spawnSync(CLIENT_NODE, [CLIENT_STOR, '--json', 'whoami'], {
    encoding: 'utf8',
    env: {
      ...baseEnv,
      STOR_HOME: join(work, 'home-probe'),
      STOR_CONFIG_DIR: join(work, 'config-probe'),
      STOR_SESSION: 'off',
    },
  });
  if (r.status === 0) return undefined;
  let code;
  let message = r.stderr.trim().split('\n')[0];
  try {
    ({ code, message } = JSON.parse(r.stderr).error);
  } catch {
    // Not stor's JSON error: the first line says enough.
  }
  return {
    fatal: code === 'SQLITE_BINDING_MISSING',
    reason: `embedded \`stor whoami\` under Node ${CLIENT_VERSION} (${CLIENT_ROOT}) exits ${r.status}: ${code ? `${code}, ` : ''}${message}`,
  };
}

function privateDir(path) {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chmodSync(path, 0o700);
  return path;
}

const agentSocket = (runDir) => {
  try {
    return readdirSync(join(runDir, 'stor')).find((f) => /^agent-.*\.sock$/.test(f));
  } catch {
    return undefined;
  }
};

async function waitUntil(what, test, ms = 15000) {
  for (const deadline = Date.now() + ms; !test();) {
    if (Date.now() > deadline) throw new Error(`sessions: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Ends the agent of `env`'s session directory (untimed) and waits until its socket is gone. */
async function stopAgent(env, runDir) {
  spawnSync(CLIENT_NODE, [CLIENT_STOR, 'session', 'stop', '--all'], { env, stdio: 'ignore' });
  await waitUntil('the agent to stop', () => agentSocket(runDir) === undefined);
}

const stor = (env, ...argv) => [CLIENT_NODE, [CLIENT_STOR, ...argv], { env }];

/** Every server this section starts, so that a failed run stops them too (stopping one twice is harmless). */
const started = new Set();
const serve = async (dir) => {
  const s = await startServe(dir);
  started.add(s);
  return s;
};
const loginServers = () => {
  const l = new LoginServers();
  started.add(l);
  return l;
};
const ratioRow = (value, ref) => value / ref;

// --- whoami: warm, cold, before; embedded ---------------------------------------------------------
async function whoamiRows({ record, notes, label, work, python, midclt }) {
  const warmRun = privateDir(join(work, 'run-warm'));
  const coldRun = privateDir(join(work, 'run-cold'));
  const home = join(work, 'home');
  const embHome = join(work, 'home-embedded');
  const warmState = tempDir();
  const warmServer = await serve(warmState);
  const servers = { cold: loginServers(), off: loginServers(), py: loginServers(), midclt: loginServers() };
  const remote = (s, runDir, session) => ({
    ...baseEnv,
    STOR_HOME: home,
    STOR_CONFIG_DIR: join(work, 'config'),
    XDG_RUNTIME_DIR: runDir,
    STOR_SESSION: session,
    STOR_SESSION_IDLE: '900',
    STOR_URL: s.base,
    STOR_API_KEY: s.key,
  });
  const embedded = (session) => ({
    ...baseEnv,
    STOR_HOME: embHome,
    STOR_CONFIG_DIR: join(work, 'config'),
    XDG_RUNTIME_DIR: warmRun,
    STOR_SESSION: session,
    STOR_SESSION_IDLE: '900',
  });
  const warmEnv = remote(warmServer, warmRun, 'on');
  const noEmbedded = embeddedProblem(work)?.reason;
  const WHO = /truenas_admin/;

  // The warm agent: the first command runs in-process and starts it; the second logs it in.
  timeChecked(...stor(warmEnv, 'whoami'), WHO);
  await waitUntil('the warm agent', () => agentSocket(warmRun) !== undefined);
  timeChecked(...stor(warmEnv, 'whoami'), WHO);
  if (!noEmbedded) timeChecked(...stor(embedded('on'), 'whoami'), WHO);

  const cases = {
    cold: async () => {
      if (agentSocket(coldRun) !== undefined) throw new Error('sessions: an agent runs before the cold run');
      return [...stor(remote(await servers.cold.next(), coldRun, 'on'), 'whoami'), WHO];
    },
    warm: () => [...stor(warmEnv, 'whoami'), WHO],
    off: async () => [...stor(remote(await servers.off.next(), warmRun, 'off'), 'whoami'), WHO],
    // In the clients' environment: with STOR_BENCH_NO_EXTRA_CA=1 the reference starts without it too.
    node: () => [CLIENT_NODE, ['-e', '0'], { env: baseEnv }],
  };
  if (python) {
    cases.py = async () => {
      const s = await servers.py.next();
      return [python, [join(ROOT, 'bench/rpc-client.py'), s.rpc_url, s.key], {}, WHO];
    };
    cases.pyBare = () => [python, ['-c', 'import websocket, json'], {}];
  }
  if (!midclt.reason) {
    cases.midclt = async () => {
      const s = await servers.midclt.next();
      return [
        midclt.python,
        ['-c', MIDCLT_MAIN, '-u', s.rpc_url, '-K', s.key, 'call', 'auth.me'],
        { env: midclt.env },
        /"pw_name": "truenas_admin"/,
      ];
    };
  }
  if (!noEmbedded) {
    cases.embWarm = () => [...stor(embedded('on'), 'whoami'), WHO];
    cases.embOff = () => [...stor(embedded('off'), 'whoami'), WHO];
  }

  const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  const load0 = loadavg()[0];
  for (let i = -2; i < RUNS; i++) {
    for (const [name, make] of Object.entries(cases)) {
      const { ms } = timeChecked(...(await make()));
      if (i >= 0) times[name].push(ms);
      if (name === 'cold') {
        // The cold run started an agent: let it come up and end it, untimed, so that the next run starts cold too.
        await waitUntil('the agent the cold run started', () => agentSocket(coldRun) !== undefined);
        await stopAgent(remote(warmServer, coldRun, 'on'), coldRun);
      }
    }
  }
  const load1 = loadavg()[0];
  const listed = JSON.parse(timeChecked(...stor(warmEnv, 'session', 'list', '--json')).stdout);
  await stopAgent(warmEnv, warmRun);
  await warmServer.stop();
  cleanup(warmState);
  for (const s of Object.values(servers)) await s.stop();

  const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
  const pyRef = python ? `minimal Python client (${python}, one connection + login per run)` : undefined;
  if (python) {
    record(
      label,
      'warm session: remote `stor whoami` against `stor serve` (agent running, connection logged in)',
      m.warm,
      'ms',
      pyRef,
      m.py,
      ratioRow(m.warm, m.py),
      '≤ 0.8×',
      m.warm / m.py <= 0.8,
    );
    record(
      label,
      'cold: remote `stor whoami`, no agent running (it starts one)',
      m.cold,
      'ms',
      pyRef,
      m.py,
      m.cold / m.py,
      '≤ 1.5×',
      m.cold / m.py <= 1.5,
    );
    record(
      label,
      'before: remote `stor whoami` with STOR_SESSION=off (its own connection and login)',
      m.off,
      'ms',
      pyRef,
      m.py,
      m.off / m.py,
      'before (reported)',
      true,
    );
  }
  if (!midclt.reason) {
    const ref = '`midclt call auth.me` (truenas_api_client TS-25.10.1, same key, one login per run)';
    record(
      label,
      'warm session: remote `stor whoami`',
      m.warm,
      'ms',
      ref,
      m.midclt,
      m.warm / m.midclt,
      '≤ 0.6×',
      m.warm / m.midclt <= 0.6,
    );
    record(
      label,
      'before: remote `stor whoami` with STOR_SESSION=off',
      m.off,
      'ms',
      ref,
      m.midclt,
      m.off / m.midclt,
      'before (reported)',
      true,
    );
  }
  if (!noEmbedded) {
    record(
      label,
      'embedded `stor whoami` through the warm agent',
      m.embWarm,
      'ms',
      '`node -e 0`',
      m.node,
      m.embWarm / m.node,
      '≤ 2.0×',
      m.embWarm / m.node <= 2.0,
    );
    record(
      label,
      'embedded `stor whoami` in-process (STOR_SESSION=off)',
      m.embOff,
      'ms',
      '`node -e 0`',
      m.node,
      m.embOff / m.node,
      '≤ 2.0×',
      m.embOff / m.node <= 2.0,
    );
  }
  const warmSession = listed.find((s) => s.target === warmServer.rpc_url.replace(/\/api\/current$/, '')) ?? listed[0];
  notes.push(
    `${label}: whoami, ${RUNS} interleaved rounds after 2 warm-up (each round: cold, warm, off, ${[python && 'Python', !midclt.reason && 'midclt', 'node -e 0', !noEmbedded && 'embedded through the agent and in-process'].filter(Boolean).join(', ')}), ` +
      `client Node ${CLIENT_VERSION}, load ${load0.toFixed(1)} → ${load1.toFixed(1)}. Medians: node -e 0 ${m.node.toFixed(0)} ms` +
      (python ? `, python3 importing websocket ${m.pyBare.toFixed(0)} ms, Python client ${m.py.toFixed(0)} ms` : '') +
      (!midclt.reason ? `, midclt ${m.midclt.toFixed(0)} ms (websocket-client ${midclt.websocket})` : '') +
      `; stor warm ${m.warm.toFixed(0)}, cold ${m.cold.toFixed(0)}, off ${m.off.toFixed(0)} ms. ` +
      `The warm agent ended with ${listed.length} session(s)${warmSession ? `, ${warmSession.calls} calls served on one login` : ''}. ` +
      `Cold: the agent each cold run starts is waited for and stopped (\`stor session stop --all\`) outside the timing; ` +
      `the Python client, midclt, cold and off runs log in to \`stor serve\` instances of their own, each replaced before 20 logins a minute (LoginServers).` +
      (python ? '' : ' No python3 with the `websocket` module: no Python rows.') +
      (midclt.reason ? ` No midclt rows: ${midclt.reason}.` : '') +
      (noEmbedded ? ` No embedded rows: ${noEmbedded}.` : ''),
  );
}

// --- runbook ----------------------------------------------------------------------------------------
/** One block of the runbook: 20 commands on a dataset of its own, as stor and as the Python client's call. */
function block(tag, files) {
  const ds = `tank/rb-${tag}`;
  const p = `/mnt/${ds}`;
  const J = JSON.stringify;
  return [
    [['whoami'], ['auth.me']],
    [
      ['dataset', 'create', ds],
      ['pool.dataset.create', J([{ name: ds }])],
    ],
    [
      ['mkdir', `${p}/in`],
      ['filesystem.mkdir', J([{ path: `${p}/in` }])],
    ],
    [
      ['mkdir', `${p}/out`],
      ['filesystem.mkdir', J([{ path: `${p}/out` }])],
    ],
    [
      ['upload', files[0], `${p}/in/`],
      ['--upload', files[0], `${p}/in/f0.bin`],
    ],
    [
      ['upload', files[1], `${p}/in/`],
      ['--upload', files[1], `${p}/in/f1.bin`],
    ],
    [
      ['stat', `${p}/in/f0.bin`],
      ['filesystem.stat', J([`${p}/in/f0.bin`])],
    ],
    [
      ['stat', `${p}/in/f1.bin`],
      ['filesystem.stat', J([`${p}/in/f1.bin`])],
    ],
    [
      ['ls', `${p}/in`],
      ['filesystem.listdir', J([`${p}/in`])],
    ],
    [
      ['ls', p],
      ['filesystem.listdir', J([p])],
    ],
    [
      ['privilege', 'show', '1'],
      ['privilege.query', J([[['id', '=', 1]], { get: true }])],
    ],
    [
      ['call', 'pool.dataset.query', J([['id', '=', ds]])],
      ['pool.dataset.query', J([[['id', '=', ds]]])],
    ],
    [['whoami'], ['auth.me']],
    [
      ['mkdir', `${p}/out/a`],
      ['filesystem.mkdir', J([{ path: `${p}/out/a` }])],
    ],
    [
      ['upload', files[2], `${p}/out/`],
      ['--upload', files[2], `${p}/out/f2.bin`],
    ],
    [
      ['stat', `${p}/out/f2.bin`],
      ['filesystem.stat', J([`${p}/out/f2.bin`])],
    ],
    [
      ['ls', `${p}/out`],
      ['filesystem.listdir', J([`${p}/out`])],
    ],
    [
      ['privilege', 'show', '1'],
      ['privilege.query', J([[['id', '=', 1]], { get: true }])],
    ],
    [['call', 'core.ping'], ['core.ping']],
    [['whoami'], ['auth.me']],
  ];
}

const quote = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;

/**
 * The runbook as a bash script (`set -e`): 10 blocks of 20 commands. `target(b)` gives block b's
 * `export` line (the stor target, or the Python client's server and source address).
 */
function runbookScript(blocks, command, target) {
  const lines = ['set -e'];
  blocks.forEach((cmds, b) => {
    lines.push(target(b));
    for (const c of cmds) lines.push(`${command(c)} >/dev/null`);
  });
  return `${lines.join('\n')}\n`;
}

async function runbookRows({ record, notes, label, work, python }) {
  if (!python) {
    notes.push(`${label}: runbook not run: no python3 with the \`websocket\` module for the reference.`);
    return;
  }
  const files = [0, 1, 2].map((i) => {
    const f = join(work, `f${i}.bin`);
    writeFileSync(f, randomBytes(4096));
    return f;
  });
  const rbRun = privateDir(join(work, 'run-runbook'));
  const onState = tempDir();
  const pyState = tempDir();
  const onServer = await serve(onState);
  const pyServer = await serve(pyState);
  const env = {
    ...baseEnv,
    STOR_HOME: join(work, 'home-runbook'),
    STOR_CONFIG_DIR: join(work, 'config'),
    XDG_RUNTIME_DIR: rbRun,
    STOR_SESSION_IDLE: '900',
  };
  const storCmd = ([argv]) => `${quote(CLIENT_NODE)} ${quote(CLIENT_STOR)} ${argv.map(quote).join(' ')}`;
  const pyCmd = ([, call]) =>
    `${quote(python)} ${quote(join(ROOT, 'bench/rpc-call.py'))} "$U" "$K" "$SRC" ${call.map(quote).join(' ')}`;
  const times = { on: [], py: [], off: [] };
  let address = 2;
  const load0 = loadavg()[0];
  for (let round = 0; round < RUNBOOK_ROUNDS; round++) {
    const blocks = (v) => Array.from({ length: 10 }, (_, b) => block(`${v}-${round}-${b}`, files));
    // Before: with sessions off, every command logs in; a block of 20 per server keeps each within its 20 logins a minute.
    const offStates = Array.from({ length: 10 }, () => tempDir());
    const offServers = await Promise.all(offStates.map((s) => serve(s)));
    const scripts = {
      on: runbookScript(
        blocks('on'),
        storCmd,
        () => `export STOR_SESSION=on STOR_URL=${quote(onServer.base)} STOR_API_KEY=${quote(onServer.key)}`,
      ),
      py: runbookScript(
        blocks('py'),
        pyCmd,
        () => `U=${quote(pyServer.rpc_url)} K=${quote(pyServer.key)} SRC=127.0.0.${address++}`,
      ),
      off: runbookScript(
        blocks('off'),
        storCmd,
        (b) => `export STOR_SESSION=off STOR_URL=${quote(offServers[b].base)} STOR_API_KEY=${quote(offServers[b].key)}`,
      ),
    };
    // Each round starts with no agent: the runbook's first command starts it.
    await stopAgent({ ...env, STOR_SESSION: 'on' }, rbRun);
    const order = ['on', 'py', 'off'];
    for (let k = 0; k < order.length; k++) {
      const v = order[(k + round) % order.length];
      const file = join(work, `runbook-${v}-${round}.sh`);
      writeFileSync(file, scripts[v]);
      times[v].push(timeChecked('bash', [file], { env }).ms);
    }
    await Promise.all(offServers.map((s) => s.stop()));
    offStates.forEach(cleanup);
  }
  const load1 = loadavg()[0];
  const listed = JSON.parse(timeChecked(...stor({ ...env, STOR_SESSION: 'on' }, 'session', 'list', '--json')).stdout);
  await stopAgent({ ...env, STOR_SESSION: 'on' }, rbRun);
  await onServer.stop();
  await pyServer.stop();
  cleanup(onState);
  cleanup(pyState);
  const [on, py, off] = [median(times.on), median(times.py), median(times.off)];
  const ref = 'the same runbook, minimal Python client (one process, connection and login per command)';
  record(
    label,
    'runbook of 200 commands (whoami, ls, stat, upload, mkdir, dataset create, privilege show, call), `set -e`, sessions on',
    on,
    'ms',
    ref,
    py,
    on / py,
    'reported',
    true,
  );
  record(
    label,
    'before: the same runbook with STOR_SESSION=off (a server per block of 20 commands)',
    off,
    'ms',
    ref,
    py,
    off / py,
    'before (reported)',
    true,
  );
  const list = (v) => times[v].map((t) => (t / 1000).toFixed(1)).join(', ');
  notes.push(
    `${label}: runbook, ${RUNBOOK_ROUNDS} rounds (the three in turn, starting one later each round), load ${load0.toFixed(1)} → ${load1.toFixed(1)}; ` +
      `per command: stor ${(on / 200).toFixed(0)} ms, Python ${(py / 200).toFixed(0)} ms, stor off ${(off / 200).toFixed(0)} ms. ` +
      `Single runs, in s: on ${list('on')}; Python ${list('py')}; off ${list('off')}. ` +
      `stor with sessions runs all 200 against one \`stor serve\`, each round starting with no agent ` +
      `(its first command logs in itself and starts the agent, which logs in once; ${listed.length} session(s) at the end). ` +
      `The Python client runs against one \`stor serve\` too and stays under its 20 logins a minute per address by connecting from ` +
      `a distinct loopback address (127.0.0.2, .3, …) for each block of 20 commands (a pre-connected socket bound with source_address, ` +
      `passed to websocket-client; the upload's POST binds the same); its upload is a single-use token (auth.generate_token), the POST ` +
      `and core.job_wait. With STOR_SESSION=off stor cannot change its address, so each block of 20 goes to a \`stor serve\` of its own ` +
      `(on one server it fails at command 21 with RATE_LIMITED, exit 3).`,
  );
}

// --- fleet --------------------------------------------------------------------------------------------
async function fleetRows({ record, notes, label, work }) {
  const { servers, states } = await startAll(FLEET + 1);
  try {
    const fleetRun = privateDir(join(work, 'run-fleet'));
    const env = {
      ...baseEnv,
      STOR_HOME: join(work, 'home-fleet'),
      STOR_CONFIG_DIR: join(work, 'config-fleet'),
      XDG_RUNTIME_DIR: fleetRun,
      STOR_SESSION_IDLE: '900',
    };
    const entries = servers.map((s, i) => ({
      name: i < FLEET ? `nas${i + 1}` : 'ref',
      url: s.base,
      key_file: s.admin_key_file,
      tags: i < FLEET ? ['bench'] : [],
    }));
    writeFileSync(join(work, 'fleet.json'), JSON.stringify(entries));
    timeChecked(...stor({ ...env, STOR_SESSION: 'off' }, 'profile', 'import', join(work, 'fleet.json')));
    const on = { ...env, STOR_SESSION: 'on' };
    const off = { ...env, STOR_SESSION: 'off' };
    const fleet = ['--targets', `nas[1-${FLEET}]`, 'privilege', 'check', '--json'];
    const one = ['--profile', 'ref', 'privilege', 'check', '--json'];
    const cases = {
      onFleet: [on, fleet, FLEET],
      onOne: [on, one, 1],
      offFleet: [off, fleet, FLEET],
      offOne: [off, one, 1],
    };
    const check = ([e, argv, want]) => {
      const run = timeChecked(...stor(e, ...argv));
      const outcomes = JSON.parse(run.stdout);
      const answered = Array.isArray(outcomes) ? outcomes.filter((o) => o.ok).length : outcomes.ok ? 1 : 0;
      if (answered !== want)
        throw new Error(`sessions fleet: ${argv.join(' ')} got ${answered} clean answers: ${run.stdout.slice(0, 500)}`);
      return run.ms;
    };
    // Warm-up: the first run starts the agent (in-process, 20 logins), the second logs the agent in; from then on, no login.
    check(cases.onFleet);
    await waitUntil('the fleet agent', () => agentSocket(fleetRun) !== undefined);
    check(cases.onFleet);
    check(cases.onOne);
    check(cases.offFleet);
    check(cases.offOne);
    const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
    const load0 = loadavg()[0];
    for (let round = 0; round < FLEET_ROUNDS; round++)
      for (const [name, c] of Object.entries(cases)) times[name].push(check(c));
    const load1 = loadavg()[0];
    const listed = JSON.parse(timeChecked(...stor(on, 'session', 'list', '--json')).stdout);
    await stopAgent(on, fleetRun);
    const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
    record(
      label,
      `warm: \`stor --targets nas[1-${FLEET}] privilege check\`, ${FLEET} \`stor serve\` on loopback, sessions on (a second run or later)`,
      m.onFleet,
      'ms',
      'the same command against one target, sessions on',
      m.onOne,
      m.onFleet / m.onOne,
      '≤ 1.5×',
      m.onFleet / m.onOne <= 1.5,
    );
    record(
      label,
      `before: the same fan-out with STOR_SESSION=off (${FLEET} logins per run)`,
      m.offFleet,
      'ms',
      'the same command against one target, STOR_SESSION=off',
      m.offOne,
      m.offFleet / m.offOne,
      'before (reported)',
      true,
    );
    const list = (k) => times[k].map(Math.round).join(', ');
    notes.push(
      `${label}: fleet, ${FLEET_ROUNDS} rounds of the four commands in turn after a warm-up (the first sessions-on run starts the agent, the second logs it in to each target), ` +
        `load ${load0.toFixed(1)} → ${load1.toFixed(1)}. The agent then held ${listed.length} sessions, ${listed.reduce((n, s) => n + s.calls, 0)} calls served in all. ` +
        `Single runs, in ms: on, ${FLEET} targets ${list('onFleet')}; on, one ${list('onOne')}; off, ${FLEET} targets ${list('offFleet')}; off, one ${list('offOne')}.`,
    );
  } finally {
    await Promise.allSettled(servers.map((s) => s.stop()));
    states.forEach(cleanup);
  }
}

export async function benchSessions({ record, notes, label }) {
  const work = tempDir('stor-bench-sessions-');
  const python = findPython();
  const midclt = findMidclt();
  const problem = embeddedProblem(work);
  if (problem?.fatal) {
    notes.push(`${label}: not run: ${problem.reason}.`);
    cleanup(work);
    return;
  }
  try {
    if (PARTS.has('whoami')) await whoamiRows({ record, notes, label, work, python, midclt });
    if (PARTS.has('runbook')) await runbookRows({ record, notes, label, work, python });
    if (PARTS.has('fleet')) await fleetRows({ record, notes, label, work });
  } finally {
    await Promise.allSettled([...started].map((s) => s.stop()));
    started.clear();
    // Any agent left by a failure: stop them all, each in its own directory.
    for (const d of readdirSync(work).filter((f) => f.startsWith('run-'))) {
      const runDir = join(work, d);
      if (agentSocket(runDir))
        spawnSync(CLIENT_NODE, [CLIENT_STOR, 'session', 'stop', '--all'], {
          env: { ...baseEnv, XDG_RUNTIME_DIR: runDir },
          stdio: 'ignore',
        });
    }
    cleanup(work);
  }
}
