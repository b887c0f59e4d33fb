/**
 * replication.run and replication.run_onetime (jobs: `@job(logs=True)`, MW/plugins/replication.py:296-342;
 * stable/26 :304-348) through the official client as `midclt call -j` calls them
 * (`Client.call(method, *args, job=True)`: the job id, then core.get_jobs events until the job ends;
 * its result returned, its failure raised, truenas_api_client/__init__.py:329-358), against
 * `stor serve --emulate truenas-25.10.1` and `truenas-26.0`, each driven by its line's client
 * (`clientFor`). Each method is called with an invalid argument (refused before any job starts, as
 * the release's schema says: MW/api/v25_10_1/replication.py:228-252, stable/26
 * MW/api/v26_0_0/replication.py:295-330) and with a valid one, whose job the client waits on until
 * the snapshots have arrived. A job that fails raises what the client makes of the job's exc_info:
 * ValidationErrors for `_validate`'s errors (MW/job.py:624-650, checked inside run_onetime,
 * MW/plugins/replication.py:334-338), a ClientException holding the job's `error` (`str(CallError)`,
 * MW/job.py:395-398) for zettarepl's, which `_run_replication_task_job` raises as a sentence
 * (MW/plugins/zettarepl.py:462-463; the words: zettarepl/replication/run.py:596-609).
 *
 * Needs STOR_TEST_API_CLIENT (see official-client-methods.test.ts), and drives 26.0 with stable/26's
 * client where STOR_TEST_API_CLIENT_26 is set (`clientFor`); without the former the test is skipped.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../src/core/appliance/settings.js';
import { contractFor } from '../../src/core/releases/index.js';
import { startTestServer } from '../helpers/server.js';
import {
  caseFailures,
  clientFor,
  midclt,
  printed,
  ref,
  runClient,
  type ClientCase,
} from '../conformance/official-client.js';

const SOURCE = 'tank/run-official-src';
const TARGET = 'tank/run-official-dst';
const ONETIME_TARGET = 'tank/run-official-once';
const TAKEN = 'tank/run-official-taken';
const SNAPSHOT = 'auto-2024-01-05_09-30';
const SCHEMA = 'auto-%Y-%m-%d_%H-%M';

const PUSH = {
  direction: 'PUSH',
  transport: 'LOCAL',
  source_datasets: [SOURCE],
  recursive: false,
  retention_policy: 'NONE',
};

/** In call order; each bad call runs just before its valid one, both as jobs. */
const CASES: ClientCase[] = [
  {
    // ReplicationRunArgs.id: int (MW/api/v25_10_1/replication.py:228-232; v26_0_0 :295-298).
    method: 'replication.run',
    valid: [ref('task', 'id')],
    bad: ['x'],
    stderr: printed(['EINVAL', 'id', 'Input should be a valid integer']),
  },
  {
    // The transport's Literal (MW/api/v25_10_1/replication.py ReplicationCreate), checked before the job.
    method: 'replication.run_onetime',
    valid: [{ ...PUSH, target_dataset: ONETIME_TARGET, also_include_naming_schema: [SCHEMA] }],
    bad: [{ ...PUSH, target_dataset: ONETIME_TARGET, also_include_naming_schema: [SCHEMA], transport: 'FTP' }],
    stderr: printed(['EINVAL', 'replication_run_onetime.transport', "Input should be 'SSH', 'SSH+NETCAT' or 'LOCAL'"]),
  },
];

for (const release of ['25.10.1', '26.0'] as const) {
  const client = clientFor(release);
  describe(`replication.run and run_onetime through the official client as jobs (stor serve --emulate truenas-${release})`, () => {
    it('the client waits on each job, gets its result and progress, and the snapshots have arrived; a failing job raises its error', async (ctx) => {
      if ('reason' in client) return ctx.skip(client.reason);
      const contract = contractFor(release);
      const server = await startTestServer(EMULATIONS[`truenas-${release}`]);
      const steps = [
        { label: 'source', method: 'pool.dataset.create', params: [{ name: SOURCE }] },
        { label: 'snapshot', method: 'pool.snapshot.create', params: [{ dataset: SOURCE, name: SNAPSHOT }] },
        { label: 'taken', method: 'pool.dataset.create', params: [{ name: TAKEN }] },
        { label: 'taken snapshot', method: 'pool.snapshot.create', params: [{ dataset: TAKEN, name: 'other' }] },
        {
          label: 'task',
          method: 'replication.create',
          params: [
            {
              ...PUSH,
              name: 'official run',
              target_dataset: TARGET,
              auto: false,
              also_include_naming_schema: [SCHEMA],
            },
          ],
        },
        ...CASES.flatMap((c) => [
          { label: `${c.method} bad`, method: c.method, params: c.bad, job: true },
          { label: c.method, method: c.method, params: c.valid, job: true },
        ]),
        // run's second argument: 25.10.1's `really_run: bool`, 26.0's `options: ReplicationRunOptions`
        // (MW/api/v25_10_1/replication.py:228-232; stable/26 MW/api/v26_0_0/replication.py:288-298).
        { label: 'run bad second argument', method: 'replication.run', params: [ref('task', 'id'), 'x'], job: true },
        // _validate's errors, raised inside the job (MW/plugins/replication.py:334-338, 360-365).
        {
          label: 'run_onetime invalid data',
          method: 'replication.run_onetime',
          params: [{ ...PUSH, target_dataset: ONETIME_TARGET }],
          job: true,
        },
        // A target with a snapshot the source lacks and no common one: zettarepl refuses it.
        {
          label: 'run_onetime refused',
          method: 'replication.run_onetime',
          params: [{ ...PUSH, target_dataset: TAKEN, also_include_naming_schema: [SCHEMA] }],
          job: true,
        },
        {
          label: 'arrived',
          method: 'pool.snapshot.query',
          params: [[['dataset', 'in', [TARGET, ONETIME_TARGET, TAKEN]]], { select: ['name'], order_by: ['name'] }],
        },
        {
          label: 'jobs',
          method: 'core.get_jobs',
          params: [[['method', 'in', ['replication.run', 'replication.run_onetime']]], { order_by: ['id'] }],
        },
        { label: 'state', method: 'replication.get_instance', params: [ref('task', 'id')] },
      ];
      const outcomes = await runClient(client.env, server.rpcUrl, server.adminKey, steps);
      for (const label of ['source', 'snapshot', 'taken snapshot', 'task'])
        expect(outcomes.get(label), label).toMatchObject({ ok: true });
      const { failures, answers } = caseFailures(contract, CASES, outcomes);
      expect(failures).toEqual([]);
      // Both jobs returned their result, None (ReplicationRunResult, ReplicationRunOnetimeResult).
      expect(answers['replication.run']).toBeNull();
      expect(answers['replication.run_onetime']).toBeNull();
      const arrived = JSON.parse(outcomes.get('arrived')!.json!) as { name: string }[];
      expect(arrived.map((s) => s.name)).toEqual([
        `${TARGET}@${SNAPSHOT}`,
        `${ONETIME_TARGET}@${SNAPSHOT}`,
        `${TAKEN}@other`,
      ]);

      expect(outcomes.get('run bad second argument')).toMatchObject({
        ok: false,
        class: 'ValidationErrors',
        stderr:
          release === '26.0'
            ? printed(['EINVAL', 'options', 'Input should be a valid dictionary or instance of ReplicationRunOptions'])
            : printed(['EINVAL', 'really_run', 'Input should be a valid boolean']),
      });
      // ValidationErrors from the job's exc_info (type VALIDATION, MW/job.py:632-635).
      expect(outcomes.get('run_onetime invalid data')).toMatchObject({
        ok: false,
        class: 'ValidationErrors',
        stderr: printed([
          'EINVAL',
          'replication_run_onetime.periodic_snapshot_tasks',
          'You must at least either bind a periodic snapshot task or provide "Also Include Naming Schema" or "Name Regex" for push replication task',
        ]),
      });
      // A CallError's job: the client's ClientException holds `error`, the trace its class.
      const refusal = `No incremental base on dataset '${SOURCE}' and replication from scratch is not allowed.`;
      expect(outcomes.get('run_onetime refused')).toMatchObject({
        ok: false,
        class: 'ClientException',
        errno: null,
        error: `[EFAULT] ${refusal}`,
        trace_class: 'CallError',
      });

      // The jobs as core.get_jobs keeps them: each successful run's last progress is its last
      // snapshot's start (zettarepl.py:466-477), then 100 when it ends (MW/job.py:577-578); each
      // failure's error and exc_info as MW/job.py:395-398, 624-650 encode them (`str(ValidationErrors)`
      // ends each error with a newline, MW/service_exception.py:84-88).
      const jobs = JSON.parse(outcomes.get('jobs')!.json!) as Record<string, unknown>[];
      const succeeded = jobs.filter((j) => j.state === 'SUCCESS');
      expect(succeeded.map((j) => [j.method, j.result, j.progress])).toEqual([
        ['replication.run', null, { percent: 100, description: `Sending 1 of 1: ${SOURCE}@${SNAPSHOT}`, extra: null }],
        [
          'replication.run_onetime',
          null,
          { percent: 100, description: `Sending 1 of 1: ${SOURCE}@${SNAPSHOT}`, extra: null },
        ],
      ]);
      const failed = jobs.filter((j) => j.state === 'FAILED');
      expect(failed.map((j) => [j.method, j.error, (j.exc_info as Record<string, unknown>).type])).toEqual([
        [
          'replication.run_onetime',
          '[EINVAL] replication_run_onetime.periodic_snapshot_tasks: You must at least either bind a periodic snapshot task or provide "Also Include Naming Schema" or "Name Regex" for push replication task\n',
          'VALIDATION',
        ],
        ['replication.run_onetime', `[EFAULT] ${refusal}`, 'CallError'],
      ]);
      // The stored task's state after its run (MW/plugins/zettarepl.py observer, zettarepl_/state.py).
      expect(JSON.parse(outcomes.get('state')!.json!)).toMatchObject({
        state: { state: 'FINISHED', last_snapshot: `${SOURCE}@${SNAPSHOT}` },
      });
    });

    it("midclt call -j prints the job's result once it ends, and the job's error with exit code 1 when it fails (truenas_api_client/__init__.py:1041-1091)", async (ctx) => {
      if ('reason' in client) return ctx.skip(client.reason);
      const server = await startTestServer(EMULATIONS[`truenas-${release}`]);
      const setup = await runClient(client.env, server.rpcUrl, server.adminKey, [
        { label: 'source', method: 'pool.dataset.create', params: [{ name: SOURCE }] },
        { label: 'snapshot', method: 'pool.snapshot.create', params: [{ dataset: SOURCE, name: SNAPSHOT }] },
        { label: 'taken', method: 'pool.dataset.create', params: [{ name: TAKEN }] },
        { label: 'taken snapshot', method: 'pool.snapshot.create', params: [{ dataset: TAKEN, name: 'other' }] },
      ]);
      expect([...setup.values()].every((o) => o.ok)).toBe(true);
      const call = (target: string) =>
        midclt(client.env, [
          '-u',
          server.rpcUrl,
          ...client.keyLogin(server.adminKey),
          'call',
          '-j',
          '-jp',
          'description',
          'replication.run_onetime',
          JSON.stringify({ ...PUSH, target_dataset: target, also_include_naming_schema: [SCHEMA] }),
        ]);
      const ran = await call(ONETIME_TARGET);
      expect([ran.code, ran.stdout]).toEqual([0, 'null\n']);
      const refused = await call(TAKEN);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr.split('\n')[0]).toBe(
        `[EFAULT] No incremental base on dataset '${SOURCE}' and replication from scratch is not allowed.`,
      );
    });
  });
}
