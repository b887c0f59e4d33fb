import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../../../src/core/appliance/settings.js';
import { contractViolations } from '../../../../src/core/contract/conformance.js';
import { CONTRACT, type MethodName } from '../../../../src/core/contract/index.js';
import { SAFETY_MS, loggedInWs, startTestServer, type TestServer, type WsClient } from '../../../helpers/server.js';
import { conforming } from '../../../conformance/harness.js';

type Entry = Record<string, any>;

async function setup(): Promise<{ server: TestServer; ws: WsClient }> {
  const server = await startTestServer(EMULATIONS['truenas-25.10.1']);
  return { server, ws: await loggedInWs(server.rpcUrl, server.adminKey) };
}

const ok = conforming;

/** A CallError: -32001 with this errno and reason. */
async function callError(
  ws: WsClient,
  method: MethodName,
  params: unknown[],
  errname: string,
  errno: number,
  reason: string,
) {
  const reply = await ws.call(method, params);
  expect({
    code: reply.error?.code,
    error: reply.error?.data?.error,
    errname: reply.error?.data?.errname,
    reason: reply.error?.data?.reason,
  }).toEqual({ code: -32001, error: errno, errname, reason });
}

const BOUNDARY = 'stor-conformance-boundary';

/** `POST /_upload/` with a filesystem.put data part and a file part (MW/apps/file_app.py:118-249); returns the job id. */
async function upload(
  server: TestServer,
  path: string,
  bytes: string,
  options: Record<string, unknown> = {},
): Promise<number> {
  const part = (headers: string, body: string) => `--${BOUNDARY}\r\n${headers}\r\n\r\n${body}\r\n`;
  const body =
    part(
      'Content-Disposition: form-data; name="data"\r\nContent-Type: application/json',
      JSON.stringify({ method: 'filesystem.put', params: [path, options] }),
    ) +
    part('Content-Disposition: form-data; name="file"; filename="f"\r\nContent-Type: application/octet-stream', bytes) +
    `--${BOUNDARY}--\r\n`;
  const res = await fetch(`${server.url}/_upload/`, {
    method: 'POST',
    headers: {
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      authorization: `Bearer ${server.adminKey}`,
    },
    body,
    signal: AbortSignal.timeout(SAFETY_MS),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { job_id: number }).job_id;
}

describe('filesystem.stat (MW/plugins/filesystem.py:404-508)', () => {
  it('a dataset mountpoint: MOUNT_ROOT in attributes makes is_mountpoint; gid 0 shows group "root" (MW/plugins/filesystem.py:487, :500-503)', async () => {
    const { ws } = await setup();
    const st = await ok(ws, 'filesystem.stat', ['/mnt/tank']);
    expect(st).toMatchObject({
      realpath: '/mnt/tank',
      type: 'DIRECTORY',
      uid: 0,
      gid: 0,
      user: 'root',
      group: 'root',
      is_mountpoint: true,
      attributes: ['MOUNT_ROOT'],
      is_ctldir: false,
      acl: false,
    });
    await ok(ws, 'pool.dataset.create', [{ name: 'tank/child' }]);
    expect(await ok(ws, 'filesystem.stat', ['/mnt/tank/child'])).toMatchObject({
      is_mountpoint: true,
      attributes: ['MOUNT_ROOT'],
    });
  });

  it('a file, and / and /mnt as on a fresh appliance: root-owned 755 directories, / a mount root and /mnt not', async () => {
    const { server, ws } = await setup();
    await ws.result('core.set_options', [{ legacy_jobs: false }]);
    expect(await ws.result('core.job_wait', [await upload(server, '/mnt/tank/a.txt', 'hello', { mode: 0o640 })])).toBe(
      true,
    );
    const file = await ok(ws, 'filesystem.stat', ['/mnt/tank/a.txt']);
    expect(file).toMatchObject({ type: 'FILE', size: 5, mode: 0o100640, is_mountpoint: false, attributes: [] });
    expect(await ok(ws, 'filesystem.stat', ['/'])).toMatchObject({
      realpath: '/',
      type: 'DIRECTORY',
      mode: 0o40755,
      uid: 0,
      gid: 0,
      user: 'root',
      group: 'root',
      is_mountpoint: true,
    });
    expect(await ok(ws, 'filesystem.stat', ['/mnt'])).toMatchObject({
      realpath: '/mnt',
      type: 'DIRECTORY',
      mode: 0o40755,
      is_mountpoint: false,
      attributes: [],
    });
  });

  it('errors: a missing path ENOENT, a relative one EINVAL, EXTERNAL EXDEV (MW/plugins/filesystem.py:459-468)', async () => {
    const { ws } = await setup();
    await callError(ws, 'filesystem.stat', ['/mnt/tank/nope'], 'ENOENT', 2, '[ENOENT] Path /mnt/tank/nope not found');
    await callError(ws, 'filesystem.stat', ['/etc/shadow'], 'ENOENT', 2, '[ENOENT] Path /etc/shadow not found');
    await callError(ws, 'filesystem.stat', ['tank/a'], 'EINVAL', 22, '[EINVAL] tank/a: path must be absolute');
    await callError(
      ws,
      'filesystem.stat',
      ['EXTERNAL:host/share'],
      'EXDEV',
      18,
      '[EXDEV] EXTERNAL:host/share is external to TrueNAS',
    );
    const empty = await ws.call('filesystem.stat', ['']);
    expect(empty.error).toMatchObject({
      code: -32602,
      data: { extra: [['path', 'String should have at least 1 character', 22]] },
    });
  });
});

describe('filesystem.listdir (MW/plugins/filesystem.py:322-402)', () => {
  it('/mnt lists the pool mountpoints with the FilesystemDirEntry fields; / lists mnt (MW/plugins/filesystem.py:390-399)', async () => {
    const { ws } = await setup();
    const mnt = await ok<Entry[]>(ws, 'filesystem.listdir', ['/mnt']);
    expect(mnt).toHaveLength(1);
    expect(mnt[0]).toMatchObject({
      name: 'tank',
      path: '/mnt/tank',
      realpath: '/mnt/tank',
      type: 'DIRECTORY',
      uid: 0,
      gid: 0,
      is_mountpoint: true,
      attributes: ['MOUNT_ROOT'],
      xattrs: [],
      zfs_attrs: [],
    });
    // Every field of FilesystemDirEntry, as 25.10.1 lists them with an empty select.
    expect(Object.keys(mnt[0]!).sort()).toEqual(
      [
        'name',
        'path',
        'realpath',
        'type',
        'size',
        'allocation_size',
        'mode',
        'mount_id',
        'acl',
        'uid',
        'gid',
        'is_mountpoint',
        'is_ctldir',
        'attributes',
        'xattrs',
        'zfs_attrs',
      ].sort(),
    );
    expect((await ok<Entry[]>(ws, 'filesystem.listdir', ['/'])).map((e) => e.path)).toEqual(['/mnt']);
  });

  it('a dataset directory: entries, a count, one entry with get; missing ENOENT, a file ENOTDIR', async () => {
    const { server, ws } = await setup();
    await ok(ws, 'pool.dataset.create', [{ name: 'tank/docs' }]);
    await ws.result('core.set_options', [{ legacy_jobs: false }]);
    expect(await ws.result('core.job_wait', [await upload(server, '/mnt/tank/notes.txt', 'abc')])).toBe(true);
    const entries = await ok<Entry[]>(ws, 'filesystem.listdir', ['/mnt/tank']);
    expect(entries.map((e) => [e.name, e.type, e.is_mountpoint])).toEqual([
      ['docs', 'DIRECTORY', true],
      ['notes.txt', 'FILE', false],
    ]);
    expect(await ok(ws, 'filesystem.listdir', ['/mnt/tank', [], { count: true }])).toBe(2);
    expect(
      await ok(ws, 'filesystem.listdir', [
        '/mnt/tank',
        [['type', '=', 'FILE']],
        { get: true, select: ['name', 'size'] },
      ]),
    ).toEqual({ name: 'notes.txt', size: 3 });
    await callError(
      ws,
      'filesystem.listdir',
      ['/mnt/tank/nope/'],
      'ENOENT',
      2,
      '[ENOENT] Directory /mnt/tank/nope does not exist',
    );
    await callError(ws, 'filesystem.listdir', ['/etc'], 'ENOENT', 2, '[ENOENT] Directory /etc does not exist');
    await callError(
      ws,
      'filesystem.listdir',
      ['/mnt/tank/notes.txt'],
      'ENOTDIR',
      20,
      '[ENOTDIR] Path /mnt/tank/notes.txt is not a directory',
    );
  });
});

describe('filesystem.put (MW/plugins/filesystem.py:550-571, MW/job.py:370-376)', () => {
  it('through /_upload/ the job ends SUCCESS with result true; over JSON-RPC it fails before a job exists: a ValueError "Pipe \'input\' is not open"', async () => {
    const { server, ws } = await setup();
    await ws.result('core.set_options', [{ legacy_jobs: false }]);
    const id = await upload(server, '/mnt/tank/put.bin', 'bytes');
    const result = await ws.result('core.job_wait', [id]);
    expect(result).toBe(true);
    expect(contractViolations(CONTRACT['filesystem.put'].result, result)).toEqual([]);
    const reply = await ws.call('filesystem.put', ['/mnt/tank/x.bin', {}]);
    // A ValueError from Job.check_pipe (MW/job.py:370-376), answered as any exception (MW/api/base/server/ws_handler/rpc.py:378-391).
    expect(reply.error).toMatchObject({
      code: -32001,
      message: 'Method call error',
      data: { error: 22, errname: 'EINVAL', reason: "Pipe 'input' is not open", extra: null },
    });
    expect(reply.error?.data?.trace).toMatchObject({
      class: 'ValueError',
      repr: `ValueError("Pipe 'input' is not open")`,
    });
    const jobs = await ws.result<Entry[]>('core.get_jobs', [[['method', '=', 'filesystem.put']]]);
    expect(jobs.map((j) => j.id)).toEqual([id]);
  });
});
