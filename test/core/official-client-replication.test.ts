/**
 * replication.* through the official client (`truenas_api_client.Client.call`, as `midclt call`
 * calls them) against `stor serve --emulate truenas-25.10.1` and `truenas-26.0`: each method once with
 * a valid argument, whose answer must be what the release's result schema accepts, and once with an
 * invalid one, which must fail as midclt prints the release's error (ValidationErrors:
 * `[EINVAL] attribute: message`, truenas_api_client/exc.py:88-109). The lines followed:
 * MW/api/v25_10_1/replication.py (the models; stable/26 MW/api/v26_0_0/replication.py), `_validate`
 * (MW/plugins/replication.py:360-365, 528-532; stable/26 :632-638), MW/service/crud_service.py:242
 * (get_instance's not found, which delete calls first, replication.py:283).
 *
 * Needs STOR_TEST_API_CLIENT (see official-client-methods.test.ts), and drives 26.0 with stable/26's
 * client where STOR_TEST_API_CLIENT_26 is set (`clientFor`); without the former the test is skipped.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../src/core/appliance/settings.js';
import { contractFor } from '../../src/core/releases/index.js';
import { startTestServer } from '../helpers/server.js';
import {
  REPLICATION_METHODS,
  caseFailures,
  clientFor,
  printed,
  ref,
  runClient,
  type ClientCase,
} from '../conformance/official-client.js';

const SOURCE = 'tank/repl-official-src';
const TARGET = 'tank/repl-official-dst';
const id = ref('replication.create', 'id');

const PUSH = {
  name: 'official push',
  direction: 'PUSH',
  transport: 'LOCAL',
  source_datasets: [SOURCE],
  target_dataset: TARGET,
  recursive: false,
  auto: false,
  retention_policy: 'SOURCE',
};

function cases(release: '25.10.1' | '26.0'): ClientCase[] {
  return [
    {
      method: 'replication.create',
      valid: [{ ...PUSH, periodic_snapshot_tasks: [ref('task', 'id')] }],
      bad: [PUSH],
      stderr: printed([
        'EINVAL',
        'replication_create.periodic_snapshot_tasks',
        'You must at least either bind a periodic snapshot task or provide "Also Include Naming Schema" or "Name Regex" for push replication task',
      ]),
    },
    {
      method: 'replication.query',
      valid: [[['name', '=', PUSH.name]]],
      bad: ['x'],
      stderr: printed(['EINVAL', 'filters', 'Input should be a valid list']),
    },
    {
      method: 'replication.get_instance',
      valid: [id],
      bad: ['x'],
      stderr: printed(['EINVAL', 'id', 'Input should be a valid integer']),
    },
    {
      method: 'replication.update',
      valid: [id, { retention_policy: 'CUSTOM', lifetime_value: 2, lifetime_unit: 'WEEK' }],
      bad: [id, { retention_policy: 'CUSTOM', lifetime_value: 2 }],
      // 25.10.1 reports the missing unit on lifetime_value (replication.py:531-532), 26.0 on its own field.
      stderr: printed([
        'EINVAL',
        `replication_update.${release === '26.0' ? 'lifetime_unit' : 'lifetime_value'}`,
        'This field is required for custom retention policy',
      ]),
    },
    {
      method: 'replication.list_naming_schemas',
      valid: [],
      bad: [1],
      stderr: printed(['EINVAL', 'ALL', 'Too many arguments (expected 0, found 1)']),
    },
    {
      method: 'replication.list_datasets',
      valid: ['LOCAL'],
      bad: ['FTP'],
      stderr: printed(['EINVAL', 'transport', "Input should be 'SSH', 'SSH+NETCAT' or 'LOCAL'"]),
    },
    {
      method: 'replication.count_eligible_manual_snapshots',
      valid: [{ datasets: [SOURCE], naming_schema: ['auto-%Y-%m-%d_%H-%M'], transport: 'LOCAL' }],
      bad: [{ datasets: [SOURCE], transport: 'FTP' }],
      stderr: printed([
        'EINVAL',
        'count_eligible_manual_snapshots.transport',
        "Input should be 'SSH', 'SSH+NETCAT' or 'LOCAL'",
      ]),
    },
    {
      method: 'replication.target_unmatched_snapshots',
      valid: ['PUSH', [SOURCE], TARGET, 'LOCAL'],
      bad: ['SIDEWAYS', [SOURCE], TARGET, 'LOCAL'],
      stderr: printed(['EINVAL', 'direction', "Input should be 'PUSH' or 'PULL'"]),
    },
    {
      // `zfs create -p` (MW/plugins/zettarepl.py:513-516, zettarepl/dataset/create.py:11-12): None.
      method: 'replication.create_dataset',
      valid: [`${TARGET}/made/here`, 'LOCAL'],
      bad: [`${TARGET}/made`, 'FTP'],
      stderr: printed(['EINVAL', 'transport', "Input should be 'SSH', 'SSH+NETCAT' or 'LOCAL'"]),
    },
    {
      method: 'replication.config.config',
      valid: [],
      bad: [1],
      stderr: printed(['EINVAL', 'ALL', 'Too many arguments (expected 0, found 1)']),
    },
    {
      method: 'replication.config.update',
      valid: [{ max_parallel_replication_tasks: 2 }],
      bad: [{ max_parallel_replication_tasks: 0 }],
      stderr: printed([
        'EINVAL',
        'replication_config_update.max_parallel_replication_tasks',
        'Input should be greater than or equal to 1',
      ]),
    },
    {
      method: 'replication.delete',
      valid: [id],
      bad: [99999],
      stderr: printed(['ENOENT', 'ALL', 'Replication 99999 does not exist']),
    },
  ];
}

for (const release of ['25.10.1', '26.0'] as const) {
  const client = clientFor(release);
  describe(`replication.* through the official client (stor serve --emulate truenas-${release})`, () => {
    it('the table calls every replication method but the runs (jobs) once', () => {
      expect(
        cases(release)
          .map((c) => c.method)
          .sort(),
      ).toEqual([...REPLICATION_METHODS].sort());
    });

    it("each valid call answers the release's result shape; each invalid one fails with its words as midclt prints them", async (ctx) => {
      if ('reason' in client) return ctx.skip(client.reason);
      const contract = contractFor(release);
      const server = await startTestServer(EMULATIONS[`truenas-${release}`]);
      const table = cases(release);
      const steps = [
        { label: 'source', method: 'pool.dataset.create', params: [{ name: SOURCE }] },
        { label: 'target', method: 'pool.dataset.create', params: [{ name: TARGET }] },
        { label: 'task', method: 'pool.snapshottask.create', params: [{ dataset: SOURCE }] },
        ...table.flatMap((c) => [
          { label: `${c.method} bad`, method: c.method, params: c.bad },
          { label: c.method, method: c.method, params: c.valid },
        ]),
      ];
      const outcomes = await runClient(client.env, server.rpcUrl, server.adminKey, steps);
      expect(outcomes.get('task')?.ok).toBe(true);
      const { failures, answers } = caseFailures(contract, table, outcomes);
      expect(failures).toEqual([]);
      const created = answers['replication.create'] as Record<string, unknown>;
      expect(created).toMatchObject({ name: PUSH.name, state: { state: 'PENDING' }, job: null });
      const [bound] = created.periodic_snapshot_tasks as Record<string, unknown>[];
      // PoolSnapshotTaskDBEntry: 25.10.1's id after the task's fields, 26.0's first.
      expect(Object.keys(bound!)[0]).toBe(release === '26.0' ? 'id' : 'dataset');
      expect(answers['replication.update']).toMatchObject({ retention_policy: 'CUSTOM', lifetime_unit: 'WEEK' });
      expect(answers['replication.delete']).toBe(true);
      expect(answers['replication.list_naming_schemas']).toEqual(['auto-%Y-%m-%d_%H-%M']);
      expect(answers['replication.list_datasets']).toEqual(expect.arrayContaining([SOURCE, TARGET]));
      expect(answers['replication.count_eligible_manual_snapshots']).toEqual({ total: 0, eligible: 0 });
      expect(answers['replication.target_unmatched_snapshots']).toEqual({});
      expect(answers['replication.create_dataset']).toBeNull();
      expect(answers['replication.config.update']).toEqual({ id: 1, max_parallel_replication_tasks: 2 });
    });
  });
}
