// The slow-reader section of `npm run bench`: `stor download BIG - | reader` where the reader takes
// 10 MiB/s, through the session agent and in its own process (STOR_SESSION=off). The figure is the
// peak resident memory (GNU time's %M) of the `stor` process the shell started: through the agent
// that is the first stage, which must hold no more than a process of its own would (it passes the
// agent's bytes on only as fast as its stdout drains, src/first-stage.ts). The agent's memory is
// its own, long-lived and shared by every command, and is not in the figure.
// STOR_BENCH_SLOW_READER_BYTES sets the file's size (default 1 GiB: about 100 s a run).
import { spawnSync } from 'node:child_process';
import { closeSync, ftruncateSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE, STOR, cleanup, tempDir } from './lib.mjs';

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;
const BYTES = Number(process.env.STOR_BENCH_SLOW_READER_BYTES ?? GIB);

/** A reader of 10 MiB/s: takes 1 MiB, then waits out the rest of its 100 ms. */
const READER = `
const MIB = 1024 * 1024; let got = 0; const t0 = Date.now();
process.stdin.on('readable', function take() {
  let chunk;
  while ((chunk = process.stdin.read()) !== null) {
    got += chunk.length;
    const due = t0 + (got / (10 * MIB)) * 1000;
    if (due > Date.now()) { process.stdin.removeListener('readable', take); setTimeout(() => { process.stdin.on('readable', take); take(); }, due - Date.now()); return; }
  }
});
process.stdin.on('end', () => process.stdout.write(String(got)));
`;

/** Peak MiB of `stor download /mnt/tank/big.img -` piped to the reader, with `env`. */
function peakOf(env, work) {
  const peakFile = join(work, 'peak');
  const r = spawnSync(
    'sh',
    [
      '-c',
      `/usr/bin/time -f %M -o "$0" "$1" "$2" download /mnt/tank/big.img - | "$1" -e "$3"`,
      peakFile,
      NODE,
      STOR,
      READER,
    ],
    { env, encoding: 'utf8' },
  );
  if (r.status !== 0 || Number(r.stdout) !== BYTES)
    throw new Error(`slow reader: the download gave ${r.stdout} bytes, exit ${r.status}: ${r.stderr}`);
  return Number(readFileSync(peakFile, 'utf8').trim().split('\n').at(-1)) / 1024;
}

export async function benchSlowReader({ record, notes }) {
  const work = tempDir('stor-bench-slow-');
  const runtime = tempDir('stor-bench-slow-run-');
  const base = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    STOR_HOME: join(work, 'home'),
    STOR_CONFIG_DIR: join(work, 'cfg'),
    XDG_RUNTIME_DIR: runtime,
    STOR_SESSION_IDLE: '600',
  };
  const off = { ...base, STOR_SESSION: 'off' };
  const on = { ...base, STOR_SESSION: 'on' };
  try {
    spawnSync(NODE, [STOR, 'whoami'], { env: off, stdio: 'ignore' });
    const fd = openSync(join(work, 'home/mnt/tank/big.img'), 'w');
    ftruncateSync(fd, BYTES);
    closeSync(fd);
    // The agent: started by one command, serving the next.
    spawnSync(NODE, [STOR, 'whoami'], { env: on, stdio: 'ignore' });
    for (
      const deadline = Date.now() + 15000;
      !readdirSync(join(runtime, 'stor'), { withFileTypes: true }).some((e) => e.name.endsWith('.sock'));
    ) {
      if (Date.now() > deadline) throw new Error('slow reader: no agent started');
      await new Promise((r) => setTimeout(r, 20));
    }
    const own = peakOf(off, work);
    const agent = peakOf(on, work);
    const size = BYTES >= GIB ? `${(BYTES / GIB).toFixed(2)} GiB` : `${Math.round(BYTES / MIB)} MiB`;
    console.log(
      `slow reader: peak of stor ${agent.toFixed(1)} MiB through the agent, ${own.toFixed(1)} MiB in its own process`,
    );
    record(
      'slow reader',
      `peak memory of \`stor download\` of ${size} to \`-\`, read at 10 MiB/s, through the session agent (the first stage)`,
      agent,
      'MiB',
      'the same in its own process (STOR_SESSION=off)',
      own,
      agent / own,
      '≤ 1.2×',
      agent / own <= 1.2,
    );
    notes.push(
      `slow reader: the agent's own memory is not counted (long-lived, shared by every command); a first stage that did not wait for its stdout held the file's bytes (355–791 MiB for 640 MiB).`,
    );
  } finally {
    spawnSync(NODE, [STOR, 'session', 'stop', '--all'], { env: on, stdio: 'ignore' });
    cleanup(work);
    cleanup(runtime);
  }
}
