// The guards section of `npm run bench`: what the security tests once held to a
// clock, measured here as ratios against a reference taken in the same run. The tests keep the
// behaviour, counted (test/core/appliance/session/key-checks, tree-walks, redos, connections, cli-job-stall);
// how long a bystander waits, how long a hostile query takes and how much memory a client that does
// not read costs the server are these rows. Everything runs against `stor serve` processes.
// `node bench/guards.mjs` prints the rows without touching RESULTS.md.
import { spawn } from 'node:child_process';
import { linkSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import WebSocket, { WebSocketServer } from 'ws';
import { NODE, STOR, cleanup, median, rpcClient, startServe, tempDir } from './lib.mjs';

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

async function loggedIn(server) {
  const client = await rpcClient(server.rpc_url);
  if ((await client.result('auth.login_with_api_key', [server.key])) !== true) throw new Error('login refused');
  return client;
}

/** POST /api/current with a key: one scrypt check on the server. Resolves with the wall time. */
function keyedPost(server, key) {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'core.ping', params: [] });
  const t0 = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}/api/current`, {
      method: 'POST',
      agent: false,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () =>
        res.statusCode === 200 ? resolve(ms(t0)) : reject(new Error(`keyed POST: ${res.statusCode}`)),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Round trips (ms) of `core.ping` from `pinger`, one after another, until `work` settles. */
async function pingsWhile(pinger, work) {
  let done = false;
  const settled = work.finally(() => (done = true));
  const pings = [];
  do {
    const t0 = process.hrtime.bigint();
    await pinger.result('core.ping');
    pings.push(ms(t0));
  } while (!done);
  return { pings, result: await settled };
}

/** Key checks: a bystander's ping while 20 keyed calls are hashed at once, against one keyed call alone. */
async function keyChecks(server, rounds) {
  const bystander = await loggedIn(server);
  const pings = [];
  const alone = [];
  for (let r = 0; r < rounds; r++) {
    alone.push(await keyedPost(server, server.key));
    const flood = Promise.all(Array.from({ length: 20 }, () => keyedPost(server, server.key)));
    // The ping right after the flood is sent, and the next eight: what the old test held under 100 ms (their median).
    for (let i = 0; i < 9; i++) {
      const t0 = process.hrtime.bigint();
      await bystander.result('core.ping');
      pings.push(ms(t0));
    }
    await flood;
  }
  bystander.close();
  return { ping: median(pings), alone: median(alone) };
}

/** Tree walks: the slowest ping during a listing (and a recursive delete) of 20,000 files, against the walk's own length. */
async function treeWalks(server, state) {
  const caller = await loggedIn(server);
  const bystander = await loggedIn(server);
  await caller.result('pool.dataset.create', [{ name: 'tank/big' }]);
  const root = join(state, 'mnt/tank/big');
  // 20,000 names for one file outside the dataset, as test/core/appliance/files/tree-walks.test.ts makes them.
  const content = join(state, 'content');
  writeFileSync(content, 'x'.repeat(10));
  for (let d = 0; d < 20; d++) {
    mkdirSync(join(root, `d${d}`));
    for (let f = 0; f < 1000; f++) linkSync(content, join(root, `d${d}`, `f${f}`));
  }
  const walk = async (method, params) => {
    const t0 = process.hrtime.bigint();
    const { pings, result } = await pingsWhile(
      bystander,
      caller.call(method, params).then((reply) => [reply, ms(t0)]),
    );
    const [reply, length] = result;
    if (reply.error) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
    return { slowest: Math.max(...pings), length, pings: pings.length };
  };
  const list = await walk('pool.dataset.query', [[['id', '=', 'tank/big']], { get: true }]);
  const remove = await walk('pool.dataset.delete', ['tank/big', { recursive: true }]);
  caller.close();
  bystander.close();
  return { list, remove };
}

// The redos test's patterns, against 20,000 characters; the reference matches the same text plainly.
const HOSTILE = [
  '([A-Z_]+)+x$',
  '(a+)+$',
  '(a|aa)+$',
  '(.*a){20}$',
  '(\\w+\\s?)+$',
  '^(([a-z])+.)+[A-Z]([a-z])+$',
  '((((a*)*)*)*)*b',
];

/** ReDoS: the slowest hostile `~` query over a 20,000-character name, against a harmless one over the same name. */
async function redos(server, rounds) {
  const admin = await loggedIn(server);
  await admin.result('user.create', [
    { username: 'longname', full_name: 'A'.repeat(20_000), group_create: true, password_disabled: true, smb: false },
  ]);
  const time = async (pattern) => {
    const t0 = process.hrtime.bigint();
    const reply = await admin.call('user.query', [[['full_name', '~', pattern]], { count: true }]);
    if (reply.error) throw new Error(`${pattern}: ${JSON.stringify(reply.error)}`);
    return ms(t0);
  };
  const times = Object.fromEntries(['A+$', ...HOSTILE].map((p) => [p, []]));
  for (let r = 0; r < rounds + 1; r++)
    for (const p of Object.keys(times)) {
      const t = await time(p);
      if (r > 0) times[p].push(t); // the first round compiles and warms up
    }
  admin.close();
  const medians = Object.entries(times).map(([p, t]) => [p, median(t)]);
  const [worst, worstMs] = medians.slice(1).reduce((a, b) => (b[1] > a[1] ? b : a));
  return { worst, worstMs, harmless: medians[0][1] };
}

/**
 * Unread output: sends 60 kB-answer calls on a WebSocket whose client does not read, until the server
 * cuts it off (or `limit` calls); returns how many were sent. With `reads`, the client reads its answers
 * and sends the same number of calls, 20 at a time: the reference.
 */
async function flood(server, { reads, count }) {
  const client = await loggedIn(server);
  const request = JSON.stringify({ jsonrpc: '2.0', id: 'x'.repeat(60_000), method: 'core.ping', params: [] });
  let sent = 0;
  if (reads) {
    let answered = 0;
    client.ws.on('message', () => answered++);
    while (sent < count) {
      for (let i = 0; i < 20; i++) client.ws.send(request);
      sent += 20;
      while (answered < sent) await new Promise((r) => setTimeout(r, 1));
    }
  } else {
    client.ws._socket.pause();
    while (client.ws.readyState === WebSocket.OPEN && sent < count) {
      if (client.ws.bufferedAmount < 256 * 1024) {
        for (let i = 0; i < 20; i++) client.ws.send(request);
        sent += 20;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  client.close();
  return sent;
}

/** A stand-in appliance whose job 7 is RUNNING at 10% for ever (stalled) or already done. */
async function jobStandin(state) {
  // A core.get_jobs entry as 25.10.1 lists it (MW/api/v25_10_1/core.py CoreGetJobsItem), as the test's stand-in gives it.
  const job = {
    id: 7,
    message_ids: [],
    method: 'filesystem.put',
    arguments: [],
    transient: false,
    description: null,
    abortable: false,
    logs_path: null,
    logs_excerpt: null,
    progress: { percent: state === 'SUCCESS' ? 100 : 10, description: null, extra: null },
    result: null,
    result_encoding_error: null,
    error: null,
    exception: null,
    exc_info: null,
    state,
    time_started: { $date: 1767225600000 },
    time_finished: null,
    credentials: null,
  };
  const answers = {
    'auth.login_with_api_key': true,
    'auth.me': {},
    'core.set_options': null,
    'core.get_jobs': [job],
  };
  const http = createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ server: http, path: '/api/current' });
  wss.on('connection', (ws) =>
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString());
      if (msg.method === 'core.job_wait' || msg.id === undefined) return; // never answered: the CLI polls
      const frame =
        msg.method in answers
          ? { result: answers[msg.method] }
          : { error: { code: -32601, message: 'Method does not exist' } };
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...frame }));
    }),
  );
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  return { url: `ws://127.0.0.1:${http.address().port}`, close: () => (wss.close(), http.close()) };
}

/** Wall time of `stor job wait 7 --timeout <t>` against a stand-in, and its exit code. */
function jobWait(url, timeout, home) {
  const t0 = process.hrtime.bigint();
  const child = spawn(NODE, [STOR, '--url', url, '--timeout', String(timeout), '--json', 'job', 'wait', '7'], {
    env: {
      ...process.env,
      STOR_HOME: home,
      STOR_CONFIG_DIR: home,
      STOR_API_KEY: `1-${'A'.repeat(64)}`,
      STOR_SESSION: 'off',
    },
    stdio: 'ignore',
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ ms: ms(t0), code })));
}

export async function measureGuards({ rounds = 5 } = {}) {
  const out = {};
  const load0 = loadavg()[0];
  {
    const state = tempDir('stor-bench-guards-');
    const server = await startServe(state);
    try {
      out.keyChecks = await keyChecks(server, rounds);
      out.walks = await treeWalks(server, state);
      out.redos = await redos(server, rounds);
    } finally {
      await server.stop();
      cleanup(state);
    }
  }
  {
    // Each in a server of its own: GNU time's peak is the process's whole life.
    const flooded = tempDir('stor-bench-guards-');
    const server = await startServe(flooded);
    let sent;
    try {
      sent = await flood(server, { reads: false, count: 4000 });
    } finally {
      out.unreadPeak = await server.stop();
      cleanup(flooded);
    }
    const reading = tempDir('stor-bench-guards-');
    const reference = await startServe(reading);
    try {
      await flood(reference, { reads: true, count: sent });
    } finally {
      out.readPeak = await reference.stop();
      cleanup(reading);
    }
    out.unreadSent = sent;
  }
  {
    const home = tempDir('stor-bench-guards-');
    const stalled = await jobStandin('RUNNING');
    const done = await jobStandin('SUCCESS');
    try {
      const stalledRuns = [];
      const doneRuns = [];
      for (let r = 0; r < Math.max(3, Math.ceil(rounds / 2)); r++) {
        const s = await jobWait(stalled.url, 2, home);
        const d = await jobWait(done.url, 2, home);
        if (s.code !== 3 || d.code !== 0) throw new Error(`job wait exited ${s.code} (stalled) and ${d.code} (done)`);
        stalledRuns.push(s.ms);
        doneRuns.push(d.ms);
      }
      out.jobStall = { stalled: median(stalledRuns), done: median(doneRuns) };
    } finally {
      stalled.close();
      done.close();
      cleanup(home);
    }
  }
  out.load = [load0, loadavg()[0]];
  return out;
}

export async function benchGuards({ record, notes, rows }) {
  const m = await measureGuards({ rounds: Number(process.env.STOR_BENCH_GUARDS_ROUNDS ?? 5) });
  const s = 'guards';
  const k = m.keyChecks;
  record(
    s,
    "a bystander's `core.ping` while 20 keyed calls are hashed at once (median of 9 per round)",
    k.ping,
    'ms',
    'one keyed `POST /api/current` alone (one scrypt check)',
    k.alone,
    k.ping / k.alone,
    '≤ 0.25×',
    k.ping / k.alone <= 0.25,
  );
  for (const [name, w] of [
    ['`pool.dataset.query`', m.walks.list],
    ['recursive `pool.dataset.delete`', m.walks.remove],
  ]) {
    record(
      s,
      `the slowest bystander \`core.ping\` during a ${name} over 20,000 files (${w.pings} pings)`,
      w.slowest,
      'ms',
      'the walk itself',
      w.length,
      w.slowest / w.length,
      '≤ 0.1×',
      w.slowest / w.length <= 0.1,
    );
  }
  const r = m.redos;
  record(
    s,
    `the slowest catastrophic \`~\` pattern (\`${r.worst}\`) in \`user.query\` over a 20,000-character name`,
    r.worstMs,
    'ms',
    'the same query with `A+$` (a plain pattern that scans the name)',
    r.harmless,
    r.worstMs / r.harmless,
    '≤ 2×',
    r.worstMs / r.harmless <= 2,
  );
  rows.push({
    section: s,
    what: `peak memory of \`stor serve\` while one client sends 60 kB-answer calls and reads none, until cut off (${m.unreadSent} calls)`,
    value: m.unreadPeak,
    unit: 'MiB',
    reference: 'the same calls from a client that reads',
    refValue: m.readPeak,
    ratio: m.unreadPeak / m.readPeak,
    target: '≤ 2×',
    met: m.unreadPeak / m.readPeak <= 2,
  });
  console.log(`guards: peak memory unread ${m.unreadPeak.toFixed(1)} MiB, read ${m.readPeak.toFixed(1)} MiB`);
  const j = m.jobStall;
  record(
    s,
    '`stor job wait` on a job that never moves, `--timeout 2` (ends JOB_STALLED)',
    j.stalled,
    'ms',
    '2 s plus `stor job wait` on a finished job',
    2000 + j.done,
    j.stalled / (2000 + j.done),
    '≤ 1.5×',
    j.stalled / (2000 + j.done) <= 1.5,
  );
  notes.push(
    `guards: what the security tests held to a clock until 2026-11-26 (ping < 100 ms under key checks, < 500 ms during a walk, a hostile \`~\` answered < 1 s, ` +
      `the server's heap < 64 MiB under unread output, a stalled job wait < 15 s); the tests now count turns, bytes and looks instead. ` +
      `Load ${m.load[0].toFixed(1)} → ${m.load[1].toFixed(1)}; pings during the walks: ${m.walks.list.pings} and ${m.walks.remove.pings}.`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await measureGuards({ rounds: Number(process.argv[2] ?? 5) }), null, 1));
}
