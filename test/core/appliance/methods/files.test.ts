import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createUserWithKey } from '../../../helpers/appliance.js';
import { loggedInWs, type WsClient } from '../../../helpers/server.js';
import { adminSession, conforming, errorOf, validation } from '../../../conformance/harness.js';

/** A CallError's errno name and reason. */
async function callError(ws: WsClient, method: string, params: unknown[]) {
  const { code, data } = errorOf(await ws.call(method, params));
  return { code, errname: data.errname, reason: data.reason };
}

describe('filesystem.mkdir (MW/api/v25_10_1/filesystem.py:205-222, MW/plugins/filesystem.py:226-293)', () => {
  it('one argument {path, options}; answers a FilesystemDirEntry with the mode asked for, whatever the umask, and zfs_attrs ARCHIVE', async () => {
    const { ws } = await adminSession();
    const entry = await conforming(ws, 'filesystem.mkdir', [{ path: '/mnt/tank/new', options: { mode: '777' } }]);
    expect(entry).toEqual({
      name: 'new',
      path: '/mnt/tank/new',
      realpath: '/mnt/tank/new',
      type: 'DIRECTORY',
      size: expect.any(Number),
      allocation_size: expect.any(Number),
      mode: 0o40777,
      acl: false,
      uid: 0,
      gid: 0,
      is_mountpoint: false,
      is_ctldir: false,
      mount_id: expect.any(Number),
      attributes: [],
      xattrs: [],
      zfs_attrs: ['ARCHIVE'],
    });
    expect((await conforming(ws, 'filesystem.mkdir', [{ path: '/mnt/tank/new/sub' }])).mode).toBe(0o40755);
  });

  it('EEXIST for a path that exists, EINVAL for a relative one, EPERM outside /mnt, ENOENT (FileNotFoundError) for a missing parent (:244-253)', async () => {
    const { ws } = await adminSession();
    await conforming(ws, 'filesystem.mkdir', [{ path: '/mnt/tank/d' }]);
    expect(await callError(ws, 'filesystem.mkdir', [{ path: '/mnt/tank/d' }])).toEqual({
      code: -32001,
      errname: 'EEXIST',
      reason: '[EEXIST] /mnt/tank/d: path already exists.',
    });
    expect(await callError(ws, 'filesystem.mkdir', [{ path: '/mnt' }])).toEqual({
      code: -32001,
      errname: 'EEXIST',
      reason: '[EEXIST] /mnt: path already exists.',
    });
    expect(await callError(ws, 'filesystem.mkdir', [{ path: 'tank/d' }])).toEqual({
      code: -32001,
      errname: 'EINVAL',
      reason: '[EINVAL] tank/d: not an absolute path.',
    });
    expect(await callError(ws, 'filesystem.mkdir', [{ path: '/etc/d' }])).toEqual({
      code: -32001,
      errname: 'EPERM',
      reason: '[EPERM] /etc/d: path not permitted',
    });
    const missing = errorOf(await ws.call('filesystem.mkdir', [{ path: '/mnt/tank/no/such' }]));
    expect(missing.traceClass).toBe('FileNotFoundError');
    expect(missing.data.reason).toBe("[Errno 2] No such file or directory: '/mnt/tank/no/such'");
  });

  it('validation: UnixPerm messages, unknown keys, the path required (MW/api/base/types/filesystem.py:11-24)', async () => {
    const { ws } = await adminSession();
    expect(errorOf(await ws.call('filesystem.mkdir', [{ path: '/mnt/tank/x', options: { mode: '8' } }]))).toEqual(
      validation(['filesystem_mkdir.options.mode', 'Value error, Not a valid integer. Must be between 000 and 777']),
    );
    expect(errorOf(await ws.call('filesystem.mkdir', [{ path: '/mnt/tank/x', options: { mode: '1777' } }]))).toEqual(
      validation(['filesystem_mkdir.options.mode', 'Value error, Please supply a value between 000 and 777']),
    );
    expect(errorOf(await ws.call('filesystem.mkdir', [{ path: '/mnt/tank/x', parents: true }]))).toEqual(
      validation(['filesystem_mkdir.parents', 'Extra inputs are not permitted']),
    );
    expect(errorOf(await ws.call('filesystem.mkdir', ['/mnt/tank/x']))).toEqual(
      validation(['filesystem_mkdir', 'Input should be a valid dictionary']),
    );
  });
});

describe('filesystem.setperm and filesystem.chown (MW/api/v25_10_1/filesystem.py:38-107, MW/plugins/filesystem_/acl.py:81-305)', () => {
  it('model validators: chown needs one of uid, gid, user, group (-1 counts as unset); setperm needs mode or stripacl', async () => {
    const { ws } = await adminSession();
    expect(errorOf(await ws.call('filesystem.chown', [{ path: '/mnt/tank', uid: -1 }]))).toEqual(
      validation([
        'filesystem_chown',
        'Value error, At least one of uid, gid, user, and group must be set in chown payload',
      ]),
    );
    expect(errorOf(await ws.call('filesystem.setperm', [{ path: '/mnt/tank', uid: 0 }]))).toEqual(
      validation([
        'filesystem_setperm',
        'Value error, Payload must either explicitly specify permissions or contain the stripacl option.',
      ]),
    );
    expect(errorOf(await ws.call('filesystem.chown', [{ path: '/mnt/tank', uid: -2 }]))).toEqual(
      validation(['filesystem_chown.uid', 'Input should be greater than or equal to -1']),
    );
  });

  it('job failures: unknown user and group, a pool mountpoint, recursion on a file, empty permissions, a missing path', async () => {
    const { server, ws } = await adminSession();
    await ws.result('core.set_options', [{ legacy_jobs: false }]);
    await conforming(ws, 'filesystem.mkdir', [{ path: '/mnt/tank/d' }]);
    writeFileSync(join(server.stateDir, 'mnt', 'tank', 'd', 'f.txt'), 'x');
    expect(
      errorOf(await ws.call('filesystem.chown', [{ path: '/mnt/tank/d/f.txt', uid: 0, options: { recursive: true } }])),
    ).toEqual(validation(['filesystem.chown.path', 'Recursive operations on a file are invalid.']));
    expect(
      errorOf(await ws.call('filesystem.chown', [{ path: '/mnt/tank/d', user: 'nobody-here', group: 'no-group' }])),
    ).toEqual(
      validation(
        ['filesystem.chown.user', 'nobody-here: user does not exist'],
        ['filesystem.chown.group', 'no-group: group does not exist'],
      ),
    );
    expect(errorOf(await ws.call('filesystem.setperm', [{ path: '/mnt/tank', mode: '755' }]))).toEqual(
      validation(['filesystem.setperm.path', 'The specified path is a ZFS pool mountpoint "(/mnt/tank)" ']),
    );
    expect(errorOf(await ws.call('filesystem.setperm', [{ path: '/mnt/tank/d', mode: '000' }]))).toEqual(
      validation(['filesystem.setperm.mode', 'Empty permissions are not permitted.']),
    );
    expect(errorOf(await ws.call('filesystem.setperm', [{ path: '/mnt', mode: '755' }]))).toEqual(
      validation([
        'filesystem.setperm.path',
        'Changes to permissions on paths that are not beneath the directory /mnt are not permitted: /mnt',
      ]),
    );
    expect(await callError(ws, 'filesystem.chown', [{ path: '/mnt/tank/none', uid: 0 }])).toEqual({
      code: -32001,
      errname: 'ENOENT',
      reason: '[ENOENT] Path /mnt/tank/none not found',
    });
  });

  it('both answer null; the job is listed with its progress at 100', async () => {
    const { ws } = await adminSession();
    await ws.result('core.set_options', [{ legacy_jobs: false }]);
    await conforming(ws, 'filesystem.mkdir', [{ path: '/mnt/tank/d' }]);
    expect(
      await conforming(ws, 'filesystem.setperm', [{ path: '/mnt/tank/d', mode: '700', options: { recursive: true } }]),
    ).toBeNull();
    expect(await conforming(ws, 'filesystem.chown', [{ path: '/mnt/tank/d', user: 'root', gid: 0 }])).toBeNull();
    const [job] = await conforming(ws, 'core.get_jobs', [[['method', '=', 'filesystem.chown']]]);
    expect(job).toMatchObject({
      state: 'SUCCESS',
      progress: { percent: 100, description: 'Finished changing owner.' },
    });
  });

  it('roles: FILESYSTEM_ATTRS_WRITE for setperm and chown, FILESYSTEM_DATA_WRITE for mkdir', async () => {
    const { server } = await adminSession();
    const { key } = await createUserWithKey(server.testAppliance, 'reader', {
      privilegeRoles: ['FILESYSTEM_ATTRS_READ'],
    });
    const reader = await loggedInWs(server.rpcUrl, key);
    for (const [method, arg] of [
      ['filesystem.mkdir', { path: '/mnt/tank/x' }],
      ['filesystem.setperm', { path: '/mnt/tank/x', mode: '755' }],
      ['filesystem.chown', { path: '/mnt/tank/x', uid: 0 }],
    ] as const) {
      expect(await callError(reader, method, [arg])).toEqual({
        code: -32001,
        errname: 'EACCES',
        reason: '[EACCES] Not authorized',
      });
    }
  });
});

describe('core.download and filesystem.get (MW/service/core_service.py:497-530, MW/plugins/filesystem.py:537-548)', () => {
  it('answers [job_id, "/_download/<job_id>?auth_token=<64 characters>"]; the job is filesystem.get with the path as its argument', async () => {
    const { ws } = await adminSession();
    const [jobId, url] = await conforming<[number, string]>(ws, 'core.download', [
      'filesystem.get',
      ['/mnt/tank'],
      'tank',
    ]);
    expect(url).toMatch(new RegExp(`^/_download/${jobId}\\?auth_token=[A-Za-z0-9_-]{64}$`));
    const [job] = await conforming(ws, 'core.get_jobs', [[['id', '=', jobId]]]);
    expect(job).toMatchObject({ method: 'filesystem.get', arguments: ['/mnt/tank'] });
  });

  it("refusals: Not authorized (EACCES) without the method's role, ENOMETHOD for an unknown method, args validated as the method's", async () => {
    const { server, ws } = await adminSession();
    expect(await callError(ws, 'core.download', ['filesystem.nope', [], 'x'])).toEqual({
      code: -32001,
      errname: 'ENOMETHOD',
      reason: "[ENOMETHOD] Method 'nope' not found in 'filesystem'",
    });
    expect(errorOf(await ws.call('core.download', ['filesystem.get', [], 'x']))).toEqual(
      validation(['path', 'Field required']),
    );
    const { key } = await createUserWithKey(server.testAppliance, 'reader', {
      privilegeRoles: ['FILESYSTEM_ATTRS_READ', 'FILESYSTEM_DATA_READ'],
    });
    const reader = await loggedInWs(server.rpcUrl, key);
    expect(await callError(reader, 'core.download', ['filesystem.get', ['/mnt/tank/a'], 'a'])).toEqual({
      code: -32001,
      errname: 'EACCES',
      reason: '[EACCES] Not authorized',
    });
  });

  it('filesystem.get called directly has no output pipe: refused before any job exists', async () => {
    const { ws } = await adminSession();
    const err = await callError(ws, 'filesystem.get', ['/mnt/tank/a']);
    expect(err.errname).toBe('EINVAL');
    // ValueError's text as is (MW/job.py:370-376), no `[EINVAL]` prefix: it is no CallError.
    expect(err.reason).toBe("Pipe 'output' is not open");
    expect(await conforming(ws, 'core.get_jobs', [[['method', '=', 'filesystem.get']]])).toEqual([]);
  });
});
