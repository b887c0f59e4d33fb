// The state section of `npm run bench`: `stor plan -f FILE` over a target holding 500
// objects, against `stor privilege list` on the same target, in wall time; and the calls the plan
// makes, counted from `--verbose`'s trace (one query per kind, however many objects).
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { NODE, STOR, cleanup, median, rpcClient, startServe, tempDir } from './lib.mjs';

const GROUPS = 150;
const USERS = 150;
const PRIVILEGES = 100;
const DATASETS = 100;
const OBJECTS = GROUPS + USERS + PRIVILEGES + DATASETS;
// Each run below logs in once (no session agent: STOR_SESSION=off, as in the other sections), and
// `stor serve` allows 20 logins a minute per address (MW/main.py:873-903): export, the traced
// plan and (1 warm-up + 7 rounds) × 2 commands make 18.
const WARMUP = 1;
const ROUNDS = 7;

/** Makes the objects through one WebSocket, as another client would have. */
async function populate(server) {
  const c = await rpcClient(server.rpc_url);
  try {
    await c.result('auth.login_with_api_key', [server.key]);
    const gids = [];
    for (let i = 0; i < GROUPS; i++) gids.push(await c.result('group.create', [{ name: `bgroup${i}` }]));
    for (let i = 0; i < USERS; i++) {
      await c.result('user.create', [
        {
          username: `buser${i}`,
          full_name: `Bench user ${i}`,
          group_create: false,
          group: gids[i % GROUPS],
          password_disabled: true,
          smb: false,
          home: '/var/empty',
        },
      ]);
    }
    for (let i = 0; i < PRIVILEGES; i++) {
      await c.result('privilege.create', [
        {
          name: `bpriv${i}`,
          local_groups: [(await c.result('group.get_instance', [gids[i]])).gid],
          ds_groups: [],
          roles: ['READONLY_ADMIN'],
          web_shell: false,
        },
      ]);
    }
    for (let i = 0; i < DATASETS; i++)
      await c.result('pool.dataset.create', [{ name: `tank/b${i % 10}/d${i}`, create_ancestors: true }]);
  } finally {
    c.close();
  }
}

export async function benchState({ record, notes }) {
  const state = tempDir('stor-bench-state-');
  const server = await startServe(state);
  const client = tempDir('stor-bench-state-client-');
  try {
    await populate(server);
    const env = {
      ...process.env,
      STOR_SESSION: 'off',
      STOR_HOME: join(client, 'home'),
      STOR_CONFIG_DIR: join(client, 'config'),
      STOR_URL: server.base,
      STOR_API_KEY: server.key,
    };
    const file = join(client, 'state.yaml');
    writeFileSync(file, execFileSync(NODE, [STOR, 'export'], { env, encoding: 'utf8' }));
    const traced = spawnSync(NODE, [STOR, '--verbose', 'plan', '-f', file], { env, encoding: 'utf8' });
    if (traced.status !== 0)
      throw new Error(
        `state: the plan of an export is not empty (exit ${traced.status}): ${traced.stdout}${traced.stderr}`,
      );
    const calls = [...traced.stderr.matchAll(/^stor: trace: call ([a-z_.]+):/gm)].map((m) => m[1]);
    const cases = { plan: ['plan', '-f', file, '--json'], list: ['privilege', 'list', '--json'] };
    const times = { plan: [], list: [] };
    const load0 = loadavg()[0];
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      for (const [name, args] of Object.entries(cases)) {
        const t0 = process.hrtime.bigint();
        const run = spawnSync(NODE, [STOR, ...args], { env, encoding: 'utf8' });
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (run.status !== 0) throw new Error(`state: stor ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
        if (round >= WARMUP) times[name].push(ms);
      }
    }
    const load1 = loadavg()[0];
    const plan = median(times.plan);
    const list = median(times.list);
    record(
      'desired state',
      `\`stor plan -f FILE\` of ${OBJECTS} objects (an export of the target: no change), \`stor serve\` on loopback`,
      plan,
      'ms',
      '`stor privilege list` on the same target',
      list,
      plan / list,
      '≤ 3×',
      plan / list <= 3,
    );
    const perKind = {};
    for (const m of calls) perKind[m] = (perKind[m] ?? 0) + 1;
    notes.push(
      `desired state: ${ROUNDS} rounds after ${WARMUP} warm-up, plan and list in turn (medians); load ${load0.toFixed(1)} → ${load1.toFixed(1)}. ` +
        `The target holds ${GROUPS} groups, ${USERS} users, ${PRIVILEGES} privileges and ${DATASETS} datasets besides its built-ins; the plan made ` +
        `${calls.length} calls in all (${Object.entries(perKind)
          .map(([m, n]) => `${m} ×${n}`)
          .join(', ')}): one query per kind, not one per object.`,
    );
    return { calls };
  } finally {
    await server.stop();
    cleanup(state);
    cleanup(client);
  }
}
