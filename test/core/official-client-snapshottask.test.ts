/**
 * pool.snapshottask.* through the official client (`truenas_api_client.Client.call`, as `midclt call`
 * calls them) against `stor serve --emulate truenas-25.10.1` and `truenas-26.0`: each method once
 * with a valid argument, whose answer must be what the release's result schema accepts, and once
 * with an invalid one, which must fail as midclt prints the release's error (ValidationErrors:
 * `[EINVAL] attribute: message`, truenas_api_client/exc.py:88-109). The lines followed:
 * MW/api/v25_10_1/pool_snapshottask.py (the models; stable/26 MW/api/v26_0_0/pool_snapshottask.py:31-57
 * for 26's entry), CronModel (MW/api/v25_10_1/common.py:93-100 with croniter 1.3.5's words),
 * SnapshotNameSchema (MW/api/base/types/string.py:74, zettarepl/snapshot/name.py:125-127),
 * MW/plugins/snapshot.py:301-332 (max_count, max_total_count, run), MW/plugins/snapshot_/task_retention.py
 * (the will_change_retention_for pair), MW/service/crud_service.py:242 (get_instance's not found).
 * The calls run in one Python process (conformance/official-client-methods.py), in order.
 *
 * Needs STOR_TEST_API_CLIENT (see official-client-methods.test.ts), and drives 26.0 with stable/26's
 * client where STOR_TEST_API_CLIENT_26 is set (`clientFor`); without the former the test is skipped.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../src/core/appliance/settings.js';
import { contractFor } from '../../src/core/releases/index.js';
import { startTestServer } from '../helpers/server.js';
import {
  SNAPSHOT_TASK_METHODS,
  caseFailures,
  clientFor,
  printed,
  ref,
  runClient,
  type ClientCase,
} from '../conformance/official-client.js';

const DATASET = 'tank/snaptask-official';
const id = ref('pool.snapshottask.create', 'id');

/** In call order; each bad call runs just before its valid one. */
const CASES: ClientCase[] = [
  {
    method: 'pool.snapshottask.create',
    valid: [{ dataset: DATASET, recursive: true, lifetime_value: 1, lifetime_unit: 'DAY' }],
    bad: [{ dataset: DATASET, schedule: { minute: '61' } }],
    stderr: printed([
      'EINVAL',
      'data.schedule',
      'Value error, Please ensure fields match cron syntax - [61 * * * * ] is not acceptable, out of range',
    ]),
  },
  {
    method: 'pool.snapshottask.query',
    valid: [[['dataset', '=', DATASET]]],
    bad: ['x'],
    stderr: printed(['EINVAL', 'filters', 'Input should be a valid list']),
  },
  {
    method: 'pool.snapshottask.get_instance',
    valid: [id],
    bad: ['x'],
    stderr: printed(['EINVAL', 'id', 'Input should be a valid integer']),
  },
  {
    method: 'pool.snapshottask.update',
    valid: [id, { lifetime_value: 3, schedule: { minute: '30', begin: '08:00', end: '18:00' } }],
    bad: [id, { naming_schema: 'auto-%Y' }],
    stderr: printed(['EINVAL', 'data.naming_schema', 'Value error, %m must be present in snapshot naming schema']),
  },
  {
    method: 'pool.snapshottask.run',
    valid: [id],
    bad: ['x'],
    stderr: printed(['EINVAL', 'id', 'Input should be a valid integer']),
  },
  {
    method: 'pool.snapshottask.max_count',
    valid: [],
    bad: [1],
    stderr: printed(['EINVAL', 'ALL', 'Too many arguments (expected 0, found 1)']),
  },
  {
    method: 'pool.snapshottask.max_total_count',
    valid: [],
    bad: [1],
    stderr: printed(['EINVAL', 'ALL', 'Too many arguments (expected 0, found 1)']),
  },
  {
    method: 'pool.snapshottask.update_will_change_retention_for',
    valid: [id, { naming_schema: 'other-%Y%m%d%H%M' }],
    bad: [id, { lifetime_unit: 'SECOND' }],
    stderr: printed(['EINVAL', 'data.lifetime_unit', "Input should be 'HOUR', 'DAY', 'WEEK', 'MONTH' or 'YEAR'"]),
  },
  {
    method: 'pool.snapshottask.delete_will_change_retention_for',
    valid: [id],
    bad: [99999],
    stderr: printed(['ENOENT', 'ALL', 'PeriodicSnapshotTask 99999 does not exist']),
  },
  {
    method: 'pool.snapshottask.delete',
    valid: [id],
    bad: [id, { fixate: true }],
    stderr: printed(['EINVAL', 'options.fixate', 'Extra inputs are not permitted']),
  },
];

for (const release of ['25.10.1', '26.0'] as const) {
  const client = clientFor(release);
  describe(`pool.snapshottask.* through the official client (stor serve --emulate truenas-${release})`, () => {
    it('the table calls every periodic snapshot task method once', () => {
      expect(CASES.map((c) => c.method).sort()).toEqual([...SNAPSHOT_TASK_METHODS].sort());
    });

    it("each valid call answers the release's result shape; each invalid one fails with its words as midclt prints them", async (ctx) => {
      if ('reason' in client) return ctx.skip(client.reason);
      const contract = contractFor(release);
      const server = await startTestServer(EMULATIONS[`truenas-${release}`]);
      // 2024-01-05 09:30 on the appliance's clock (America/Los_Angeles, UTC-8): a minute the updated
      // schedule runs at, so the snapshot `run` takes is the task's (snapshot_owner.py:29-30).
      server.appliance.now = () => Date.UTC(2024, 0, 5, 17, 30, 0);
      const steps = [
        { label: 'dataset', method: 'pool.dataset.create', params: [{ name: DATASET }] },
        ...CASES.flatMap((c) => [
          { label: `${c.method} bad`, method: c.method, params: c.bad },
          { label: c.method, method: c.method, params: c.valid },
        ]),
        { label: 'snapshots', method: 'pool.snapshot.query', params: [[['dataset', '=', DATASET]]] },
        {
          label: 'snapshot properties',
          method: 'pool.snapshot.query',
          params: [[['dataset', '=', DATASET]], { extra: { properties: ['referenced', 'creation'], holds: true } }],
        },
      ];
      const outcomes = await runClient(client.env, server.rpcUrl, server.adminKey, steps);
      expect(outcomes.get('dataset')?.ok).toBe(true);
      const { failures, answers } = caseFailures(contract, CASES, outcomes);
      expect(failures).toEqual([]);
      const created = answers['pool.snapshottask.create'] as Record<string, unknown>;
      // 25.10.1: id after the create fields; 26.0: id first (pool_snapshottask.py:68-80; v26_0_0 :31-57).
      expect(Object.keys(created)[0]).toBe(release === '26.0' ? 'id' : 'dataset');
      expect(created).toMatchObject({ dataset: DATASET, recursive: true, state: { state: 'PENDING' } });
      expect(answers['pool.snapshottask.update']).toMatchObject({
        lifetime_value: 3,
        schedule: { minute: '30', hour: '*', dom: '*', month: '*', dow: '*', begin: '08:00', end: '18:00' },
      });
      expect(answers['pool.snapshottask.run']).toBeNull();
      expect(answers['pool.snapshottask.max_count']).toBe(512);
      expect(answers['pool.snapshottask.max_total_count']).toBe(10000);
      // The snapshot run took, named by the default schema, is the task's; another schema would leave it.
      const snapshots = JSON.parse(outcomes.get('snapshots')!.json!) as { snapshot_name: string }[];
      expect(snapshots.map((s) => s.snapshot_name)).toEqual(['auto-2024-01-05_09-30']);
      const taken = { [DATASET]: [snapshots[0]!.snapshot_name] };
      expect(answers['pool.snapshottask.update_will_change_retention_for']).toEqual(taken);
      expect(answers['pool.snapshottask.delete_will_change_retention_for']).toEqual(taken);
      expect(answers['pool.snapshottask.delete']).toBe(true);
      // 26.0: the properties extra.properties names, in ZFS's order, and holds on every entry
      // (MW/plugins/pool_/snapshot.py:94-155, 215-223 at TS-26.0.0-BETA.3); 25.10.1: py-libzfs's,
      // among them those named.
      const [entry] = JSON.parse(outcomes.get('snapshot properties')!.json!) as {
        properties: Record<string, { source: string; value: string; parsed: unknown }>;
        holds: unknown;
      }[];
      expect(entry!.holds).toEqual({});
      if (release === '26.0') {
        expect(Object.keys(entry!.properties)).toEqual(['creation', 'referenced']);
        expect(entry!.properties.referenced).toMatchObject({
          source: 'NONE',
          value: String(entry!.properties.referenced!.parsed),
        });
      } else expect(Object.keys(entry!.properties)).toEqual(expect.arrayContaining(['creation', 'referenced']));
    });
  });
}
