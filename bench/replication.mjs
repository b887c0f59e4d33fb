// The replication section of `npm run bench`: a LOCAL push replication of a dataset of many files
// and snapshots, its first (full) run and an incremental run of one new snapshot. Embedded
// (in-process, through the real dispatcher: replication.create, replication.run), as the datasets
// section is, so the figures are the appliance's work. The references copy the same trees with
// `cp -a` on the same disk, in the same run: every snapshot the emulator holds is a whole copy of
// its dataset's files (src/core/appliance/datasets/snapshot-copies.ts), so a full receive copies
// each source snapshot's copy, and an incremental receive of one snapshot copies one tree.
// `node bench/replication.mjs [root] [--quick] [--files N] [--snapshots N]` prints the figures for
// the build under `root` (default: this tree); `--receives N`, the cost of one receive in a run of N
// snapshots (bench/HISTORY.md).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, cleanup, median, tempDir, timeOnce } from './lib.mjs';

const SCHEMA = 'auto-%Y-%m-%d_%H-%M';
const HOURLY = { minute: '0', hour: '*', dom: '*', month: '*', dow: '*' };
/** STOR_BENCH_REPLICATION_QUICK=1 (or --quick): 1,000 files and 20 snapshots instead of 10,000 and 100. */
export const SIZES = { full: { files: 10000, snapshots: 100 }, quick: { files: 1000, snapshots: 20 } };

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
/** Every file of a tree, counted (the references must copy what the run received). */
const countFiles = (dir) => readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).length;

/** An appliance of the build under `root` on a new state, and `call` through its dispatcher, logged in as the administrator. */
async function openEmbedded(root, prefix) {
  const { Appliance } = await import(pathToFileURL(join(root, 'dist/core/appliance/appliance.js')).href);
  const { Dispatcher } = await import(pathToFileURL(join(root, 'dist/core/rpc/dispatcher.js')).href);
  const stateDir = tempDir(prefix);
  const appliance = Appliance.open({ stateDir });
  const dispatcher = new Dispatcher(appliance);
  const session = appliance.createSession({ transport: 'embedded', address: 'local', secure: true });
  const call = (method, ...params) => dispatcher.call(session, method, params);
  try {
    await call('auth.login_with_api_key', readFileSync(join(stateDir, 'admin.key'), 'utf8').trim());
  } catch (err) {
    appliance.close();
    cleanup(stateDir);
    throw err;
  }
  return { appliance, stateDir, call };
}

/**
 * Makes tank/src with `files` files of 1 KiB in directories of about 100 (at most 100 of them), takes `snapshots` snapshots with
 * 1% of the files rewritten between two, then times replication.run's full run into tank/dst, then
 * one new snapshot's incremental run; `cp -a` of the source's snapshot copies (full) and of one
 * snapshot's copy (incremental) is timed right before each.
 */
export async function measureReplication(root = ROOT, { files, snapshots } = SIZES.full) {
  const { appliance, stateDir, call } = await openEmbedded(root, 'stor-bench-replication-');
  const scratch = tempDir('stor-bench-replication-ref-');
  try {
    await call('core.set_options', { legacy_jobs: false });
    await call('pool.dataset.create', { name: 'tank/src' });
    await call('pool.snapshottask.create', { dataset: 'tank/src', naming_schema: SCHEMA, schedule: HOURLY });
    const live = join(stateDir, 'mnt/tank/src');
    const body = (i, gen) => Buffer.alloc(1024, `${i}:${gen};`);
    // About 100 files a directory, at most 100 directories.
    const dirs = Math.max(1, Math.min(100, Math.floor(files / 100)));
    const path = (i) => join(live, `d${i % dirs}`, `f${i}`);
    for (let d = 0; d < dirs; d++) mkdirSync(join(live, `d${d}`));
    for (let i = 0; i < files; i++) writeFileSync(path(i), body(i, 0));
    const start = Date.UTC(2024, 0, 1, 8);
    let hour = 0;
    const snap = async () => {
      // 1% of the files changed since the last snapshot, a different 1% each time.
      if (hour > 0) for (let i = hour % 100; i < files; i += 100) writeFileSync(path(i), body(i, hour));
      const at = start + hour++ * 3600_000;
      appliance.now = () => at;
      await call('pool.snapshottask.run', 1);
    };
    const setup0 = process.hrtime.bigint();
    for (let s = 0; s < snapshots; s++) await snap();
    const setupMs = ms(setup0);
    const id = (
      await call('replication.create', {
        name: 'bench',
        direction: 'PUSH',
        transport: 'LOCAL',
        source_datasets: ['tank/src'],
        target_dataset: 'tank/dst',
        recursive: false,
        auto: false,
        retention_policy: 'NONE',
        periodic_snapshot_tasks: [1],
      })
    ).id;
    const snapshotsDir = join(stateDir, 'snapshots');
    const copies = readdirSync(snapshotsDir).filter((n) => !n.startsWith('.'));
    const refFull = timeOnce('cp', ['-a', snapshotsDir, join(scratch, 'full')]);
    const refFiles = countFiles(join(scratch, 'full'));
    cleanup(join(scratch, 'full'));
    const runReplication = async () => {
      const t0 = process.hrtime.bigint();
      await call('replication.run', id, true);
      return ms(t0);
    };
    const full = await runReplication();
    const query = (dataset) => call('pool.snapshot.query', [['dataset', '=', dataset]], { select: ['name'] });
    const received = (await query('tank/dst')).length;
    if (received !== snapshots) throw new Error(`the full run left ${received} of ${snapshots} snapshots`);
    await snap();
    const newest = readdirSync(snapshotsDir).find((n) => !n.startsWith('.') && !copies.includes(n));
    const refIncremental = timeOnce('cp', ['-a', join(snapshotsDir, newest), join(scratch, 'one')]);
    const incremental = await runReplication();
    if ((await query('tank/dst')).length !== snapshots + 1) throw new Error('the incremental run sent nothing');
    return { files, snapshots, setupMs, refFiles, full, refFull, incremental, refIncremental, load: loadavg()[0] };
  } finally {
    appliance.close();
    cleanup(stateDir);
    cleanup(scratch);
  }
}

/**
 * What one receive costs in a run of `snapshots` snapshots of a dataset of one file, sent by one
 * full run of the engine (runLocalReplication, as replication.run calls it), each send timed from
 * its progress call to the next: the run's time and the median send, in wall and in CPU time (ms).
 * Run at 100 and at 1,000 snapshots, the median send stays the same when a receive's cost does not
 * grow with the snapshots there are.
 */
export async function measureReceives(root = ROOT, snapshots = 1000) {
  const { runLocalReplication } = await import(
    pathToFileURL(join(root, 'dist/core/appliance/replication/run.js')).href
  );
  const { appliance, stateDir, call } = await openEmbedded(root, 'stor-bench-receives-');
  try {
    await call('pool.dataset.create', { name: 'tank/src' });
    writeFileSync(join(stateDir, 'mnt/tank/src/a.txt'), 'a');
    const start = Date.UTC(2024, 0, 1, 8);
    for (let s = 0; s < snapshots; s++) {
      appliance.now = () => start + s * 3600_000;
      await call('pool.snapshot.create', { dataset: 'tank/src', naming_schema: SCHEMA });
    }
    // Wall and CPU time (user + system) at each send: the CPU time is what one receive computes,
    // less swayed by other processes on a loaded machine.
    const marks = [];
    const mark = () => {
      const cpu = process.cpuUsage();
      marks.push({ wall: process.hrtime.bigint(), cpu: cpu.user + cpu.system });
    };
    const spec = {
      sourceDatasets: ['tank/src'],
      targetDataset: 'tank/dst',
      recursive: false,
      exclude: [],
      namingSchemas: [SCHEMA],
      nameRegex: null,
      retentionPolicy: 'NONE',
      lifetime: null,
      allowFromScratch: false,
      readonly: 'IGNORE',
    };
    const t0 = process.hrtime.bigint();
    const { received } = await runLocalReplication(appliance, spec, mark);
    mark();
    if (received.length !== snapshots) throw new Error(`the run received ${received.length} of ${snapshots}`);
    const wall = marks.slice(1).map((m, i) => Number(m.wall - marks[i].wall) / 1e6);
    const cpu = marks.slice(1).map((m, i) => (m.cpu - marks[i].cpu) / 1e3);
    return {
      snapshots,
      runMs: ms(t0),
      perSend: median(wall),
      perSendCpu: median(cpu),
      load: loadavg()[0],
    };
  } finally {
    appliance.close();
    cleanup(stateDir);
  }
}

export async function benchReplication({ record, notes }) {
  const quick = process.env.STOR_BENCH_REPLICATION_QUICK === '1';
  const m = await measureReplication(ROOT, quick ? SIZES.quick : SIZES.full);
  const size = `${m.files.toLocaleString('en')} files, ${m.snapshots} snapshots`;
  const fullRatio = m.full / m.refFull;
  record(
    'replication',
    `first (full) LOCAL \`replication.run\` of a dataset of ${size} (embedded)`,
    m.full,
    'ms',
    `\`cp -a\` of the source's ${m.snapshots} snapshot copies (${m.refFiles.toLocaleString('en')} files)`,
    m.refFull,
    fullRatio,
    '≤ 4×',
    fullRatio <= 4,
  );
  const incRatio = m.incremental / m.refIncremental;
  record(
    'replication',
    `incremental run (one new snapshot) of the same task, ${m.snapshots} snapshots on both sides (embedded)`,
    m.incremental,
    'ms',
    `\`cp -a\` of that one snapshot's copy (${m.files.toLocaleString('en')} files)`,
    m.refIncremental,
    incRatio,
    '≤ 4×',
    incRatio <= 4,
  );
  // The incremental run against the first: it sends one snapshot of snapshots + 1, so a ratio near
  // 1 / snapshots says a run costs what it sends; a run re-reading what both sides already hold
  // would show here as the snapshots grow.
  const againstFull = m.incremental / m.full;
  record(
    'replication',
    `incremental run (one new snapshot, ${m.snapshots} on both sides) against the first, full run of the same task (embedded)`,
    m.incremental,
    'ms',
    `the first, full run (${m.snapshots} snapshots)`,
    m.full,
    againstFull,
    `≤ ${(4 / m.snapshots).toFixed(2)}× (4 / snapshots)`,
    againstFull <= 4 / m.snapshots,
  );
  // The file system under the state: whether cp and the emulator can clone files (reflinks) or copy them.
  const fstype = spawnSync('df', ['--output=fstype', process.env.STOR_BENCH_TMP ?? tmpdir()], { encoding: 'utf8' })
    .stdout.split('\n')[1]
    ?.trim();
  notes.push(
    `replication: one run of each (${size}, 1 KiB each, 1% rewritten between two snapshots), on ${fstype ?? 'an unknown file system'}, ` +
      `load ${m.load.toFixed(1)} at the end, NODE_EXTRA_CA_CERTS ${process.env.NODE_EXTRA_CA_CERTS ?? 'unset'}; making the ${m.snapshots} snapshots took ${(m.setupMs / 1000).toFixed(1)} s (not measured). ` +
      "A receive copies the snapshot's copy, then makes the target's files the snapshot's (a second pass over the tree), " +
      'and commits its rows (one transaction per snapshot), so its floor is above one `cp -a`.',
  );
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const flag = (name) => {
    const i = args.indexOf(name);
    return i < 0 ? undefined : Number(args.splice(i, 2)[1]);
  };
  const receives = flag('--receives');
  const quick = args.includes('--quick');
  const size = { ...(quick ? SIZES.quick : SIZES.full) };
  size.files = flag('--files') ?? size.files;
  size.snapshots = flag('--snapshots') ?? size.snapshots;
  const root = args.find((a) => a !== '--quick') ?? ROOT;
  console.log(JSON.stringify(receives ? await measureReceives(root, receives) : await measureReplication(root, size)));
}
