/**
 * "Not found" as the appliance sends it: get_instance raises InstanceNotFound
 * (MW/service/crud_service.py:242, :258; MW/service_exception.py:115-118), and so does every update
 * or delete that calls it first, the job methods (MW/service/core_service.py:104, :111) and
 * pool.snapshot.delete (MW/plugins/zfs_/snapshot.py:222-224). The trace's class is the exception's
 * class and its repr is Python's repr of it (MW/api/base/server/ws_handler/rpc.py:116-120):
 * BaseException's `Class(*args)` with the args the constructor was given.
 */
import { describe, expect, it } from 'vitest';
import { adminSession } from '../../conformance/harness.js';

const CALLS: [method: string, params: unknown[], text: string][] = [
  ['user.get_instance', [999], 'User 999 does not exist'],
  ['user.update', [999, { full_name: 'x' }], 'User 999 does not exist'],
  ['user.delete', [999], 'User 999 does not exist'],
  ['group.get_instance', [999], 'Group 999 does not exist'],
  ['group.update', [999, { name: 'x' }], 'Group 999 does not exist'],
  ['group.delete', [999], 'Group 999 does not exist'],
  ['privilege.get_instance', [999], 'Privilege 999 does not exist'],
  ['privilege.update', [999, { name: 'x' }], 'Privilege 999 does not exist'],
  ['privilege.delete', [999], 'Privilege 999 does not exist'],
  ['api_key.get_instance', [999], 'ApiKey 999 does not exist'],
  ['api_key.delete', [999], 'ApiKey 999 does not exist'],
  ['pool.get_instance', [999], 'Pool 999 does not exist'],
  ['pool.dataset.get_instance', ['tank/nope'], 'PoolDataset tank/nope does not exist'],
  ['pool.dataset.delete', ['tank/nope'], 'PoolDataset tank/nope does not exist'],
  ['pool.snapshot.get_instance', ['tank@nope'], 'PoolSnapshot tank@nope does not exist'],
  ['pool.snapshot.delete', ['tank@nope'], 'Snapshot tank@nope not found'],
  ['core.job_abort', [999], 'Job with id 999 does not exist'],
];

describe('not found', () => {
  it("is InstanceNotFound on every method that raises it, its repr InstanceNotFound('…')", async () => {
    const { ws } = await adminSession();
    for (const [method, params, text] of CALLS) {
      const reply = await ws.call(method, params);
      expect(reply.error, method).toMatchObject({
        code: -32602,
        message: 'Invalid params',
        data: {
          error: 22,
          errname: 'EINVAL',
          reason: `[ENOENT] None: ${text}`,
          extra: [[null, text, 2]],
          trace: { class: 'InstanceNotFound', repr: `InstanceNotFound('${text}')` },
        },
      });
    }
  });

  it("other exceptions' repr is Python's: CallError('Path … not found', 2) (MW/plugins/filesystem.py raises it with errno.ENOENT), ValidationErrors([ValidationError(attr, msg, errno)])", async () => {
    const { ws } = await adminSession();
    const stat = await ws.call('filesystem.stat', ['/mnt/tank/nope']);
    expect(stat.error?.data?.['trace']).toMatchObject({
      class: 'CallError',
      repr: "CallError('Path /mnt/tank/nope not found', 2)",
    });
    const bad = await ws.call('group.create', [{ name: 'x', sudo_commands: ['ALL', 'ls'] }]);
    expect(bad.error?.data?.['trace']).toMatchObject({
      class: 'ValidationErrors',
      repr: "ValidationErrors([ValidationError('group_create.sudo_commands.0', 'ALL cannot be used with other commands', 22)])",
    });
  });
});
