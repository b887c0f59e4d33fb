// The shares section of `npm run bench`: `stor share list --json` over 1,000 shares (500 NFS, 500
// SMB) against `stor dataset list --json` over the datasets of the same target, per row listed, on
// the embedded appliance and against `stor serve` on loopback. Flat means a ratio near 1: a share
// row should cost what a dataset row costs.
// `node bench/shares.mjs` prints the figures for this tree.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { NODE, ROOT, STOR, cleanup, median, startServe, tempDir } from './lib.mjs';

const NFS = 500;
const SMB = 500;
const SHARES = NFS + SMB;
const GROUPS = 20;
// Each run below logs in once on `stor serve` (STOR_SESSION=off), which allows 20 logins a minute
// per address (MW/main.py:873-903): (1 warm-up + 7 rounds) × 2 commands make 16.
const WARMUP = 1;
const ROUNDS = 7;

/**
 * A state with one dataset per share (tank/gG/dI: 20 groups) and a share on each, made in-process
 * through the real dispatcher: NFS on the first 500, SMB on the rest. Answers the datasets' count.
 */
async function populate(stateDir) {
  const { Appliance } = await import(pathToFileURL(join(ROOT, 'dist/core/appliance/appliance.js')).href);
  const { Dispatcher } = await import(pathToFileURL(join(ROOT, 'dist/core/rpc/dispatcher.js')).href);
  const appliance = Appliance.open({ stateDir });
  try {
    const dispatcher = new Dispatcher(appliance);
    const session = appliance.createSession({ transport: 'embedded', address: 'local', secure: true });
    const call = (method, ...params) => dispatcher.call(session, method, params);
    await call('auth.login_with_api_key', readFileSync(join(stateDir, 'admin.key'), 'utf8').trim());
    for (let i = 0; i < SHARES; i++) {
      const name = `tank/g${i % GROUPS}/d${i}`;
      await call('pool.dataset.create', { name, create_ancestors: true });
      if (i < NFS)
        await call('sharing.nfs.create', { path: `/mnt/${name}`, networks: [`10.${i >> 8}.${i & 255}.0/24`] });
      else await call('sharing.smb.create', { name: `share${i}`, path: `/mnt/${name}` });
    }
    return await call('pool.dataset.query', [], { count: true });
  } finally {
    appliance.close();
  }
}

/** The medians of the two commands in turn against `env`'s target; each must list `rows` rows. */
function measure(env, rows) {
  const cases = { share: ['share', 'list', '--json'], dataset: ['dataset', 'list', '--json'] };
  const times = { share: [], dataset: [] };
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    for (const [name, args] of Object.entries(cases)) {
      const t0 = process.hrtime.bigint();
      const run = spawnSync(NODE, [STOR, ...args], { env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (run.status !== 0) throw new Error(`shares: stor ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
      const listed = JSON.parse(run.stdout).length;
      if (listed !== rows[name]) throw new Error(`shares: stor ${args.join(' ')} listed ${listed}, not ${rows[name]}`);
      if (round >= WARMUP) times[name].push(ms);
    }
  }
  return { share: median(times.share), dataset: median(times.dataset) };
}

export async function measureShares() {
  const state = tempDir('stor-bench-shares-');
  const client = tempDir('stor-bench-shares-client-');
  const base = { ...process.env, STOR_SESSION: 'off', STOR_CONFIG_DIR: join(client, 'config') };
  try {
    const datasets = await populate(state);
    const rows = { share: SHARES, dataset: datasets };
    const load0 = loadavg()[0];
    const embedded = measure({ ...base, STOR_HOME: state }, rows);
    const server = await startServe(state);
    let served;
    try {
      served = measure(
        { ...base, STOR_HOME: join(client, 'home'), STOR_URL: server.base, STOR_API_KEY: server.key },
        rows,
      );
    } finally {
      await server.stop();
    }
    return { datasets, embedded, served, load: [load0, loadavg()[0]] };
  } finally {
    cleanup(state);
    cleanup(client);
  }
}

export async function benchShares({ record, notes }) {
  const m = await measureShares();
  for (const [where, label] of [
    ['embedded', 'embedded'],
    ['served', '`stor serve` on loopback'],
  ]) {
    const perShare = m[where].share / SHARES;
    const perDataset = m[where].dataset / m.datasets;
    record(
      'shares',
      `\`stor share list --json\` per share, ${SHARES} shares (${NFS} NFS, ${SMB} SMB), ${label}`,
      perShare,
      'ms',
      `\`stor dataset list --json\` per dataset, ${m.datasets} datasets, same target`,
      perDataset,
      perShare / perDataset,
      '≤ 1.5×',
      perShare / perDataset <= 1.5,
    );
  }
  notes.push(
    `shares: ${ROUNDS} rounds after ${WARMUP} warm-up, share list and dataset list in turn (medians, whole commands: ` +
      `embedded ${m.embedded.share.toFixed(0)} ms and ${m.embedded.dataset.toFixed(0)} ms, served ${m.served.share.toFixed(0)} ms and ${m.served.dataset.toFixed(0)} ms); ` +
      `load ${m.load[0].toFixed(1)} → ${m.load[1].toFixed(1)}; NODE_EXTRA_CA_CERTS ${process.env.NODE_EXTRA_CA_CERTS ?? 'unset'}. ` +
      `Each share has a dataset of its own (tank/gG/dI); the datasets listed are those and their parents.`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await measureShares()));
}
