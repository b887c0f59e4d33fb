/**
 * system.info, system.boot_id and pool.query of `stor serve --emulate truenas-25.10.1`, driven
 * with raw JSON-RPC frames: answers checked against the contract (MW/api/v25_10_1/system.py,
 * system_lifecycle.py, pool.py), roles and refusals as 25.10.1's decorators give them.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createUserWithKey } from '../../../helpers/appliance.js';
import { connectWs, loggedInWs } from '../../../helpers/server.js';
import { adminSession, conforming, errorOf, server25 } from '../../../conformance/harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** SystemInfoResult's fields in model order (MW/api/v25_10_1/system.py:40-82; `datetime_` travels as `datetime`). */
const INFO_FIELDS = [
  'version',
  'buildtime',
  'hostname',
  'physmem',
  'model',
  'cores',
  'physical_cores',
  'loadavg',
  'uptime',
  'uptime_seconds',
  'system_serial',
  'system_product',
  'system_product_version',
  'license',
  'boottime',
  'datetime',
  'timezone',
  'system_manufacturer',
  'ecc_memory',
];

/** PoolEntry's fields in model order (MW/api/v25_10_1/pool.py:56-136). */
const POOL_FIELDS = [
  'id',
  'name',
  'guid',
  'status',
  'path',
  'scan',
  'expand',
  'is_upgraded',
  'healthy',
  'warning',
  'status_code',
  'status_detail',
  'size',
  'allocated',
  'free',
  'freeing',
  'dedup_table_size',
  'dedup_table_quota',
  'fragmentation',
  'size_str',
  'allocated_str',
  'free_str',
  'freeing_str',
  'autotrim',
  'topology',
];

/** "Too many arguments" as the emulator's params check gives it for a method without params. */
const tooMany = (found: number) => ({
  code: -32602,
  message: 'Invalid params',
  data: {
    error: 22,
    errname: 'EINVAL',
    reason: `[EINVAL] : Too many arguments (expected 0, found ${found})\n`,
    extra: [['', `Too many arguments (expected 0, found ${found})`, 22]],
  },
  traceClass: 'ValidationErrors',
});

describe('system.info and system.boot_id (MW/plugins/system/info.py:83-113, lifecycle.py:31-48)', () => {
  it("system.info: every field in 25.10.1's order, version as system.version_short answers, boot time before now", async () => {
    const { ws } = await adminSession();
    const info = await conforming<Record<string, any>>(ws, 'system.info');
    expect(Object.keys(info)).toEqual(INFO_FIELDS);
    // MW/plugins/system/info.py:93: `version` is system.version_short's answer.
    expect(info.version).toBe(await ws.result('system.version_short'));
    expect(info.boottime.$date).toBeLessThanOrEqual(info.datetime.$date);
    // `str(timedelta(seconds=…))` (info.py:48): H:MM:SS with optional microseconds.
    expect(info.uptime).toMatch(/^(\d+ days?, )?\d+:\d\d:\d\d(\.\d{6})?$/);
    expect(info.loadavg).toHaveLength(3);
  });

  it('system.info: an argument is refused as params are (api_method accepts no args), and READONLY_ADMIN is needed (info.py:83)', async () => {
    const server = await server25();
    const ws = await loggedInWs(server.rpcUrl, server.adminKey);
    expect(errorOf(await ws.call('system.info', [1]))).toEqual(tooMany(1));
    const { key } = await createUserWithKey(server.testAppliance, 'noroles', { privilegeRoles: ['DATASET_READ'] });
    const limited = await loggedInWs(server.rpcUrl, key);
    expect((await limited.call('system.info')).error?.data).toMatchObject({
      errname: 'EACCES',
      reason: '[EACCES] Not authorized',
    });
    const { key: reader } = await createUserWithKey(server.testAppliance, 'reader', {
      privilegeRoles: ['READONLY_ADMIN'],
    });
    expect(Object.keys(await conforming(await loggedInWs(server.rpcUrl, reader), 'system.info'))).toEqual(INFO_FIELDS);
  });

  it('system.boot_id: needs no login (authentication_required=False, lifecycle.py:31-37), the same id on every connection until a restart', async () => {
    const server = await server25();
    const anonymous = await connectWs(server.rpcUrl);
    const id = await conforming<string>(anonymous, 'system.boot_id');
    expect(id).toMatch(UUID);
    const admin = await loggedInWs(server.rpcUrl, server.adminKey);
    expect(await admin.result('system.boot_id')).toBe(id);
    expect(errorOf(await anonymous.call('system.boot_id', ['x']))).toEqual(tooMany(1));
    // A second emulator is another boot.
    const other = await server25();
    expect(await (await connectWs(other.rpcUrl)).result('system.boot_id')).not.toBe(id);
  });

  it("core.get_methods lists them and the other new methods with 25.10.1's roles and flags (core_service.py:364-380)", async () => {
    const { ws } = await adminSession();
    const all = await conforming<Record<string, Record<string, unknown>>>(ws, 'core.get_methods');
    expect(all['system.info']).toMatchObject({ no_auth_required: false, pass_application: false, job: false });
    expect(all['system.info']!.roles).toContain('READONLY_ADMIN');
    expect(all['system.boot_id']).toMatchObject({
      no_auth_required: true,
      pass_application: true,
      require_websocket: true,
      roles: [],
    });
    expect(all['pool.query']).toMatchObject({ filterable: true, no_auth_required: false, job: false });
    expect(all['pool.query']!.roles).toEqual(expect.arrayContaining(['POOL_READ', 'READONLY_ADMIN']));
    // The other methods operators start with, with their decorators' roles and pass_app.
    expect(all['auth.sessions']).toMatchObject({ filterable: true, pass_application: true, require_websocket: true });
    expect(all['auth.sessions']!.roles).toContain('AUTH_SESSIONS_READ');
    expect(all['user.set_password']).toMatchObject({
      roles: [],
      pass_application: true,
      require_websocket: true,
      no_auth_required: false,
    });
    expect(all['pool.snapshot.clone']!.roles).toEqual(expect.arrayContaining(['SNAPSHOT_WRITE', 'DATASET_WRITE']));
    for (const m of ['pool.snapshot.hold', 'pool.snapshot.release']) expect(all[m]!.roles).toContain('SNAPSHOT_WRITE');
    expect(all['filesystem.statfs']!.roles).toContain('FILESYSTEM_ATTRS_READ');
    expect((all['pool.snapshot.clone']!.accepts as { _name_: string }[]).map((a) => a._name_)).toEqual(['data']);
    // A datetime field is described as pydantic describes it, never as EJSON (MW/api/base/jsonschema.py:10-15).
    const returns = all['system.info']!.returns as [{ properties: Record<string, Record<string, unknown>> }];
    expect(returns[0].properties.boottime).toMatchObject({ type: 'string', format: 'date-time' });
  });
});

describe('pool.query (MW/plugins/pool_/pool.py:57-137)', () => {
  it("the seeded pool: ONLINE and healthy, fields in PoolEntry's order, one DISK vdev whose stats carry the pool's size", async () => {
    const { ws } = await adminSession();
    const [tank] = await conforming<Record<string, any>[]>(ws, 'pool.query');
    expect(Object.keys(tank!)).toEqual(POOL_FIELDS);
    expect(tank).toMatchObject({
      id: 1,
      name: 'tank',
      path: '/mnt/tank',
      status: 'ONLINE',
      healthy: true,
      warning: false,
      status_code: 'OK',
      status_detail: null,
      is_upgraded: false,
    });
    expect(tank!.guid).toMatch(/^\d+$/);
    expect(tank!.size).toBe(tank!.allocated + tank!.free);
    expect(tank!.size_str).toBe(String(tank!.size));
    // transform_topology upper-cases `type` (MW/plugins/pool_/topology.py:53-54) and adds device, disk, unavail_disk.
    expect(Object.keys(tank!.topology)).toEqual(['data', 'log', 'cache', 'spare', 'special', 'dedup']);
    expect(tank!.topology.data).toHaveLength(1);
    expect(tank!.topology.data[0]).toMatchObject({
      type: 'DISK',
      status: 'ONLINE',
      children: [],
      disk: 'sda',
      unavail_disk: null,
      stats: { size: tank!.size, read_errors: 0 },
    });
    // extra.is_upgraded asks pool_extend (pool.py:135-137).
    const [upgraded] = await conforming<Record<string, unknown>[]>(ws, 'pool.query', [
      [],
      { extra: { is_upgraded: true } },
    ]);
    expect(upgraded!.is_upgraded).toBe(true);
    // Filters and options as every query's.
    expect(await conforming(ws, 'pool.query', [[['name', '=', 'tank']], { select: ['name', 'healthy'] }])).toEqual([
      { name: 'tank', healthy: true },
    ]);
    expect(await conforming(ws, 'pool.query', [[], { count: true }])).toBe(1);
  });

  it("a pool whose directory is gone answers as pool_normalize_info's defaults: OFFLINE, not healthy, no topology (pool.py:63-91)", async () => {
    const { ws, server } = await adminSession();
    rmSync(join(server.stateDir, 'mnt', 'tank'), { recursive: true });
    const [tank] = await conforming<Record<string, unknown>[]>(ws, 'pool.query');
    expect(tank).toMatchObject({
      status: 'OFFLINE',
      healthy: false,
      warning: false,
      topology: null,
      size: null,
      scan: null,
      status_code: null,
    });
    expect(Object.keys(tank!)).toEqual(POOL_FIELDS);
  });

  it('invalid arguments: filters must be a list (QueryArgs), get_instance of an unknown id is InstanceNotFound "Pool N does not exist" (crud_service.py get_instance), POOL_READ needed', async () => {
    const server = await server25();
    const ws = await loggedInWs(server.rpcUrl, server.adminKey);
    expect((await ws.call('pool.query', ['tank'])).error).toMatchObject({ code: -32602 });
    expect((await ws.call('pool.get_instance', [42])).error?.data).toMatchObject({
      reason: '[ENOENT] None: Pool 42 does not exist',
    });
    expect(await conforming(ws, 'pool.get_instance', [1])).toMatchObject({ name: 'tank' });
    const { key } = await createUserWithKey(server.testAppliance, 'datasets', { privilegeRoles: ['DATASET_READ'] });
    expect((await (await loggedInWs(server.rpcUrl, key)).call('pool.query')).error?.data).toMatchObject({
      errname: 'EACCES',
    });
  });
});
