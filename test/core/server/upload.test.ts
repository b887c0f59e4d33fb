import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import type { JobEntry } from '../../../src/core/appliance/jobs/jobs.js';
import { createUserWithKey } from '../../helpers/appliance.js';
import {
  SAFETY_MS,
  loggedInWs,
  postRpc,
  startTestServer,
  type RpcReply,
  type TestServer,
} from '../../helpers/server.js';
import { tempDir } from '../../helpers/temp-dir.js';

const BOUNDARY = 'stor-test-boundary-5c1b7e';
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** One part of a multipart body, built by hand so tests can also build broken bodies. */
function part(name: string, body: Buffer | string, options: { filename?: string; contentType?: string } = {}): Buffer {
  const disposition = `Content-Disposition: form-data; name="${name}"${options.filename !== undefined ? `; filename="${options.filename}"` : ''}`;
  const type = options.contentType ?? (options.filename !== undefined ? 'application/octet-stream' : undefined);
  const head = `--${BOUNDARY}\r\n${disposition}\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n`;
  return Buffer.concat([Buffer.from(head), Buffer.from(body), Buffer.from('\r\n')]);
}

const dataPart = (data: unknown) =>
  part('data', typeof data === 'string' ? data : JSON.stringify(data), { contentType: 'application/json' });
const filePart = (bytes: Buffer | string, filename = 'payload.bin') => part('file', bytes, { filename });
const put = (path: unknown, options: Record<string, unknown> = {}) =>
  dataPart({ method: 'filesystem.put', params: [path, options] });

/** The parts, then the closing delimiter. */
const multipart = (...parts: Buffer[]) => Buffer.concat([...parts, Buffer.from(`--${BOUNDARY}--\r\n`)]);

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface Answer {
  status: number;
  contentType: string | null;
  text: string;
}

/** `POST {url}/_upload/` over real HTTP. `key: null` sends no Authorization header. */
async function postUpload(
  server: TestServer,
  body: Buffer,
  key: string | null = server.adminKey,
  path = '/_upload/',
): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': CONTENT_TYPE };
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers,
    body,
    signal: AbortSignal.timeout(SAFETY_MS),
  });
  return { status: res.status, contentType: res.headers.get('content-type'), text: await res.text() };
}

/** Waits for job `id` with `core.job_wait` (legacy_jobs false), then returns its `core.get_jobs` entry. */
async function finishedJob(
  server: TestServer,
  id: number,
  key = server.adminKey,
): Promise<{ wait: RpcReply; job: JobEntry }> {
  const client = await loggedInWs(server.rpcUrl, key);
  await client.result('core.set_options', [{ legacy_jobs: false }]);
  const wait = await client.call('core.job_wait', [id]);
  const job = await client.result<JobEntry>('core.get_jobs', [[['id', '=', id]], { get: true }]);
  client.close();
  return { wait, job };
}

/** Every `filesystem.put` job the server knows, after waiting for the running ones to end. */
async function settledPutJobs(server: TestServer): Promise<JobEntry[]> {
  const jobs = await (async () => {
    const res = await postRpc(
      server.url,
      { jsonrpc: '2.0', id: 1, method: 'core.get_jobs', params: [[['method', '=', 'filesystem.put']]] },
      { key: server.adminKey },
    );
    return res.json().result as JobEntry[];
  })();
  for (const job of jobs) if (job.state === 'RUNNING') await finishedJob(server, job.id);
  const res = await postRpc(
    server.url,
    { jsonrpc: '2.0', id: 2, method: 'core.get_jobs', params: [[['method', '=', 'filesystem.put']]] },
    { key: server.adminKey },
  );
  return res.json().result as JobEntry[];
}

/** Files below `dir` (relative, sorted), temporary upload files included. */
function tree(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).map(String).sort();
}

const strayTemps = (dir: string) => tree(dir).filter((p) => /(^|\/)\.stor-put-.*\.part$/.test(p));

/** The server still answers, over HTTP and with a fresh upload. */
async function assertServing(server: TestServer): Promise<void> {
  const ping = await postRpc(server.url, { jsonrpc: '2.0', id: 'alive', method: 'core.ping', params: [] });
  expect(ping.json()).toEqual({ jsonrpc: '2.0', id: 'alive', result: 'pong' });
  const ok = await postUpload(server, multipart(put('/mnt/tank/.alive', { mode: 420 }), filePart('alive')));
  expect(ok.status).toBe(200);
}

const NON_ADMIN_ROLES = [
  'FILESYSTEM_FULL_CONTROL',
  'DATASET_WRITE',
  'FILESYSTEM_DATA_WRITE',
  'FILESYSTEM_DATA_READ',
  'FILESYSTEM_ATTRS_WRITE',
];

describe('POST /_upload/ on a real server', () => {
  it('stores a 5 MiB file byte for byte for an administrator: 200 {"job_id": N}, job SUCCESS', async () => {
    const server = await startTestServer();
    const bytes = randomBytes(5 * 1024 * 1024 + 123);
    const res = await postUpload(
      server,
      multipart(put('/mnt/tank/big/random.bin', { mode: 420 }), filePart(bytes, 'random.bin')),
    );
    expect(res.status).toBe(200);
    expect(res.contentType).toMatch(/^application\/json/);
    const { job_id } = JSON.parse(res.text) as { job_id: number };
    expect(res.text).toBe(JSON.stringify({ job_id }));
    expect(Number.isInteger(job_id)).toBe(true);

    const { wait, job } = await finishedJob(server, job_id);
    expect(wait.result).toBe(true);
    expect(job).toMatchObject({
      id: job_id,
      method: 'filesystem.put',
      arguments: ['/mnt/tank/big/random.bin', { mode: 420 }],
      state: 'SUCCESS',
      result: true,
      error: null,
      progress: { percent: 100 },
      credentials: { type: 'API_KEY', data: { username: 'truenas_admin' } },
    });

    const host = join(server.stateDir, 'mnt/tank/big/random.bin');
    const landed = readFileSync(host);
    expect(landed.length).toBe(bytes.length);
    expect(sha256(landed)).toBe(sha256(bytes));
    expect(statSync(host).mode & 0o7777).toBe(0o644);
    expect(strayTemps(join(server.stateDir, 'mnt/tank'))).toEqual([]);

    // filesystem.stat over HTTP JSON-RPC sees the same file, owned by the uploader.
    const st = await postRpc(
      server.url,
      { jsonrpc: '2.0', id: 1, method: 'filesystem.stat', params: ['/mnt/tank/big/random.bin'] },
      { key: server.adminKey },
    );
    expect(st.json().result).toMatchObject({
      type: 'FILE',
      size: bytes.length,
      mode: 0o100644,
      user: 'truenas_admin',
      group: 'truenas_admin',
    });
  });

  it('applies the mode, appends with append: true, creates missing parents, accepts /_upload without the slash', async () => {
    const server = await startTestServer();
    const pool = join(server.stateDir, 'mnt/tank');

    const first = await postUpload(
      server,
      multipart(put('/mnt/tank/a/b/c/log.txt', { mode: 0o600 }), filePart('first line\n')),
    );
    expect(first.status).toBe(200);
    expect((await finishedJob(server, JSON.parse(first.text).job_id)).job.state).toBe('SUCCESS');
    expect(statSync(join(pool, 'a/b/c')).isDirectory()).toBe(true);
    expect(statSync(join(pool, 'a/b/c/log.txt')).mode & 0o7777).toBe(0o600);

    const appended = await postUpload(
      server,
      multipart(put('/mnt/tank/a/b/c/log.txt', { append: true, mode: 420 }), filePart('second line\n')),
      server.adminKey,
      '/_upload',
    );
    expect(appended.status).toBe(200);
    expect((await finishedJob(server, JSON.parse(appended.text).job_id)).job.state).toBe('SUCCESS');
    expect(readFileSync(join(pool, 'a/b/c/log.txt'), 'utf8')).toBe('first line\nsecond line\n');
    expect(statSync(join(pool, 'a/b/c/log.txt')).mode & 0o7777).toBe(0o644);

    // Without append the file is replaced.
    const replaced = await postUpload(server, multipart(put('/mnt/tank/a/b/c/log.txt'), filePart('new\n')));
    expect((await finishedJob(server, JSON.parse(replaced.text).job_id)).job.state).toBe('SUCCESS');
    expect(readFileSync(join(pool, 'a/b/c/log.txt'), 'utf8')).toBe('new\n');
    expect(strayTemps(pool)).toEqual([]);
  });

  describe('refusals: each status and body of MW/apps/file_app.py:118-240, with nothing written and the server still serving', () => {
    /** `key`: undefined = the administrator's, null = no Authorization header. */
    /** `job`: the refusal comes after the file part started a job, which must then fail. */
    const cases: {
      name: string;
      body: () => Buffer;
      key?: string | null;
      status: number;
      text: string | RegExp;
      job?: true;
    }[] = [
      {
        name: 'empty multipart (only the closing delimiter)',
        body: () => multipart(),
        status: 405,
        text: 'No part found on payload',
      },
      {
        name: 'first part not named data',
        body: () => multipart(filePart('x'), put('/mnt/tank/r.txt')),
        status: 405,
        text: '"data" part must be the first on payload',
      },
      {
        name: 'data part that is not JSON',
        body: () => multipart(dataPart('{"method": filesystem.put'), filePart('x')),
        status: 400,
        text: /\S/,
      },
      {
        name: 'empty data part',
        body: () => multipart(dataPart(''), filePart('x')),
        status: 400,
        text: 'Expecting value: line 1 column 1 (char 0)',
      },
      {
        name: 'data without method',
        body: () => multipart(dataPart({ params: ['/mnt/tank/r.txt'] }), filePart('x')),
        status: 422,
        text: '',
      },
      {
        name: 'no Authorization header',
        body: () => multipart(put('/mnt/tank/r.txt'), filePart('x')),
        key: null,
        status: 401,
        text: '401: Unauthorized',
      },
      {
        name: 'a wrong key',
        body: () => multipart(put('/mnt/tank/r.txt'), filePart('x')),
        key: `1-${'W'.repeat(64)}`,
        status: 401,
        text: 'Invalid API key',
      },
      {
        name: 'a key whose id is not a number',
        body: () => multipart(put('/mnt/tank/r.txt'), filePart('x')),
        key: 'abc-def',
        status: 401,
        text: 'Invalid API key',
      },
      {
        name: 'data only',
        body: () => multipart(put('/mnt/tank/r.txt')),
        status: 405,
        text: '"file" not found as second part on payload',
      },
      {
        name: 'second part misnamed',
        body: () => multipart(put('/mnt/tank/r.txt'), part('upload', 'x', { filename: 'x' })),
        status: 405,
        text: '"file" not found as second part on payload',
      },
      {
        name: 'unknown method of a known service',
        body: () => multipart(dataPart({ method: 'filesystem.nope', params: [] }), filePart('x')),
        status: 422,
        text: "[ENOMETHOD] Method 'nope' not found in 'filesystem'",
      },
      {
        name: 'unknown service',
        body: () => multipart(dataPart({ method: 'nope.put', params: [] }), filePart('x')),
        status: 422,
        text: "[ENOMETHOD] Service 'nope' not found",
      },
      {
        name: 'method name without a dot',
        body: () => multipart(dataPart({ method: 'put', params: [] }), filePart('x')),
        status: 412,
        text: '[EBADMSG] Invalid method name',
      },
      {
        name: 'a later part not named file',
        body: () => multipart(put('/mnt/tank/r.txt'), filePart('x'), part('x', 'y')),
        status: 405,
        text: "Unknown payload part 'x'",
        job: true,
      },
      {
        name: 'six file parts',
        body: () =>
          multipart(put('/mnt/tank/r.txt'), ...Array.from({ length: 6 }, (_, i) => filePart(`part ${i}`, `f${i}`))),
        status: 405,
        text: 'Too many uploaded files',
        job: true,
      },
    ];

    for (const c of cases) {
      it(`${c.status} for ${c.name}`, async () => {
        const server = await startTestServer();
        const before = tree(server.stateDir).filter((p) => !p.startsWith('state.db'));
        const res = await postUpload(server, c.body(), c.key === undefined ? server.adminKey : c.key);
        expect(res.status).toBe(c.status);
        if (typeof c.text === 'string') expect(res.text).toBe(c.text);
        else expect(res.text).toMatch(c.text);
        // A job that had started (too many files, unknown part) ends FAILED; the target never appears.
        const jobs = await settledPutJobs(server);
        expect(jobs.map((j) => j.state)).toEqual(c.job ? ['FAILED'] : []);
        expect(existsSync(join(server.stateDir, 'mnt/tank/r.txt'))).toBe(false);
        expect(tree(server.stateDir).filter((p) => !p.startsWith('state.db'))).toEqual(before);
        await assertServing(server);
      });
    }

    it('5 file parts are accepted (the first one is written)', async () => {
      const server = await startTestServer();
      const res = await postUpload(
        server,
        multipart(put('/mnt/tank/five.txt'), ...Array.from({ length: 5 }, (_, i) => filePart(`part ${i}`))),
      );
      expect(res.status).toBe(200);
      expect((await finishedJob(server, JSON.parse(res.text).job_id)).job.state).toBe('SUCCESS');
      expect(readFileSync(join(server.stateDir, 'mnt/tank/five.txt'), 'utf8')).toBe('part 0');
    });

    it('500 with the exception text when the login itself fails (RecursionError under as-reported)', async () => {
      const server = await startTestServer({ roleExpansion: 'as-reported' });
      const { key } = await createUserWithKey(server.testAppliance, 'broken', {
        privilegeRoles: ['FILESYSTEM_FULL_CONTROL', 'FILESYSTEM_DATA_WRITE'],
      });
      const res = await postUpload(server, multipart(put('/mnt/tank/r.txt'), filePart('x')), key);
      expect(res.status).toBe(500);
      expect(res.text).toContain('maximum recursion depth exceeded');
      expect(existsSync(join(server.stateDir, 'mnt/tank/r.txt'))).toBe(false);
      await assertServing(server);
    });

    it('200 for bad params; the job then fails with a VALIDATION error', async () => {
      const server = await startTestServer();
      for (const params of [[42], ['/mnt/tank/v.txt', { mode: '0644' }], ['/mnt/tank/v.txt', { append: 'yes' }], []]) {
        const res = await postUpload(server, multipart(dataPart({ method: 'filesystem.put', params }), filePart('x')));
        expect(res.status).toBe(200);
        const { wait, job } = await finishedJob(server, JSON.parse(res.text).job_id);
        expect(job.state).toBe('FAILED');
        expect(job.exc_info?.type).toBe('VALIDATION');
        expect(job.error).toMatch(/^\[EINVAL\] /);
        // core.job_wait forwards only a CallError; the rest becomes CallError(job.error) (MW/job.py:467-478).
        expect(wait.error).toMatchObject({
          code: -32001,
          data: { error: 14, errname: 'EFAULT', reason: `[EFAULT] ${job.error}` },
        });
      }
      expect(readdirSync(join(server.stateDir, 'mnt/tank'))).toEqual([]);
      await assertServing(server);
    });

    // MW/plugins/filesystem.py:565 opens the target: a directory there is Python's IsADirectoryError,
    // recorded without an errno (MW/job.py:624-650) and raised by core.job_wait as CallError(job.error).
    it('200 for a target that is a directory; the job fails with IsADirectoryError, and core.job_wait with EFAULT', async () => {
      const server = await startTestServer();
      mkdirSync(join(server.stateDir, 'mnt/tank/docs'));
      const res = await postUpload(server, multipart(put('/mnt/tank/docs'), filePart('x')));
      expect(res.status).toBe(200);
      const { wait, job } = await finishedJob(server, JSON.parse(res.text).job_id);
      expect(job).toMatchObject({
        state: 'FAILED',
        error: "[Errno 21] Is a directory: '/mnt/tank/docs'",
        exc_info: {
          type: 'IsADirectoryError',
          errno: null,
          extra: null,
          repr: "IsADirectoryError(21, 'Is a directory')",
        },
      });
      expect(wait.error).toEqual({
        code: -32001,
        message: 'Method call error',
        data: expect.objectContaining({
          error: 14,
          errname: 'EFAULT',
          reason: "[EFAULT] [Errno 21] Is a directory: '/mnt/tank/docs'",
        }),
      });
      await assertServing(server);
    });

    it('200 for a hostile target; the job fails and nothing is written outside the pool', async () => {
      const server = await startTestServer();
      for (const path of ['/mnt/tank/../../escaped.txt', '/etc/stor-escaped', '/mnt/nopool/x', '/mnt/tank/a\0b']) {
        const res = await postUpload(server, multipart(put(path), filePart('PAYLOAD')));
        expect(res.status).toBe(200);
        const { wait, job } = await finishedJob(server, JSON.parse(res.text).job_id);
        expect(job.state).toBe('FAILED');
        expect(job.exc_info?.type).toBe('CallError');
        expect(wait.error).toMatchObject({ code: -32001, data: { error: job.exc_info?.errno, reason: job.error } });
      }
      expect(existsSync(join(server.stateDir, 'escaped.txt'))).toBe(false);
      expect(existsSync('/etc/stor-escaped')).toBe(false);
      expect(readdirSync(join(server.stateDir, 'mnt'))).toEqual(['tank']);
      expect(readdirSync(join(server.stateDir, 'mnt/tank'))).toEqual([]);
      await assertServing(server);
    });
  });

  describe('the gate', () => {
    it('CURRENT GATE (25.10.1 behaviour, not the declared intent): a non-admin with FILESYSTEM_FULL_CONTROL, DATASET_WRITE and the FILESYSTEM_DATA roles gets 403 "403: Forbidden"', async () => {
      const server = await startTestServer();
      const { key } = await createUserWithKey(server.testAppliance, 'bob', { privilegeRoles: NON_ADMIN_ROLES });
      const res = await postUpload(
        server,
        multipart(put('/mnt/tank/bob.txt', { mode: 420 }), filePart('from bob')),
        key,
      );
      expect(res.status).toBe(403);
      expect(res.text).toBe('403: Forbidden');
      expect(await settledPutJobs(server)).toEqual([]);
      expect(existsSync(join(server.stateDir, 'mnt/tank/bob.txt'))).toBe(false);
      // The same key works for JSON-RPC: it is the upload gate that refuses, not the key.
      const me = await postRpc(server.url, { jsonrpc: '2.0', id: 1, method: 'auth.me', params: [] }, { key });
      expect(me.json().result).toMatchObject({ pw_name: 'bob', account_attributes: ['LOCAL', 'API_KEY'] });
      await assertServing(server);
    });

    it('a non-admin lacking the role of another method gets 403; an admin naming such a method gets 412', async () => {
      const server = await startTestServer();
      const { key } = await createUserWithKey(server.testAppliance, 'carol', {
        privilegeRoles: ['FILESYSTEM_ATTRS_READ'],
      });
      const other = multipart(dataPart({ method: 'privilege.create', params: [{}] }), filePart('x'));
      const denied = await postUpload(server, other, key);
      expect(denied.status).toBe(403);
      expect(denied.text).toBe('403: Forbidden');
      // 25.10.1 calls the method: its ValidationErrors are a CallError, 412 with their text (MW/apps/file_app.py:230-236);
      // valid params, and the method's answer has no job id to read: aiohttp's 500 (:242-247).
      const byAdmin = await postUpload(server, other);
      expect(byAdmin.status).toBe(412);
      expect(byAdmin.text).toMatch(/^\[EINVAL\] privilege_create\.name: Field required\n/);
      const ping = await postUpload(server, multipart(dataPart({ method: 'core.ping', params: [] }), filePart('x')));
      expect([ping.status, ping.text]).toEqual([500, '500 Internal Server Error\n\nServer got itself in trouble']);
    });

    it('DECLARED INTENT (uploadGate role): the same non-admin uploads; the file is owned by that user', async () => {
      const server = await startTestServer({ uploadGate: 'role' });
      const { key, gid } = await createUserWithKey(server.testAppliance, 'bob', { privilegeRoles: NON_ADMIN_ROLES });
      const res = await postUpload(
        server,
        multipart(put('/mnt/tank/bob/bob.txt', { mode: 420 }), filePart('from bob')),
        key,
      );
      expect(res.status).toBe(200);
      const { wait, job } = await finishedJob(server, JSON.parse(res.text).job_id, key);
      expect(wait.result).toBe(true);
      expect(job).toMatchObject({ state: 'SUCCESS', credentials: { data: { username: 'bob' } } });
      expect(readFileSync(join(server.stateDir, 'mnt/tank/bob/bob.txt'), 'utf8')).toBe('from bob');
      const st = await postRpc(
        server.url,
        { jsonrpc: '2.0', id: 1, method: 'filesystem.stat', params: ['/mnt/tank/bob/bob.txt'] },
        { key },
      );
      expect(st.json().result).toMatchObject({ user: 'bob', gid, mode: 0o100644, size: 8 });
      // A user without FILESYSTEM_DATA_WRITE is still refused under this gate.
      const reader = await createUserWithKey(server.testAppliance, 'reader', {
        privilegeRoles: ['FILESYSTEM_DATA_READ'],
      });
      const refused = await postUpload(server, multipart(put('/mnt/tank/reader.txt'), filePart('x')), reader.key);
      expect(refused.status).toBe(403);
      expect(refused.text).toBe('403: Forbidden');
    });
  });

  describe('interrupted and broken uploads leave no partial target and no temporary file', () => {
    it('a client that goes away mid-file: the job fails, nothing remains', async () => {
      const server = await startTestServer();
      const observer = await loggedInWs(server.rpcUrl, server.adminKey);
      await observer.result('core.subscribe', ['core.get_jobs']);
      const dir = join(server.stateDir, 'mnt/tank/cut');

      const socket = connect(server.port, '127.0.0.1');
      onTestFinished(() => void socket.destroy());
      socket.on('error', () => undefined);
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      const start = Buffer.concat([
        put('/mnt/tank/cut/target.bin', { mode: 420 }),
        Buffer.from(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="target.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        ),
        randomBytes(256 * 1024),
      ]);
      socket.write(
        `POST /_upload/ HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer ${server.adminKey}\r\n` +
          `Content-Type: ${CONTENT_TYPE}\r\nContent-Length: ${64 * 1024 * 1024}\r\n\r\n`,
      );
      socket.write(start);

      const added = await observer.waitFor(
        (m) =>
          m.method === 'collection_update' &&
          m.params?.msg === 'added' &&
          m.params?.fields?.method === 'filesystem.put',
        'the upload job to start',
      );
      const jobId = added.params.id as number;
      // The bytes are on their way into a temporary file beside the target.
      await vi.waitFor(() => expect(existsSync(dir) && strayTemps(dir).length).toBe(1), {
        timeout: SAFETY_MS,
        interval: 10,
      });
      expect(existsSync(join(dir, 'target.bin'))).toBe(false);

      socket.destroy();
      const failed = await observer.waitFor(
        (m) => m.method === 'collection_update' && m.params?.id === jobId && m.params?.fields?.state === 'FAILED',
        'the interrupted job to fail',
      );
      expect(failed.params.fields.error).toContain('interrupted');
      const { job } = await finishedJob(server, jobId);
      expect(job.state).toBe('FAILED');
      expect(existsSync(join(dir, 'target.bin'))).toBe(false);
      expect(strayTemps(dir)).toEqual([]);
      expect(readdirSync(dir)).toEqual([]);
      await assertServing(server);
    });

    it('an interrupted append leaves the existing file as it was', async () => {
      const server = await startTestServer();
      const ok = await postUpload(server, multipart(put('/mnt/tank/keep.log'), filePart('kept\n')));
      expect((await finishedJob(server, JSON.parse(ok.text).job_id)).job.state).toBe('SUCCESS');
      const observer = await loggedInWs(server.rpcUrl, server.adminKey);
      await observer.result('core.subscribe', ['core.get_jobs']);

      const socket = connect(server.port, '127.0.0.1');
      onTestFinished(() => void socket.destroy());
      socket.on('error', () => undefined);
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(
        `POST /_upload/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.adminKey}\r\nContent-Type: ${CONTENT_TYPE}\r\nContent-Length: 10000000\r\n\r\n`,
      );
      socket.write(
        Buffer.concat([
          put('/mnt/tank/keep.log', { append: true }),
          Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="x"\r\n\r\n`),
          Buffer.alloc(100_000, 0x41),
        ]),
      );
      const added = await observer.waitFor(
        (m) =>
          m.method === 'collection_update' &&
          m.params?.msg === 'added' &&
          m.params?.fields?.arguments?.[1]?.append === true,
      );
      await vi.waitFor(() => expect(strayTemps(join(server.stateDir, 'mnt/tank')).length).toBe(1), {
        timeout: SAFETY_MS,
        interval: 10,
      });
      socket.destroy();
      const { job } = await finishedJob(server, added.params.id);
      expect(job.state).toBe('FAILED');
      expect(readFileSync(join(server.stateDir, 'mnt/tank/keep.log'), 'utf8')).toBe('kept\n');
      expect(strayTemps(join(server.stateDir, 'mnt/tank'))).toEqual([]);
    });

    it('a file part never closed by its boundary: an error status, the job fails, nothing remains', async () => {
      const server = await startTestServer();
      const body = Buffer.concat([
        put('/mnt/tank/broken/target.bin'),
        Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="t.bin"\r\n\r\n`),
        randomBytes(300 * 1024),
      ]);
      const res = await postUpload(server, body);
      expect(res.status).toBe(400);
      expect(res.text).toContain('malformed multipart body');
      const jobs = await settledPutJobs(server);
      expect(jobs).toHaveLength(1);
      expect(jobs[0]).toMatchObject({ state: 'FAILED', arguments: ['/mnt/tank/broken/target.bin', {}] });
      const dir = join(server.stateDir, 'mnt/tank/broken');
      expect(existsSync(join(dir, 'target.bin'))).toBe(false);
      expect(strayTemps(join(server.stateDir, 'mnt/tank'))).toEqual([]);
      await assertServing(server);
    });
  });

  // curl ships with every machine this project runs on; the acceptance asks for it by name.
  it("accepts the seed's curl form (-F data=…;type=application/json -F file=@…) and stores the bytes exactly", async () => {
    const server = await startTestServer();
    const file = join(tempDir(), 'curl.bin');
    const bytes = randomBytes(1024 * 1024 + 7);
    writeFileSync(file, bytes);
    const { stdout } = await promisify(execFile)(
      'curl',
      [
        '-s',
        '-w',
        '\n%{http_code}',
        '-H',
        `Authorization: Bearer ${server.adminKey}`,
        '-F',
        'data={"method":"filesystem.put","params":["/mnt/tank/c/curl.bin",{"mode":420}]};type=application/json',
        '-F',
        `file=@${file}`,
        `${server.url}/_upload/`,
      ],
      { timeout: SAFETY_MS },
    );
    const [body, status] = stdout.split('\n');
    expect(status).toBe('200');
    const { job_id } = JSON.parse(body!) as { job_id: number };
    expect((await finishedJob(server, job_id)).job.state).toBe('SUCCESS');
    const host = join(server.stateDir, 'mnt/tank/c/curl.bin');
    expect(sha256(readFileSync(host))).toBe(sha256(bytes));
    expect(statSync(host).mode & 0o7777).toBe(0o644);
  });
});
