/**
 * The service.* methods through the official client (truenas_api_client.Client, as `midclt call`
 * calls them) against `stor serve --emulate truenas-25.10.1` and `truenas-26.0`: every service.*
 * method of the release's contract once with an invalid argument, then once with a valid one, in
 * the table's order (a service is started before `started` asks). A valid call must answer what
 * the contract's result schema accepts (and what the table says); an invalid one must fail as midclt
 * prints the release's error: the model's ValidationErrors (MW/api/v25_10_1/service.py), or the
 * method's own refusal (MW/plugins/service.py).
 *
 * Needs STOR_TEST_API_CLIENT (../shared/vendor/README.md); without it the test is skipped, saying why.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../src/core/appliance/settings.js';
import { contractViolations } from '../../src/core/contract/conformance.js';
import { contractFor, type ReleaseName } from '../../src/core/releases/index.js';
import { startTestServer } from '../helpers/server.js';
import { findClient, runClient, type Outcome } from '../conformance/official-client.js';

const client = findClient();

/** midclt's lines for a -32602 (truenas_api_client/exc.py:88-109). */
const invalid = (attribute: string, message: string) => ({
  class: 'ValidationErrors',
  stderr: `[EINVAL] ${attribute}: ${message}`,
});
/** A CallError or another exception: its reason first (truenas_api_client/__init__.py:1083-1091). */
const refused = (errno: number, reason: string) => ({ class: 'ClientException', errno, reason });
type Expected = ReturnType<typeof invalid> | ReturnType<typeof refused>;

interface Case {
  method: string;
  bad: unknown[];
  error: Expected;
  valid: unknown[];
  answers?: unknown;
  job?: boolean;
  /** 25.10.1 only: 26.0 made start, stop, restart and reload private (stable/26 MW/plugins/service.py:162-413). */
  only?: ReleaseName;
}

const notAString = invalid('service', 'Input should be a valid string');

const CASES: Case[] = [
  { method: 'service.query', bad: ['x'], error: invalid('filters', 'Input should be a valid list'), valid: [] },
  { method: 'service.get_instance', bad: ['x'], error: invalid('id', 'Input should be a valid integer'), valid: [9] },
  // MW/api/v25_10_1/service.py:38-40, 128-137: answers the id.
  {
    method: 'service.update',
    bad: ['nfs', { enable: 'yes' }],
    error: invalid('service_update.enable', 'Input should be a valid boolean'),
    valid: ['nfs', { enable: true }],
    answers: 9,
  },
  // MW/api/v25_10_1/service.py:43-57: a job (MW/plugins/service.py:157).
  {
    method: 'service.control',
    bad: ['BOUNCE', 'nfs'],
    error: invalid('verb', "Input should be 'START', 'STOP', 'RESTART' or 'RELOAD'"),
    valid: ['START', 'nfs'],
    answers: true,
    job: true,
  },
  { method: 'service.started', bad: [9], error: notAString, valid: ['nfs'], answers: true },
  { method: 'service.started_or_enabled', bad: [9], error: notAString, valid: ['ssh'], answers: false },
  {
    method: 'service.start',
    bad: ['cifs', { quiet: true }],
    error: invalid('options.quiet', 'Extra inputs are not permitted'),
    valid: ['cifs'],
    answers: true,
    only: '25.10.1',
  },
  { method: 'service.restart', bad: [4], error: notAString, valid: ['cifs'], answers: true, only: '25.10.1' },
  { method: 'service.reload', bad: [4], error: notAString, valid: ['cifs'], answers: true, only: '25.10.1' },
  { method: 'service.stop', bad: [4], error: notAString, valid: ['cifs'], answers: true, only: '25.10.1' },
];

/** Arguments a method refuses itself, in its own words. */
const REFUSALS: { method: string; args: unknown[]; error: Expected }[] = [
  // MW/plugins/service.py:133-134
  {
    method: 'service.update',
    args: ['nosuch', { enable: true }],
    error: refused(2, '[ENOENT] Service nosuch not found.'),
  },
  // MW/plugins/service.py:424-429: MatchNotFound(name), its text the name.
  { method: 'service.started', args: ['nosuch'], error: refused(22, 'nosuch') },
];

for (const release of ['25.10.1', '26.0'] as const) {
  describe(`service.* through the official client (stor serve --emulate truenas-${release})`, () => {
    const contract = contractFor(release);
    const cases = CASES.filter((c) => !c.only || c.only === release);

    it("the table covers the release's service.* methods, and only them", () => {
      const methods = [...contract.keys()].filter((m) => m.startsWith('service.'));
      expect(cases.map((c) => c.method).sort()).toEqual(methods.sort());
    });

    it("each valid call answers the release's result; each invalid one fails with its error as midclt prints it", async (ctx) => {
      if ('reason' in client) return ctx.skip(client.reason);
      const server = await startTestServer(EMULATIONS[`truenas-${release}`]);
      const steps = [
        ...cases.flatMap((c) => [
          { label: `${c.method} bad`, method: c.method, params: c.bad, job: c.job },
          { label: c.method, method: c.method, params: c.valid, job: c.job },
        ]),
        ...REFUSALS.map((r) => ({ label: `${r.method} refused`, method: r.method, params: r.args })),
      ];
      const outcomes = await runClient(client.env, server.rpcUrl, server.adminKey, steps);
      const failures: string[] = [];
      const check = (call: string, got: Outcome | undefined, want: Expected) => {
        const shown = got?.ok ? `answered ${got.json}` : (got?.stderr ?? 'no outcome');
        const same =
          got !== undefined &&
          !got.ok &&
          got.class === want.class &&
          ('reason' in want
            ? got.errno === want.errno && got.stderr!.startsWith(want.reason)
            : got.stderr === want.stderr);
        if (!same) failures.push(`${call}: want ${JSON.stringify(want)}, got ${got?.class} ${got?.errno}: ${shown}`);
      };
      for (const c of cases) {
        const good = outcomes.get(c.method);
        if (!good?.ok) failures.push(`${c.method} ${JSON.stringify(c.valid)}: ${good?.stderr ?? 'no outcome'}`);
        else {
          const result: unknown = JSON.parse(good.json!);
          const violations = contractViolations(contract.get(c.method)!.result, result);
          if (violations.length) failures.push(`${c.method} result: ${violations.join('; ')}`);
          if (c.answers !== undefined && JSON.stringify(result) !== JSON.stringify(c.answers))
            failures.push(`${c.method} answered ${good.json}, not ${JSON.stringify(c.answers)}`);
        }
        check(`${c.method} ${JSON.stringify(c.bad)}`, outcomes.get(`${c.method} bad`), c.error);
      }
      for (const r of REFUSALS)
        check(`${r.method} ${JSON.stringify(r.args)}`, outcomes.get(`${r.method} refused`), r.error);
      expect(failures).toEqual([]);
    });
  });
}
