import { readdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { startStandinAppliance, type StandinAnswer } from '../../helpers/standin-appliance.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { E } from '../../../src/core/error-catalogue.js';

const KEY = `1-${'A'.repeat(64)}`;
const TOKEN = 'SECRET-DOWNLOAD-TOKEN-0123456789';

/** filesystem.stat of a regular file of `size` bytes, as 25.10.1 shapes it (MW/api/v25_10_1/filesystem.py FilesystemStatData). */
function statOf(size: number): StandinAnswer {
  return {
    result: {
      realpath: '/mnt/tank/f',
      type: 'FILE',
      size,
      allocation_size: size,
      mode: 0o100644,
      mount_id: 1,
      uid: 0,
      gid: 0,
      atime: 0,
      mtime: 0,
      ctime: 0,
      btime: 0,
      dev: 1,
      inode: 2,
      nlink: 1,
      acl: false,
      is_mountpoint: false,
      is_ctldir: false,
      attributes: [],
      user: 'root',
      group: 'root',
    },
  };
}

const SUCCEEDED: Record<string, StandinAnswer> = {
  'auth.login_with_api_key': { result: true },
  'core.set_options': { result: null },
  'core.job_wait': { result: null },
  'core.get_jobs': {
    result: [
      {
        id: 1,
        message_ids: [],
        method: 'filesystem.get',
        arguments: [],
        transient: false,
        description: null,
        abortable: false,
        logs_path: null,
        logs_excerpt: null,
        progress: { percent: 100, description: null, extra: null },
        result: null,
        result_encoding_error: null,
        error: null,
        exception: null,
        exc_info: null,
        state: 'SUCCESS',
        time_started: { $date: 1767225600000 },
        time_finished: { $date: 1767225600000 },
        credentials: null,
      },
    ],
  },
};

/** A plain HTTP server on port 0 that notes every request it gets and answers 200 with `body`. */
async function startRecorder(handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { port: (server.address() as AddressInfo).port, requests };
}

const MIB = 1024 * 1024;

/**
 * Answers the GET of the download URL with `total` bytes in 64 KiB writes, minding back-pressure;
 * `finished` is set when every byte was handed to the socket, `cut` when the client hung up first.
 */
function endlessBody(total: number) {
  const seen = { finished: false, cut: false };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    if (!req.url?.startsWith('/_download/')) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    res.on('close', () => {
      if (sent < total) seen.cut = true;
    });
    const pump = () => {
      while (sent < total && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (sent >= total) res.end(() => (seen.finished = true));
    };
    pump();
  };
  return { seen, handle };
}

function stor(baseUrl: string, args: string[]) {
  return spawnStor(['--url', baseUrl, '--timeout', '20', '--json', ...args], {
    env: { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir(), STOR_API_KEY: KEY },
  });
}

describe('a download takes no more than the appliance stated, and only from the appliance', () => {
  it('a file whose stat says 10 bytes but whose download never ends stops at 10 bytes: DOWNLOAD_SIZE_MISMATCH, nothing left on disk', async () => {
    const body = endlessBody(64 * MIB);
    const nas = await startStandinAppliance(
      {
        ...SUCCEEDED,
        'filesystem.stat': statOf(10),
        'core.download': { result: [1, `/_download/1?auth_token=${TOKEN}`] },
      },
      body.handle,
    );
    const dir = tempDir();
    const r = await stor(nas.baseUrl, ['download', '/mnt/tank/f', `${dir}/`]);
    expect(r.stderr).not.toContain('bug in stor');
    expect(r.code, r.stderr).toBe(1);
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: E.DOWNLOAD_SIZE_MISMATCH.code, kind: 'failed' });
    expect(JSON.parse(r.stderr).error.message).toContain('/mnt/tank/f');
    // stor hung up on the body rather than reading its 64 MiB to the end.
    expect(body.seen.finished).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('to stdout, a download that brings more than the stated size writes exactly the stated bytes and fails', async () => {
    const body = endlessBody(64 * MIB);
    const nas = await startStandinAppliance(
      {
        ...SUCCEEDED,
        'filesystem.stat': statOf(10),
        'core.download': { result: [1, `/_download/1?auth_token=${TOKEN}`] },
      },
      body.handle,
    );
    const r = await spawnStor(['--url', nas.baseUrl, '--timeout', '20', 'download', '/mnt/tank/f', '-'], {
      env: { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir(), STOR_API_KEY: KEY },
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('brought more than the 10 bytes the appliance reported');
    expect(r.stdout.length).toBeLessThanOrEqual(10);
    expect(body.seen.finished).toBe(false);
  });

  for (const url of [
    (port: number) => `http://127.0.0.1:${port}/_download/1?auth_token=${TOKEN}`,
    (port: number) => `//127.0.0.1:${port}/_download/1?auth_token=${TOKEN}`,
    (port: number) => `\\\\127.0.0.1:${port}/_download/1?auth_token=${TOKEN}`,
    // Same origin when resolved as it is, another once its leading slash is dropped to keep a
    // base path prefix: the URL checked must be the URL fetched.
    (port: number) => `/http://127.0.0.1:${port}/_download/1?auth_token=${TOKEN}`,
  ]) {
    it(`a core.download URL on another origin is refused, never fetched, its token never sent (${url(0).slice(0, 12)}…)`, async () => {
      const elsewhere = await startRecorder((_req, res) => res.writeHead(200).end('0123456789'));
      const nas = await startStandinAppliance(
        { ...SUCCEEDED, 'filesystem.stat': statOf(10), 'core.download': { result: [1, url(elsewhere.port)] } },
        (_req, res) => res.writeHead(200).end('0123456789'),
      );
      const dir = tempDir();
      const r = await stor(nas.baseUrl, ['download', '/mnt/tank/f', `${dir}/`]);
      expect(elsewhere.requests).toEqual([]);
      expect(r.stderr).not.toContain('bug in stor');
      expect(r.stderr).not.toContain(TOKEN);
      expect(r.code, r.stderr).toBe(3);
      const error = JSON.parse(r.stderr).error;
      expect(error).toMatchObject({ code: E.MALFORMED_ANSWER.code, kind: 'unreachable' });
      expect(error.message).toContain('another origin');
      expect(readdirSync(dir)).toEqual([]);
    });
  }
});
