// The datasets section of `npm run bench`: what one more dataset costs as their
// number grows. Embedded (in-process, through the real dispatcher), so the figures are the
// appliance's work, not the network's. Each row is the cost at 900–1000 datasets against the same
// cost at 50–150 in the same run: flat means a ratio near 1.
// `node bench/datasets.mjs [root]` prints the figures for the build under `root` (default: this tree).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { NODE, ROOT, cleanup, median, startServe, tempDir, timeOnce } from './lib.mjs';

const TOTAL = 1000;
const PAGE = 500;
const SELECT = ['id', 'name', 'pool', 'mountpoint', 'used', 'available', 'compression', 'user_properties'];

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

/** The appliance of `stateDir` under the build at `root`, with a session logged in as its admin. */
async function openLoggedIn(root, stateDir) {
  const { Appliance } = await import(pathToFileURL(join(root, 'dist/core/appliance/appliance.js')).href);
  const { Dispatcher } = await import(pathToFileURL(join(root, 'dist/core/rpc/dispatcher.js')).href);
  const appliance = Appliance.open({ stateDir });
  const dispatcher = new Dispatcher(appliance);
  const session = appliance.createSession({ transport: 'embedded', address: 'local', secure: true });
  await dispatcher.call(session, 'auth.login_with_api_key', [readFileSync(join(stateDir, 'admin.key'), 'utf8').trim()]);
  return { appliance, dispatcher, session };
}

/** Creates TOTAL datasets (20 groups) one by one, timing each, and lists them as `stor dataset list` does at two sizes. */
export async function measureDatasets(root = ROOT) {
  const stateDir = tempDir('stor-bench-datasets-');
  const { appliance, dispatcher, session } = await openLoggedIn(root, stateDir);
  try {
    const list = async () => {
      const t0 = process.hrtime.bigint();
      for (let offset = 0; ; offset += PAGE) {
        const page = await dispatcher.call(session, 'pool.dataset.query', [
          [],
          { order_by: ['id'], select: SELECT, offset, limit: PAGE },
        ]);
        if (page.length < PAGE) break;
      }
      return ms(t0);
    };
    const create = [];
    const listAt = {};
    for (let i = 0; i < TOTAL; i++) {
      const t0 = process.hrtime.bigint();
      await dispatcher.call(session, 'pool.dataset.create', [
        { name: `tank/g${i % 20}/d${i}`, create_ancestors: true },
      ]);
      create.push(ms(t0));
      if (i === 99 || i === TOTAL - 1) {
        const runs = [];
        for (let r = 0; r < 5; r++) runs.push(await list());
        listAt[i + 1] = median(runs);
      }
    }
    return {
      createEarly: median(create.slice(50, 150)),
      createLate: median(create.slice(TOTAL - 100)),
      listSmall: listAt[100] / 100,
      listLarge: listAt[TOTAL] / TOTAL,
    };
  } finally {
    appliance.close();
    cleanup(stateDir);
  }
}

/**
 * A state holding `count` datasets (tank/g0..g19/dN): the 20 groups made by pool.dataset.create,
 * the rest written to the store directly with their directories, as a create would leave them
 * (ten thousand creates through the dispatcher would take minutes of the run).
 */
async function seedDatasets(root, count) {
  const { insertDataset } = await import(pathToFileURL(join(root, 'dist/core/store/datasets.js')).href);
  const stateDir = tempDir('stor-bench-list-');
  const { appliance, dispatcher, session } = await openLoggedIn(root, stateDir);
  try {
    for (let g = 0; g < 20; g++) await dispatcher.call(session, 'pool.dataset.create', [{ name: `tank/g${g}` }]);
    const { store } = appliance;
    store.write(() => {
      for (let i = 0; i < count - 20; i++) {
        const id = `tank/g${i % 20}/d${i}`;
        insertDataset(store.db, { id, pool: 'tank', properties: {}, user_properties: {}, created_at: Date.now() });
        mkdirSync(join(store.mntDir, id), { mode: 0o755 });
      }
    });
  } finally {
    appliance.close();
  }
  return stateDir;
}

/**
 * `stor dataset list --json` against `stor serve` at each size, against one Python
 * `pool.dataset.query` asking the same rows in one call (bench/rpc-call.py: one process, one
 * WebSocket, one login, one call), measured in turn on the same server. `runs` per size; medians.
 * python3 needs the `websocket` module (e.g. PYTHONPATH=../shared/vendor/websocket-client).
 */
export async function measureListServe(root = ROOT, { sizes = [1000, 10000], runs = 3 } = {}) {
  const out = {};
  for (const size of sizes) {
    const stateDir = await seedDatasets(root, size);
    const server = await startServe(stateDir);
    const home = tempDir('stor-bench-home-');
    try {
      const env = {
        ...process.env,
        STOR_HOME: home,
        STOR_URL: server.base,
        STOR_API_KEY: server.key,
        STOR_SESSION: 'off',
      };
      const params = JSON.stringify([[], { order_by: ['id'], select: SELECT }]);
      // What a script (or `midclt call pool.dataset.query`) asks: whole entries, children nested.
      const wholeParams = JSON.stringify([[], {}]);
      const rpc = server.rpc_url;
      const stor = [];
      const python = [];
      const pythonWhole = [];
      const load = [];
      const rows = JSON.parse(
        spawnSync(NODE, [join(root, 'bin/stor.js'), 'dataset', 'list', '--json'], {
          env,
          encoding: 'utf8',
          maxBuffer: 1 << 30,
        }).stdout,
      ).length;
      for (let r = 0; r < runs; r++) {
        load.push(loadavg()[0]);
        // Each run from its own loopback address: the appliance allows 20 logins a minute per address.
        const source = `127.0.0.${10 + r}`;
        python.push(
          timeOnce('python3', [join(ROOT, 'bench/rpc-call.py'), rpc, server.key, source, 'pool.dataset.query', params]),
        );
        stor.push(timeOnce(NODE, [join(root, 'bin/stor.js'), 'dataset', 'list', '--json'], { env }));
        pythonWhole.push(
          timeOnce('python3', [
            join(ROOT, 'bench/rpc-call.py'),
            rpc,
            server.key,
            `127.0.0.${40 + r}`,
            'pool.dataset.query',
            wholeParams,
          ]),
        );
      }
      out[size] = {
        rows,
        stor: median(stor),
        python: median(python),
        pythonWhole: median(pythonWhole),
        load: median(load),
      };
    } finally {
      await server.stop();
      cleanup(stateDir);
      cleanup(home);
    }
  }
  return out;
}

/** A python3 with the `websocket` module (bench/rpc-call.py's), or undefined. */
function pythonWithWebsocket() {
  return spawnSync('python3', ['-c', 'import websocket'], { stdio: 'ignore' }).status === 0 ? 'python3' : undefined;
}

export async function benchDatasets({ record, notes = [] }) {
  if (pythonWithWebsocket()) {
    const l = await measureListServe();
    for (const size of [1000, 10000]) {
      const whole = l[size].stor / l[size].pythonWhole;
      record(
        'datasets',
        `\`stor dataset list --json\`, ${size.toLocaleString('en')} datasets, against \`stor serve\` (load ${l[size].load.toFixed(1)})`,
        l[size].stor,
        'ms',
        'one Python `pool.dataset.query` of whole entries, as `midclt call pool.dataset.query` asks (bench/rpc-call.py)',
        l[size].pythonWhole,
        whole,
        '≤ 0.5×',
        whole <= 0.5,
      );
      // The stricter reference: Python asking exactly the list's rows and fields in one call, so
      // the ratio is stor's own cost over the emulator's (paging, its start, rendering).
      const same = l[size].stor / l[size].python;
      record(
        'datasets',
        `\`stor dataset list --json\`, ${size.toLocaleString('en')} datasets, against \`stor serve\`, beside the same query in Python (load ${l[size].load.toFixed(1)})`,
        l[size].stor,
        'ms',
        "one Python `pool.dataset.query` of the list's own select and order, in one call (bench/rpc-call.py)",
        l[size].python,
        same,
        '≤ 1.2× (reported)',
        same <= 1.2,
      );
    }
    const growth = l[10000].stor / l[1000].stor;
    const pyGrowth = l[10000].python / l[1000].python;
    record(
      'datasets',
      '`stor dataset list --json`: 10,000 datasets against 1,000',
      l[10000].stor,
      'ms',
      `the same at 1,000 (Python's call grows ×${pyGrowth.toFixed(1)})`,
      l[1000].stor,
      growth,
      '≤ 12× (linear)',
      growth <= 12,
    );
  } else
    notes.push(
      'datasets: no python3 with the `websocket` module (PYTHONPATH): the list rows against `stor serve` were not measured.',
    );

  const m = await measureDatasets();
  const createRatio = m.createLate / m.createEarly;
  record(
    'datasets',
    `\`pool.dataset.create\` at ${TOTAL - 100}–${TOTAL} datasets (embedded)`,
    m.createLate,
    'ms',
    'the same at 50–150 datasets',
    m.createEarly,
    createRatio,
    '≤ 1.5× (flat)',
    createRatio <= 1.5,
  );
  const listRatio = m.listLarge / m.listSmall;
  record(
    'datasets',
    `\`stor dataset list\`'s queries per dataset, ${TOTAL} datasets (embedded)`,
    m.listLarge,
    'ms',
    'the same per dataset at 100',
    m.listSmall,
    listRatio,
    '≤ 1.5× (flat)',
    listRatio <= 1.5,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  // `node bench/datasets.mjs [root] --list [sizes,...]`: only the rows against `stor serve`.
  const args = process.argv.slice(2);
  const at = args.indexOf('--list');
  const root = args.find((a, i) => !a.startsWith('--') && i !== at + 1) ?? ROOT;
  if (at >= 0) {
    const sizes = (args[at + 1] ?? '1000,10000').split(',').map(Number);
    console.log(JSON.stringify(await measureListServe(root, { sizes })));
  } else console.log(JSON.stringify(await measureDatasets(root)));
}
