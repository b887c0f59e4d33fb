import { writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { startStandinAppliance } from '../../helpers/standin-appliance.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { E } from '../../../src/core/error-catalogue.js';

const KEY = `1-${'A'.repeat(64)}`;
const MIB = 1024 * 1024;
/** What the hostile server sends at most: past any cap stor may set, and still a test a shared machine can afford. */
const SENT_AT_MOST = 160 * MIB;

/**
 * An answer body that keeps coming: JSON text that never closes, written as fast as the client
 * reads it (so bodyTimeout, which counts silence, never fires), up to SENT_AT_MOST. Resolves with
 * the bytes the client took before it hung up (or all of them).
 */
function endless(res: ServerResponse, status = 200): Promise<number> {
  return new Promise((resolve) => {
    let sent = 0;
    const chunk = Buffer.alloc(MIB, 0x41);
    res.writeHead(status, { 'content-type': 'application/json' });
    res.write('{"jsonrpc":"2.0","id":1,"result":"');
    const pump = () => {
      while (sent < SENT_AT_MOST && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end('"}');
    };
    res.on('close', () => resolve(sent));
    pump();
  });
}

describe('an answer body that never ends is refused once past a bound, not read into memory without end', () => {
  it('--rpc http: a call answered with an endless body is a malformed answer (exit 3), and stor stops reading it long before the server stops sending', async () => {
    let taken!: Promise<number>;
    const nas = await startStandinAppliance({}, undefined, (req, res) => {
      req.resume();
      req.on('end', () => {
        taken = endless(res);
      });
    });
    const r = await spawnStor(['--url', nas.baseUrl, '--rpc', 'http', '--timeout', '30', '--json', 'whoami'], {
      env: { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir(), STOR_API_KEY: KEY },
    });
    expect(r.stderr).not.toContain('bug in stor');
    expect(r.code, r.stderr).toBe(3);
    expect(JSON.parse(r.stderr).error.code).toBe(E.MALFORMED_ANSWER.code);
    expect(await taken).toBeLessThan(SENT_AT_MOST);
  });

  it('an upload answered with an endless body: refused (exit 3) and read only up to the bound', async () => {
    let taken!: Promise<number>;
    const nas = await startStandinAppliance(
      {
        'auth.login_with_api_key': { result: true },
        // The target is not there yet: the upload goes ahead.
        'filesystem.stat': {
          error: {
            code: -32001,
            message: 'Method call error',
            data: { error: 2, errname: 'ENOENT', reason: '[ENOENT] no', trace: null, extra: null },
          },
        },
      },
      (req, res) => {
        if (req.method === 'POST' && req.url === '/_upload/') {
          req.resume();
          req.on('end', () => {
            taken = endless(res);
          });
        } else res.writeHead(404).end();
      },
    );
    const dir = tempDir();
    writeFileSync(`${dir}/f.txt`, 'hello\n');
    const r = await spawnStor(
      ['--url', nas.baseUrl, '--timeout', '30', '--json', 'upload', `${dir}/f.txt`, '/mnt/tank/f.txt'],
      { env: { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir(), STOR_API_KEY: KEY } },
    );
    expect(r.stderr).not.toContain('bug in stor');
    expect(r.code, r.stderr).toBe(3);
    expect(await taken).toBeLessThan(SENT_AT_MOST);
  });
});
