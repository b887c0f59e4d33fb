// The fleet section of `npm run bench`: `privilege check --targets` over 20 `stor serve`
// instances on loopback, against the same check on one target, in wall time and peak memory.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE, STOR, cleanup, measurePeak, median, rpcClient, startServe, tempDir } from './lib.mjs';

const FLEET = 20;
// Every run logs in once on each target it reaches, and a server allows 20 logins a minute per
// address (MW/main.py:873-903): the two fan-out rows reach every fleet server once per round each, so
// warm-up and rounds together stay at 10 or fewer. The one-target reference gets a server of its
// own, set up as the fleet's are, so its logins do not count against nas1's.
const WARMUP = 1;
const ROUNDS = Number(process.env.STOR_BENCH_FLEET_ROUNDS ?? 8);
if ((WARMUP + ROUNDS) * 2 > 20)
  throw new Error('STOR_BENCH_FLEET_ROUNDS: at most 9, or the login rate limit refuses the last rounds');

/** Starts every server, or stops those that started and throws. */
export async function startAll(count) {
  const states = Array.from({ length: count }, () => tempDir('stor-bench-fleet-'));
  const started = await Promise.allSettled(states.map((s) => startServe(s)));
  const servers = started.filter((r) => r.status === 'fulfilled').map((r) => r.value);
  const failed = started.find((r) => r.status === 'rejected');
  if (failed) {
    await Promise.allSettled(servers.map((s) => s.stop()));
    states.forEach(cleanup);
    throw failed.reason;
  }
  return { servers, states };
}

export async function benchFleet({ record, notes, rows }) {
  const { servers, states } = await startAll(FLEET + 1);
  const client = tempDir('stor-bench-fleet-client-');
  try {
    const env = { ...process.env, STOR_HOME: join(client, 'home'), STOR_CONFIG_DIR: join(client, 'config') };
    // Profiles as an operator makes them for a fleet: one import, each key from its file.
    const entries = servers.map((s, i) => ({
      name: i < FLEET ? `nas${i + 1}` : 'ref',
      url: s.base,
      key_file: s.admin_key_file,
      tags: i < FLEET ? ['bench'] : [],
    }));
    writeFileSync(join(client, 'fleet.json'), JSON.stringify(entries));
    execFileSync(NODE, [STOR, 'profile', 'import', join(client, 'fleet.json')], {
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });

    const cases = {
      p8: [NODE, [STOR, '--targets', `nas[1-${FLEET}]`, 'privilege', 'check', '--json']],
      p20: [NODE, [STOR, '--targets', `nas[1-${FLEET}]`, 'privilege', 'check', '--json', '--parallel', String(FLEET)]],
      one: [NODE, [STOR, '--profile', 'ref', 'privilege', 'check', '--json']],
    };
    const load0 = loadavg()[0];
    const runs = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      for (const [name, [cmd, args]] of Object.entries(cases)) {
        const run = measurePeak(cmd, args, { env });
        const outcomes = JSON.parse(run.stdout);
        const answered = Array.isArray(outcomes) ? outcomes.filter((o) => o.ok).length : outcomes.ok ? 1 : 0;
        if (answered !== (name === 'one' ? 1 : FLEET))
          throw new Error(`fleet: ${name} got ${answered} clean answers: ${run.stdout}`);
        if (round >= WARMUP) runs[name].push(run);
      }
    }
    const load1 = loadavg()[0];
    const ms = (name) => median(runs[name].map((r) => r.ms));
    const mib = (name) => median(runs[name].map((r) => r.mib));
    const one = ms('one');
    for (const [name, parallel] of [
      ['p8', '8 (default)'],
      ['p20', String(FLEET)],
    ]) {
      const got = ms(name);
      record(
        'fleet',
        `\`stor --targets nas[1-${FLEET}] privilege check\`, ${FLEET} \`stor serve\` on loopback, \`--parallel ${parallel}\``,
        got,
        'ms',
        '`stor --profile ref privilege check` (one target)',
        one,
        got / one,
        '≤ 3×',
        got / one <= 3,
      );
    }
    for (const name of ['p8', 'p20']) {
      const peak = mib(name);
      const parallel = name === 'p8' ? '8' : String(FLEET);
      rows.push({
        section: 'fleet',
        what: `peak memory of the fan-out client (${FLEET} targets, \`--parallel ${parallel}\`)`,
        value: peak,
        unit: 'MiB',
        reference: 'the one-target client',
        refValue: mib('one'),
        ratio: peak / mib('one'),
        target: 'reported',
        met: true,
      });
    }
    console.log(
      `fleet: peak memory p8 ${mib('p8').toFixed(1)} MiB, p20 ${mib('p20').toFixed(1)} MiB, one ${mib('one').toFixed(1)} MiB`,
    );
    const list = (name) => runs[name].map((r) => Math.round(r.ms)).join(', ');
    notes.push(
      `fleet: ${ROUNDS} rounds after ${WARMUP} warm-up, each running the three commands in turn (medians; peak memory is GNU time's maximum RSS); ` +
        `load ${load0.toFixed(1)} → ${load1.toFixed(1)}. The ${FLEET + 1} servers and the client share the machine's 2 cores, so each target's ` +
        `server-side work (the scrypt check of its key at login, the check itself) competes with the client for CPU; on a real fleet ` +
        `that work runs on each appliance. The reference has a server of its own, set up as the fleet's: every run logs in once per ` +
        `target, and a server allows 20 logins a minute per address. Single runs, in ms: --parallel 8 ${list('p8')}; --parallel ${FLEET} ${list('p20')}; one target ${list('one')}.`,
    );
  } finally {
    await Promise.allSettled(servers.map((s) => s.stop()));
    states.forEach(cleanup);
    cleanup(client);
  }
}

// --- warm fan-out over 100 targets ------------------------------------------------------------------
// 100 targets through a warm session agent (its connections logged in) against one target through
// the same agent, interleaved. Ten `stor serve` with ten API keys each, not 100 servers: the agent
// pools one connection per (URL, key), so the 100 profiles are 100 logged-in WebSocket connections
// and 100 leases, 100 contexts, 100 answers to render, as over 100 appliances; 100 Node processes
// (some 60 MiB and a start-up each) on this 2-core box would measure their start and memory, not
// the fan-out. Each server answers ten targets' calls, which on a real fleet would be ten machines.
const WARM_SERVERS = Number(process.env.STOR_BENCH_FLEET_WARM_SERVERS ?? 10);
const WARM_KEYS = Number(process.env.STOR_BENCH_FLEET_WARM_KEYS ?? 10);
const WARM_ROUNDS = Number(process.env.STOR_BENCH_FLEET_WARM_ROUNDS ?? 9);
// Another build's bin/stor.js, measured in the same rounds (before/after a change).
const WARM_BEFORE = process.env.STOR_BENCH_FLEET_WARM_BEFORE;
const WARM_VERB = (process.env.STOR_BENCH_FLEET_WARM_VERB ?? 'whoami').split(' ');
// The node of the stor client (and so of its agent, which runs on the client's node); the servers run on this one.
const CLIENT_NODE = process.env.STOR_BENCH_NODE ?? NODE;
// A directory: this checkout's agent is started by hand with `--cpu-prof` into it (the agent is
// never given NODE_OPTIONS, process-env.ts), and writes its profile as `session stop` ends it.
const WARM_PROFILE = process.env.STOR_BENCH_FLEET_WARM_PROFILE;
// Unmeasured 100-target runs of each build after its warm-up (default 0, as before). Without them
// the goal's rounds fall in the servers' first ~200 calls and the agent's first ~2,000 targets,
// while both are still getting faster run after run (bench/HISTORY.md, "where each side's time goes
// now, and the servers' JIT warm-up"); a real appliance's middleware is a long-running daemon. Off
// by default: it changes what the goal's row measures.
const WARMUP_RUNS = Number(process.env.STOR_BENCH_FLEET_WARMUP_RUNS ?? 0);
// Unmeasured 100-target runs (and as many one-target runs) made before the measured builds' agents
// start, through an agent of their own that is then stopped (default 0). They warm the servers
// only: a real appliance's middleware is a long-running daemon, where a fresh `stor serve` is still
// compiling its answer paths for its first few hundred calls; the measured agents start as cold as
// without them. The servers' login budget (20 a minute per address) is waited out after them.
const SERVER_WARMUP_RUNS = Number(process.env.STOR_BENCH_FLEET_SERVER_WARMUP ?? 0);

/** Clock ticks to ms (Linux's USER_HZ is 100). */
const TICK_MS = 10;

/** CPU (user+sys, ms) of this process's waited-for children so far (/proc/self/stat cutime+cstime). */
function childrenCpu() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) * TICK_MS;
}

/** CPU (user+sys, ms, to the nanosecond) of a live process so far: /proc/PID/schedstat's time on a CPU. */
const processCpu = (pid) => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;

/** The session agents serving `runDir` (by their environment): pid → CPU (user+sys, ms) so far. */
function agentsCpu(runDir) {
  const found = {};
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('stor session agent')) continue;
      if (!readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`XDG_RUNTIME_DIR=${runDir}`)) continue;
      found[pid] = processCpu(pid);
    } catch {
      // Gone meanwhile, or not ours.
    }
  }
  return found;
}

/** The node processes of `stor serve --state DIR` for these state directories (not GNU time around them). */
function servePids(states) {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        const at = argv.indexOf('--state');
        return at > 0 && states.includes(argv[at + 1]) && argv[0] !== '/usr/bin/time' && argv[1] === STOR;
      } catch {
        return false;
      }
    });
}

/** Every thread of `pid` (and those it starts later) on these CPUs (`taskset -a -p -c`). */
function pin(pid, cpus) {
  const r = spawnSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`fleet: taskset -a -p -c ${cpus} ${pid}: ${r.stderr || r.error}`);
}

/** How many agents listen in `runDir` (one per build). */
const agentSockets = (runDir) => {
  try {
    return readdirSync(join(runDir, 'stor')).filter((f) => /^agent-.*\.sock$/.test(f)).length;
  } catch {
    return 0;
  }
};

async function waitFor(what, test, ms = 30000) {
  for (const deadline = Date.now() + ms; !test();) {
    if (Date.now() > deadline) throw new Error(`fleet: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `count` more API keys of the admin key's user on `server`, each in a file of its own (0600). */
async function moreKeys(server, count, dir, tag) {
  const client = await rpcClient(server.rpc_url);
  try {
    await client.result('auth.login_with_api_key', [server.key]);
    const me = await client.result('auth.me', []);
    const files = [];
    for (let i = 0; i < count; i++) {
      const made = await client.result('api_key.create', [{ name: `bench-${i}`, username: me.pw_name }]);
      const file = join(dir, `${tag}-${i}.key`);
      writeFileSync(file, made.key, { mode: 0o600 });
      files.push(file);
    }
    return files;
  } finally {
    client.close();
  }
}

// The rows above share the machine's cores between the client, its agent and the ten servers; on a
// real fleet each target's server work runs on its own appliance. The pinned rounds put the
// servers on CPUs 1.. and the bench (so every client it starts) and the agents on CPU 0, then run
// the same commands again: the client's core then runs stor's work only (and whatever else the
// machine runs there), the servers' answers are made beside it, not in turns with it.
// STOR_BENCH_FLEET_PINNED=0 skips them; they need taskset (util-linux) and two CPUs.
const PINNED = process.env.STOR_BENCH_FLEET_PINNED !== '0';

/** The pinned rounds (see PINNED): wall times per case, or why they did not run. */
function pinnedRounds({ run, cases, builds, serverPids, runDir }) {
  const cores = availableParallelism();
  if (!PINNED) return { skipped: 'STOR_BENCH_FLEET_PINNED=0' };
  if (cores < 2) return { skipped: 'one CPU only' };
  if (spawnSync('taskset', ['-V']).status !== 0) return { skipped: 'no taskset (util-linux)' };
  const all = `0-${cores - 1}`;
  const agents = Object.keys(agentsCpu(runDir));
  const names = Object.keys(builds).flatMap((tag) => [`fleet${tag}`, `one${tag}`]);
  const times = Object.fromEntries(names.map((k) => [k, []]));
  const load0 = loadavg()[0];
  try {
    for (const pid of serverPids) pin(pid, `1-${cores - 1}`);
    for (const pid of [...agents, process.pid]) pin(pid, '0');
    // One unmeasured round: the agents' threads and the servers settle on their CPUs.
    for (const name of names) run(cases[name]);
    for (let round = 0; round < WARM_ROUNDS; round++)
      for (const name of names) times[name].push(run(cases[name], `${name}Pinned`));
  } finally {
    for (const pid of [process.pid, ...agents, ...serverPids]) {
      try {
        pin(pid, all);
      } catch {
        // An agent or server gone: nothing to restore.
      }
    }
  }
  return { times, load: [load0, loadavg()[0]], cpus: `servers on CPU ${cores === 2 ? '1' : `1-${cores - 1}`}` };
}

export async function benchWarmFleet({ record, notes, rows }) {
  const { servers, states } = await startAll(WARM_SERVERS + 1);
  const client = tempDir('stor-bench-fleet-warm-');
  try {
    const runDir = join(client, 'run');
    mkdirSync(runDir, { mode: 0o700 });
    const env = {
      ...process.env,
      STOR_HOME: join(client, 'home'),
      STOR_CONFIG_DIR: join(client, 'config'),
      XDG_RUNTIME_DIR: runDir,
      STOR_SESSION: 'on',
      STOR_SESSION_IDLE: '900',
    };
    const fleet = servers.slice(0, WARM_SERVERS);
    const ref = servers[WARM_SERVERS];
    const entries = [];
    for (const [s, server] of fleet.entries()) {
      const keys = [server.admin_key_file, ...(await moreKeys(server, WARM_KEYS - 1, client, s))];
      keys.forEach((key_file, k) =>
        entries.push({ name: `nas${s * WARM_KEYS + k + 1}`, url: server.base, key_file, tags: ['bench'] }),
      );
    }
    entries.push({ name: 'ref', url: ref.base, key_file: ref.admin_key_file, tags: [] });
    writeFileSync(join(client, 'fleet.json'), JSON.stringify(entries));
    execFileSync(NODE, [STOR, 'profile', 'import', join(client, 'fleet.json')], {
      env: { ...env, STOR_SESSION: 'off' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const n = entries.length - 1;
    // Each build has an agent of its own (the socket's name holds the build id), in the same directory.
    const builds = { '': STOR, ...(WARM_BEFORE ? { before: WARM_BEFORE } : {}) };
    const cases = {};
    for (const [tag, stor] of Object.entries(builds)) {
      cases[`fleet${tag}`] = [CLIENT_NODE, [stor, '--targets', `nas[1-${n}]`, ...WARM_VERB, '--json'], n];
      cases[`all${tag}`] = [
        CLIENT_NODE,
        [stor, '--targets', `nas[1-${n}]`, ...WARM_VERB, '--json', '--parallel', String(n)],
        n,
      ];
      cases[`one${tag}`] = [CLIENT_NODE, [stor, '--profile', 'ref', ...WARM_VERB, '--json'], 1];
    }
    // CPU of each run: the client's (the first stage), the agents' (only the one serving it works),
    // and the servers' (all of them, the reference's too).
    const cpu = {};
    const serverPids = servePids(states);
    const serversCpu = () => serverPids.reduce((sum, pid) => sum + processCpu(pid), 0);
    const run = ([cmd, args, want], name) => {
      const agents0 = name ? agentsCpu(runDir) : {};
      const s0 = name ? serversCpu() : 0;
      const c0 = childrenCpu();
      const t0 = process.hrtime.bigint();
      const r = spawnSync(cmd, args, { env, encoding: 'utf8', maxBuffer: 1 << 28 });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (name) {
        const c = (cpu[name] ??= { client: [], agent: [], servers: [] });
        c.client.push(childrenCpu() - c0);
        const agents1 = agentsCpu(runDir);
        c.agent.push(Object.keys(agents1).reduce((sum, pid) => sum + agents1[pid] - (agents0[pid] ?? agents1[pid]), 0));
        c.servers.push(serversCpu() - s0);
      }
      if (r.status !== 0) throw new Error(`fleet: ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
      const outcomes = JSON.parse(r.stdout);
      const answered = Array.isArray(outcomes) ? outcomes.filter((o) => o.ok).length : 1;
      if (answered !== want) throw new Error(`fleet: ${args.join(' ')} got ${answered} clean answers`);
      return ms;
    };
    if (WARM_PROFILE) {
      const agentEnv = { HOME: env.HOME, PATH: env.PATH, XDG_RUNTIME_DIR: runDir, STOR_SESSION_IDLE: '900' };
      for (const name of ['TZ', 'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'NODE_TLS_REJECT_UNAUTHORIZED'])
        if (env[name] !== undefined) agentEnv[name] = env[name];
      spawn(CLIENT_NODE, ['--cpu-prof', `--cpu-prof-dir=${WARM_PROFILE}`, join(STOR, '../../dist/bundle/agent.js')], {
        env: agentEnv,
        stdio: 'ignore',
        cwd: '/',
        detached: true,
      }).unref();
      await waitFor('the profiled agent', () => agentSockets(runDir) === 1);
    }
    if (SERVER_WARMUP_RUNS > 0) {
      const warmEnv = { ...env, XDG_RUNTIME_DIR: join(client, 'run-warm-servers') };
      mkdirSync(warmEnv.XDG_RUNTIME_DIR, { mode: 0o700 });
      for (let i = 0; i < SERVER_WARMUP_RUNS; i++)
        for (const [cmd, args] of [cases.fleet, cases.one]) {
          const r = spawnSync(cmd, args, { env: warmEnv, encoding: 'utf8', maxBuffer: 1 << 28 });
          if (r.status !== 0)
            throw new Error(`fleet: the servers' warm-up: ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
        }
      spawnSync(CLIENT_NODE, [STOR, 'session', 'stop', '--all'], { env: warmEnv, stdio: 'ignore' });
      await new Promise((resolve) => setTimeout(resolve, 61_000));
    }
    // The first run starts the agent (and runs in its own process), the second logs the agent in.
    for (const tag of Object.keys(builds)) {
      // Each build's warm-up logs in twice on every server's ten keys: the second build's would
      // meet the 20 logins a minute a server allows an address (MW/main.py:873-903) before the minute is out.
      if (tag !== '') await new Promise((resolve) => setTimeout(resolve, 61_000));
      run(cases[`fleet${tag}`]);
      await waitFor('the agent', () => agentSockets(runDir) === Object.keys(builds).indexOf(tag) + 1);
      run(cases[`fleet${tag}`]);
      run(cases[`one${tag}`]);
      for (let i = 0; i < WARMUP_RUNS; i++) run(cases[`fleet${tag}`]);
    }
    const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
    const load0 = loadavg()[0];
    for (let round = 0; round < WARM_ROUNDS; round++)
      for (const name of Object.keys(cases)) times[name].push(run(cases[name], name));
    const load1 = loadavg()[0];
    // The same runs again with the servers on CPUs of their own (PINNED above).
    const pinned = pinnedRounds({ run, cases, builds, serverPids, runDir });
    for (const stor of Object.values(builds))
      spawnSync(CLIENT_NODE, [stor, 'session', 'stop', '--all'], { env, stdio: 'ignore' });
    await waitFor('the agents to stop', () => agentSockets(runDir) === 0);
    const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
    const verb = WARM_VERB.join(' ');
    for (const [name, parallel] of [
      ['fleet', '8 (default)'],
      ['all', String(n)],
    ]) {
      record(
        'fleet',
        `warm: \`stor --targets nas[1-${n}] ${verb} --json\`, \`--parallel ${parallel}\`, ${n} targets (${WARM_SERVERS} \`stor serve\` × ${WARM_KEYS} keys${SERVER_WARMUP_RUNS > 0 ? `, the servers warmed by ${SERVER_WARMUP_RUNS} runs of another agent first` : ''}) through the session agent`,
        m[name],
        'ms',
        `\`stor --profile ref ${verb} --json\` (one target), same agent`,
        m.one,
        m[name] / m.one,
        '≤ 1.3×',
        m[name] / m.one <= 1.3,
      );
    }
    const list = (k) => times[k].map(Math.round).join(', ');
    // Means, not medians: /proc counts the client's CPU in 10 ms ticks, which a median of a few runs rounds away.
    const exact = (v) => v.reduce((a, b) => a + b, 0) / v.length;
    const mean = (v) => Math.round(exact(v));
    const cpuOf = (k) =>
      `client ${mean(cpu[k].client)} ms, agent ${mean(cpu[k].agent)} ms, servers ${mean(cpu[k].servers)} ms`;
    m.cpu = Object.fromEntries(
      Object.keys(cpu).map((k) => [
        k,
        { client: mean(cpu[k].client), agent: mean(cpu[k].agent), servers: mean(cpu[k].servers) },
      ]),
    );
    // Besides the goal's rows, not instead of them (bench/HISTORY.md, "the warm fan-out: stor's own
    // cost beside the servers'"): what stor itself spends, with the servers' work left out.
    const own = (k) => exact(cpu[k].client) + exact(cpu[k].agent);
    rows?.push({
      section: 'fleet',
      what: `warm, stor's own CPU (user+sys of the first stage and the agent, means) for \`--targets nas[1-${n}] ${verb} --json\`, \`--parallel 8\`: the servers' left out`,
      value: own('fleet'),
      unit: 'ms',
      reference: 'the same for the one-target run',
      refValue: own('one'),
      ratio: own('fleet') / own('one'),
      target: 'reported',
      met: true,
    });
    if (pinned.times) {
      const p = Object.fromEntries(Object.entries(pinned.times).map(([k, v]) => [k, median(v)]));
      m.pinned = p;
      rows?.push({
        section: 'fleet',
        what: `warm, pinned: \`--targets nas[1-${n}] ${verb} --json\`, \`--parallel 8\`, ${pinned.cpus}, the client and its agent on CPU 0 (taskset)`,
        value: p.fleet,
        unit: 'ms',
        reference: 'the one-target run, pinned the same way',
        refValue: p.one,
        ratio: p.fleet / p.one,
        target: 'reported',
        met: true,
      });
    }
    const pinnedNote = pinned.times
      ? ` Pinned rounds (${pinned.cpus}, the bench's clients and the agents on CPU 0; ${WARM_ROUNDS} rounds after one unmeasured, load ` +
        `${pinned.load[0].toFixed(1)} → ${pinned.load[1].toFixed(1)}), single runs in ms: ${Object.entries(pinned.times)
          .map(([k, v]) => `${k} ${v.map(Math.round).join(', ')}`)
          .join('; ')}.`
      : ` Pinned rounds skipped: ${pinned.skipped}.`;
    const ab = WARM_BEFORE
      ? ` The build at ${WARM_BEFORE}, in the same rounds: ${n} targets ${(m.fleetbefore / m.onebefore).toFixed(2)}× ` +
        `(${Math.round(m.fleetbefore)} / ${Math.round(m.onebefore)} ms), --parallel ${n} ${(m.allbefore / m.onebefore).toFixed(2)}×; ` +
        `single runs: ${list('fleetbefore')}; --parallel ${n} ${list('allbefore')}; one ${list('onebefore')}.`
      : '';
    notes.push(
      `fleet (warm): ${WARM_ROUNDS} rounds, the runs in turn, after a warm-up that starts the agent and logs it in; ` +
        `load ${load0.toFixed(1)} → ${load1.toFixed(1)}; ${WARM_SERVERS} servers × ${WARM_KEYS} keys (one pooled connection per key)` +
        `${WARMUP_RUNS > 0 ? `; ${WARMUP_RUNS} unmeasured 100-target runs per build first (STOR_BENCH_FLEET_WARMUP_RUNS)` : ''}` +
        `${SERVER_WARMUP_RUNS > 0 ? `; the servers warmed first by ${SERVER_WARMUP_RUNS} 100-target and one-target runs through an agent of their own, then stopped (STOR_BENCH_FLEET_SERVER_WARMUP)` : ''}. ` +
        `Single runs, in ms: ${n} targets ${list('fleet')}; --parallel ${n} ${list('all')}; one ${list('one')}.${ab} ` +
        `CPU (user+sys) means per run: ${Object.keys(cpu)
          .map((k) => `${k}: ${cpuOf(k)}`)
          .join('; ')}; client node ${CLIENT_NODE}.${pinnedNote}`,
    );
    return m;
  } finally {
    await Promise.allSettled(servers.map((s) => s.stop()));
    states.forEach(cleanup);
    cleanup(client);
  }
}

// `node bench/fleet.mjs warm`: the warm row alone, printed.
if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'warm') {
  const notes = [];
  const rows = [];
  await benchWarmFleet({
    record: (...row) => console.log(row.slice(1, 8).join(' | ')),
    notes,
    rows,
  });
  for (const r of rows) console.log([r.what, r.value, r.unit, r.reference, r.refValue, r.ratio, r.target].join(' | '));
  console.log(notes.join('\n'));
}
