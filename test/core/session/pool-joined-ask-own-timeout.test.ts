/**
 * Hostile review of the pool's per-connection memo of privilege.roles / system.version
 * (pooled-session.ts FIXED_FOR_CONNECTION): a command that joins another's unanswered ask keeps
 * its own --timeout.
 */
import { describe, expect, it } from 'vitest';
import { E } from '../../../src/core/error-catalogue.js';
import { SessionPool } from '../../../src/core/session/pool.js';
import type { PooledTarget } from '../../../src/core/session/opener.js';
import { parseEndpoint } from '../../../src/core/transport/endpoint.js';
import { startStandinAppliance } from '../../helpers/standin-appliance.js';

describe('pooled memo of fixed answers', () => {
  it("a command with --timeout 1 joining another command's unanswered privilege.roles times out at its own 1 s", async () => {
    let release!: (a: { result: unknown }) => void;
    const held = new Promise<{ result: unknown }>((r) => (release = r));
    const appliance = await startStandinAppliance({
      'auth.login_with_api_key': { result: true },
      'auth.mechanism_choices': { error: { code: -32601, message: 'Method does not exist' } },
      'privilege.roles': { held },
    });
    const pool = new SessionPool();
    const target: PooledTarget = {
      endpoint: parseEndpoint(appliance.baseUrl),
      apiKey: '1-abcdefghijklmnopqrstuvwxyz',
      insecure: false,
    };
    const patient = await pool.open(target, 600);
    const hasty = await pool.open(target, 1);
    const first = patient.call('privilege.roles', [[], {}]);
    // The hasty command must end by its own timeout; the safety net below answers the held call
    // only if it did not (then the test fails on the answer, not on a hang).
    const net = setTimeout(() => release({ result: [] }), 20_000);
    await expect(hasty.call('privilege.roles', [[], {}])).rejects.toMatchObject({ code: E.TIMEOUT.code });
    clearTimeout(net);
    release({ result: [] });
    expect(await first).toEqual([]);
    await pool.closeAll();
  });
});
