import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { startStandinAppliance, type StandinAnswer } from '../../helpers/standin-appliance.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { E } from '../../../src/core/error-catalogue.js';

const KEY = `1-${'A'.repeat(64)}`;
const LOGGED_IN: Record<string, StandinAnswer> = { 'auth.login_with_api_key': { result: true } };

/**
 * Every stand-in here answers at once: the deadline only ends a run that would hang, so it is
 * generous. A short one raced the real work (connecting, logging in, parsing an answer 200,000
 * deep) on a loaded machine, and a timeout is not the exit 3 these tests expect.
 */
function stor(baseUrl: string, args: string[]) {
  return spawnStor(['--url', baseUrl, '--timeout', '120', '--json', ...args], {
    env: { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir(), STOR_API_KEY: KEY },
  });
}

/** Exit 3, MALFORMED_ANSWER naming `mentions`, and never the "bug in stor" fallback. */
function expectNotAnAppliance(r: { code: number | null; stderr: string }, ...mentions: string[]) {
  expect(r.stderr).not.toContain('bug in stor');
  expect(r.code, r.stderr).toBe(3);
  const error = JSON.parse(r.stderr).error;
  expect(error).toMatchObject({ code: E.MALFORMED_ANSWER.code, kind: 'unreachable' });
  expect(error.message).toMatch(/^not a valid appliance answer: /);
  for (const m of mentions) expect(error.message).toContain(m);
}

describe('answers no appliance gives are "not a valid appliance answer" (exit 3), never a bug in stor', () => {
  for (const rpc of [[], ['--rpc', 'http']]) {
    const over = rpc.length ? '--rpc http' : 'WebSocket';
    it(`whoami when auth.me answers null or {} (${over})`, async () => {
      for (const result of [null, {}]) {
        const nas = await startStandinAppliance({ ...LOGGED_IN, 'auth.me': { result } });
        expectNotAnAppliance(await stor(nas.baseUrl, [...rpc, 'whoami']), 'auth.me');
      }
    });

    it(`a frame that is not JSON-RPC at all: null, a list, plain text (${over})`, async () => {
      for (const raw of ['null', '[1,2]', 'hello']) {
        const nas = await startStandinAppliance({ ...LOGGED_IN, 'auth.me': { raw } });
        expectNotAnAppliance(await stor(nas.baseUrl, [...rpc, 'whoami']), 'not JSON-RPC 2.0', JSON.stringify(raw));
      }
    });
  }

  it('an answer nested 200000 deep is a malformed answer (exit 3), not a bug in stor (WebSocket and --rpc http)', async () => {
    const deep = '['.repeat(200_000) + ']'.repeat(200_000);
    for (const rpc of [[], ['--rpc', 'http']]) {
      // Over --rpc http the key travels as a bearer header: there is no login call to answer.
      const login = rpc.length ? [] : [['auth.login_with_api_key', ['whoami']] as const];
      for (const [method, args] of [['auth.me', ['whoami']], ['core.ping', ['call', 'core.ping']], ...login] as const) {
        // Over --rpc http, auth.me checks the key before any other call; {} is enough for that.
        const nas = await startStandinAppliance({
          ...LOGGED_IN,
          'auth.me': { result: {} },
          [method]: { rawResult: deep },
        });
        const r = await stor(nas.baseUrl, [...rpc, ...args]);
        expectNotAnAppliance(r, 'nested more than 1000 deep');
      }
    }
  });

  it('a login answered with {} instead of true or false', async () => {
    const nas = await startStandinAppliance({ 'auth.login_with_api_key': { result: {} } });
    expectNotAnAppliance(await stor(nas.baseUrl, ['whoami']), 'auth.login_with_api_key', '{}');
  });

  it("an error object of the wrong shape is reported as the appliance's failure, not a crash", async () => {
    const nas = await startStandinAppliance({
      ...LOGGED_IN,
      'auth.me': {
        error: { code: -32602, message: 'Invalid params', data: { reason: 5, extra: ['x', [1], null] } as never },
      },
    });
    const r = await stor(nas.baseUrl, ['whoami']);
    expect(r.stderr).not.toContain('bug in stor');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      kind: 'failed',
      message: 'the appliance rejected the parameters',
    });
  });

  it('the upload endpoint answering 200 with JSON that holds no job id', async () => {
    for (const body of ['null', '{}', '{"job_id":"7"}', 'not json']) {
      const nas = await startStandinAppliance(
        {
          ...LOGGED_IN,
          'filesystem.stat': {
            error: {
              code: -32001,
              message: 'Method call error',
              data: { error: 2, errname: 'ENOENT', reason: '[ENOENT] no', trace: null, extra: null },
            },
          },
        },
        (req, res) => {
          req.resume();
          req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
        },
      );
      const dir = tempDir();
      writeFileSync(join(dir, 'f'), 'hello');
      expectNotAnAppliance(
        await stor(nas.baseUrl, ['upload', join(dir, 'f'), '/mnt/tank/f']),
        'answered no job id',
        JSON.stringify(body),
      );
    }
  });
});
