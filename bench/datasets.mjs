// The datasets section of `npm run bench`: what one more dataset costs as their
// number grows. Embedded (in-process, through the real dispatcher), so the figures are the
// appliance's work, not the network's. Each row is the cost at 900–1000 datasets against the same
// cost at 50–150 in the same run: flat means a ratio near 1.
// `node bench/datasets.mjs [root]` prints the figures for the build under `root` (default: this tree).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, cleanup, median, tempDir } from './lib.mjs';

const TOTAL = 1000;
const PAGE = 500;
const SELECT = ['id', 'name', 'pool', 'mountpoint', 'used', 'available', 'compression', 'user_properties'];

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

/** Creates TOTAL datasets (20 groups) one by one, timing each, and lists them as `stor dataset list` does at two sizes. */
export async function measureDatasets(root = ROOT) {
  const { Appliance } = await import(pathToFileURL(join(root, 'dist/core/appliance/appliance.js')).href);
  const { Dispatcher } = await import(pathToFileURL(join(root, 'dist/core/rpc/dispatcher.js')).href);
  const stateDir = tempDir('stor-bench-datasets-');
  const appliance = Appliance.open({ stateDir });
  try {
    const dispatcher = new Dispatcher(appliance);
    const session = appliance.createSession({ transport: 'embedded', address: 'local', secure: true });
    await dispatcher.call(session, 'auth.login_with_api_key', [
      readFileSync(join(stateDir, 'admin.key'), 'utf8').trim(),
    ]);
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

export async function benchDatasets({ record }) {
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
  console.log(JSON.stringify(await measureDatasets(process.argv[2] ?? ROOT)));
}
