import { describe, expect, it } from 'vitest';
import { spawnStor } from '../../helpers/bin.js';
import { startStandinAppliance } from '../../helpers/standin-appliance.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** A third-party appliance answering hand-made 25.10.1-shaped results, and -32601 for the rest. */
async function fakeAppliance(results: Record<string, unknown>): Promise<string> {
  const answers = Object.fromEntries(Object.entries(results).map(([method, result]) => [method, { result }]));
  return (await startStandinAppliance({ 'auth.login_with_api_key': { result: true }, ...answers })).baseUrl;
}

const prop = (raw: string, value: string | null, parsed: unknown, source = 'DEFAULT') => ({
  parsed,
  rawvalue: raw,
  value,
  source,
  source_info: null,
});

/**
 * A filesystem entry as 25.10.1's pool.dataset.query builds it (MW/plugins/pool_/dataset_query_utils.py
 * build_info / normalize_zfs_properties; model MW/api/v25_10_1/pool_dataset.py PoolDatasetEntry):
 * no top-level `comments`, and user_properties holding only what is set.
 */
function entry(name: string, userProperties: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: name,
    type: 'FILESYSTEM',
    name,
    pool: name.split('/')[0],
    available: prop('1073741824', '1 GiB', 1073741824, 'NONE'),
    checksum: prop('on', 'ON', true),
    compression: prop('lz4', 'LZ4', 'lz4', name.includes('/') ? 'INHERITED' : 'LOCAL'),
    compressratio: prop('1.00', '1.00x', '1.00', 'NONE'),
    copies: prop('1', '1', 1),
    creation: {
      parsed: { $date: 1767225600000 },
      rawvalue: '1767225600',
      value: 'Thu Jan 01  0:00 2026',
      source: 'NONE',
      source_info: null,
    },
    deduplication: prop('off', 'OFF', 'off'),
    encryption_algorithm: prop('off', null, 'off'),
    key_format: prop('none', null, 'none'),
    origin: prop('', '', '', 'NONE'),
    readonly: prop('off', 'OFF', false),
    sync: prop('standard', 'STANDARD', 'standard'),
    used: prop('2048', '2 KiB', 2048, 'NONE'),
    usedbychildren: prop('0', '0 bytes', 0, 'NONE'),
    usedbydataset: prop('2048', '2 KiB', 2048, 'NONE'),
    aclmode: prop('discard', 'DISCARD', 'discard'),
    acltype: prop('posix', 'POSIX', 'posix'),
    atime: prop('on', 'ON', true),
    mountpoint: `/mnt/${name}`,
    quota: prop('0', null, null),
    recordsize: prop('131072', '128K', 131072),
    xattr: prop('sa', 'SA', null, 'LOCAL'),
    user_properties: userProperties,
    encrypted: false,
    encryption_root: null,
    key_loaded: false,
    locked: false,
    children: [],
    // Fields a later release might add: the client must ignore them.
    snapshot_count: 0,
    some_future_field: { nested: [1, 2, 3] },
  };
}

const comment = (text: string) => ({ parsed: text, rawvalue: text, value: text, source: 'LOCAL', source_info: null });

function cli(url: string) {
  return (args: string[]) =>
    spawnStor(['--url', url, ...args], {
      env: { STOR_HOME: tempDir(), STOR_CONFIG_DIR: tempDir(), STOR_API_KEY: `1-${'A'.repeat(64)}` },
    });
}

describe('the client against 25.10.1-shaped answers', () => {
  it('lists datasets whose entries have no comments at all and unknown extra fields', async () => {
    const url = await fakeAppliance({
      'pool.dataset.query': [
        entry('tank'),
        entry('tank/docs', { comments: comment('team a'), 'custom:owner': comment('ops') }),
        entry('tank/bare'),
      ],
    });
    const r = await cli(url)(['dataset', 'list', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        id: 'tank',
        name: 'tank',
        pool: 'tank',
        mountpoint: '/mnt/tank',
        used: 2048,
        available: 1073741824,
        compression: 'LZ4',
        comments: null,
      },
      {
        id: 'tank/docs',
        name: 'tank/docs',
        pool: 'tank',
        mountpoint: '/mnt/tank/docs',
        used: 2048,
        available: 1073741824,
        compression: 'LZ4',
        comments: 'team a',
      },
      {
        id: 'tank/bare',
        name: 'tank/bare',
        pool: 'tank',
        mountpoint: '/mnt/tank/bare',
        used: 2048,
        available: 1073741824,
        compression: 'LZ4',
        comments: null,
      },
    ]);
  });

  it('survives entries without the optional properties (a query with properties: [])', async () => {
    const { id, name, pool, mountpoint, user_properties, children } = entry('tank/slim');
    const url = await fakeAppliance({
      'pool.dataset.query': [{ id, name, pool, mountpoint, user_properties, children }],
    });
    const r = await cli(url)(['dataset', 'list', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        id: 'tank/slim',
        name: 'tank/slim',
        pool: 'tank',
        mountpoint: '/mnt/tank/slim',
        used: null,
        available: null,
        compression: null,
        comments: null,
      },
    ]);
  });

  it('fails as not a valid appliance answer (exit 3) and names the method and the field when an entry lacks one it needs', async () => {
    const { name: _name, ...nameless } = entry('tank/c');
    const url = await fakeAppliance({
      'pool.dataset.query': [entry('tank'), entry('tank/a'), entry('tank/b'), nameless],
    });
    const r = await cli(url)(['dataset', 'list']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      `not a valid appliance answer: the appliance's answer to pool.dataset.query has no "name" (a string) in item 3`,
    );
    expect(r.stderr).not.toContain('TypeError');

    const json = await cli(url)(['dataset', 'list', '--json']);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stderr).error).toMatchObject({ code: 'MALFORMED_ANSWER', kind: 'unreachable' });
  });

  it('reports a field of the wrong type in the same way', async () => {
    const url = await fakeAppliance({ 'pool.dataset.query': [{ ...entry('tank'), used: prop('x', 'x', 'lots') }] });
    const r = await cli(url)(['dataset', 'list']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      `not a valid appliance answer: the appliance's answer to pool.dataset.query has "used.parsed" as a string where a number was expected in item 0`,
    );
  });

  it('shows a privilege whose local group no longer exists ({gid, sid: null, group: null}, MW/plugins/account_/privilege.py:226-239)', async () => {
    // A GroupEntry as 25.10.1 sends it (MW/api/v25_10_1/group.py).
    const admins = {
      id: 1,
      gid: 544,
      name: 'builtin_administrators',
      group: 'builtin_administrators',
      builtin: true,
      sudo_commands: [],
      sudo_commands_nopasswd: [],
      smb: true,
      userns_idmap: null,
      local: true,
      sid: null,
      roles: [],
      users: [1, 2],
      immutable: true,
    };
    const url = await fakeAppliance({
      'privilege.query': [
        {
          id: 1,
          builtin_name: 'LOCAL_ADMINISTRATOR',
          name: 'Local Administrator',
          local_groups: [admins],
          ds_groups: [],
          roles: ['FULL_ADMIN'],
          web_shell: true,
        },
        {
          id: 4,
          builtin_name: null,
          name: 'orphaned',
          local_groups: [{ gid: 3005, sid: null, group: null }],
          ds_groups: [],
          roles: ['READONLY_ADMIN'],
          web_shell: false,
        },
      ],
    });
    const list = await cli(url)(['privilege', 'list', '--json']);
    expect(list.stderr).toBe('');
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).map((p: { name: string; groups: string[] }) => [p.name, p.groups])).toEqual([
      ['Local Administrator', ['builtin_administrators']],
      ['orphaned', ['3005']],
    ]);
    const check = await cli(url)(['privilege', 'check', '--json']);
    expect(check.code).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ ok: true, catalogue: 'built-in 25.10.1' });
  });

  it('pool list marks a DEGRADED pool as a real 25.10.1 reports it (healthy false, status_detail), and keeps its sizes', async () => {
    const pool = (id: number, name: string, status: string, healthy: boolean, detail: string | null) => ({
      id,
      name,
      guid: String(1000 + id),
      status,
      path: `/mnt/${name}`,
      scan: null,
      expand: null,
      is_upgraded: true,
      healthy,
      warning: false,
      status_code: healthy ? 'OK' : 'DEGRADED',
      status_detail: detail,
      size: 1000,
      allocated: 400,
      free: 600,
      freeing: 0,
      dedup_table_size: 0,
      dedup_table_quota: 'auto',
      fragmentation: '3',
      size_str: '1000',
      allocated_str: '400',
      free_str: '600',
      freeing_str: '0',
      autotrim: { parsed: 'off', rawvalue: 'off', source: 'DEFAULT', value: 'off' },
      topology: { data: [], log: [], cache: [], spare: [], special: [], dedup: [] },
    });
    const detail = 'One or more devices could not be used because the label is missing or invalid.';
    const url = await fakeAppliance({
      'pool.query': [pool(1, 'fast', 'ONLINE', true, null), pool(2, 'tank', 'DEGRADED', false, detail)],
    });
    const r = await cli(url)(['pool', 'list']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`fast\tok\tONLINE\t1000\t400\t600\t\ntank\tUNHEALTHY\tDEGRADED\t1000\t400\t600\t${detail}\n`);
  });
});
