/**
 * A `--targets` read interrupted through the session agent: the targets still out end as
 * INTERRUPTED and the command exits, and what they were still doing sends nothing more to their
 * appliances (docs/REMOTE.md), as a process of its own that exits there sends nothing more. The
 * agent outlives the command: its abandoned work must not go on making calls.
 */
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { clientEnv } from '../../helpers/client-env.js';
import { importFleet, streamStor } from '../../helpers/fleet.js';
import { sessionEnv } from '../../helpers/session.js';
import { until } from '../../helpers/split-upload.js';
import { startStandinAppliance, type StandinAnswer } from '../../helpers/standin-appliance.js';

const KEY = `1-${'abcdefghijklmnop'.repeat(4)}`;

describe('--targets interrupted through the session agent', () => {
  it('sends nothing more to a target whose login was still under way when the run was interrupted', async () => {
    let letLoginThrough: (answer: StandinAnswer) => void = () => undefined;
    const login = new Promise<StandinAnswer>((resolve) => (letLoginThrough = resolve));
    const held = await startStandinAppliance({
      'auth.login_with_api_key': { held: login },
      'core.ping': { result: 'pong' },
    });
    const env = { ...clientEnv(), ...sessionEnv().env };
    await importFleet(env, [{ name: 'held', url: held.baseUrl, key: KEY }]);
    const run = streamStor(['--targets', 'held', 'call', 'core.ping', '--json', '--timeout', '600'], env);
    await until(() => held.calls.includes('auth.login_with_api_key'), 'the login to be asked');
    run.kill('SIGINT');
    const { code } = await run.done;
    expect(code).toBe(130);
    expect(JSON.parse(run.stdout())).toMatchObject([{ target: 'held', exit_code: 130 }]);
    const before = [...held.calls];
    letLoginThrough({ result: true });
    // The next command to the same target through the same agent: by its answer, what the
    // interrupted one had left would have been sent.
    const next = await spawnStor(['--targets', 'held', 'call', 'core.ping', '--json', '--timeout', '600'], { env });
    expect(next.code, next.stderr).toBe(0);
    const after = held.calls.slice(before.length);
    expect(after.filter((m) => m === 'core.ping')).toEqual(['core.ping']);
  });
});
