// The fleet section of `npm run bench`: `privilege check --targets` over 20 `stor serve`
// instances on loopback, against the same check on one target, in wall time and peak memory.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { NODE, STOR, cleanup, measurePeak, median, startServe, tempDir } from './lib.mjs';

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
