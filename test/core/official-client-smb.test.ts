/**
 * sharing.smb.* and smb.config/update through the official client (`truenas_api_client.Client.call`,
 * as `midclt call` calls it, truenas/api_client at TS-25.10.1) against `stor serve --emulate
 * truenas-25.10.1` and `truenas-26.0`: each method once with a valid argument, whose answer must be
 * what the release's result schema accepts, and once with an invalid one, which must fail with the
 * release's error as midclt prints it (MW/plugins/smb.py, MW/api/v25_10_1/smb.py). The share's
 * directory and an SMB user (share_precheck wants one, MW/plugins/smb.py:1358-1369) are made first.
 *
 * Needs STOR_TEST_API_CLIENT (../shared/vendor/README.md); without it the test is skipped, saying why.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../src/core/appliance/settings.js';
import { contractViolations } from '../../src/core/contract/conformance.js';
import { contractFor } from '../../src/core/releases/index.js';
import { startTestServer } from '../helpers/server.js';
import { findClient, runClient } from '../conformance/official-client.js';

const client = findClient();

const ref = (label: string, ...path: (string | number)[]) => ({ $ref: label, path });
/** midclt's lines for a -32602 (truenas_api_client/exc.py:88-109). */
const invalid = (...pairs: [string, string][]) => pairs.map(([a, m]) => `[EINVAL] ${a || 'ALL'}: ${m}`).join('\n');
const notFound = (message: string) => `[ENOENT] ALL: ${message}`;

/** In call order: the share is made before the calls that read it and deleted last. */
const CASES: { method: string; valid: unknown[]; bad: unknown[]; error: string }[] = [
  { method: 'smb.config', valid: [], bad: [1], error: invalid(['', 'Too many arguments (expected 0, found 1)']) },
  {
    method: 'smb.update',
    valid: [{ description: 'Rehearsal' }],
    bad: [{ guest: 'root' }],
    error: invalid(['smb_update.guest', '"root" is not a permitted guest account']),
  },
  {
    method: 'sharing.smb.presets',
    valid: [],
    bad: [1],
    error: invalid(['', 'Too many arguments (expected 0, found 1)']),
  },
  {
    method: 'sharing.smb.share_precheck',
    valid: [{ name: 'docs' }],
    bad: [{ name: 'homes' }],
    error: invalid(['smb_share_precheck.name', 'Value error, homes: share name is reserved.']),
  },
  {
    method: 'sharing.smb.create',
    valid: [{ name: 'docs', path: '/mnt/tank/smbdocs' }],
    bad: [{ name: 'docs', path: '/mnt' }],
    error: invalid(['sharingsmb_create.path', 'The path must reside within a pool mount point']),
  },
  { method: 'sharing.smb.query', valid: [], bad: ['x'], error: invalid(['filters', 'Input should be a valid list']) },
  {
    method: 'sharing.smb.get_instance',
    valid: [ref('sharing.smb.create', 'id')],
    bad: [99999],
    error: notFound('SharingSMB 99999 does not exist'),
  },
  {
    method: 'sharing.smb.update',
    valid: [ref('sharing.smb.create', 'id'), { comment: 'team' }],
    bad: [ref('sharing.smb.create', 'id'), { options: {} }],
    error: invalid(['data', 'Value error, You must set `purpose` if you set `options`.']),
  },
  {
    method: 'sharing.smb.getacl',
    valid: [{ share_name: 'docs' }],
    bad: [{ share_name: 'nope' }],
    error: invalid(['sharing_smb_getacl.share_name', 'Share does not exist']),
  },
  {
    method: 'sharing.smb.setacl',
    valid: [{ share_name: 'docs', share_acl: [{ ae_who_sid: 'S-1-1-0', ae_perm: 'READ', ae_type: 'ALLOWED' }] }],
    bad: [{ share_name: 'nope', share_acl: [] }],
    error: invalid(['smb_share_acl.share_name', 'Share does not exist']),
  },
  {
    method: 'sharing.smb.delete',
    valid: [ref('sharing.smb.create', 'id')],
    bad: [99999],
    error: notFound('SharingSMB 99999 does not exist'),
  },
];

for (const release of ['25.10.1', '26.0'] as const) {
  describe(`sharing.smb.* and smb.* through the official client (stor serve --emulate truenas-${release})`, () => {
    it("each valid call answers the release's result shape; each invalid one fails with the release's error as midclt prints it", async (ctx) => {
      if ('reason' in client) return ctx.skip(client.reason);
      const server = await startTestServer(EMULATIONS[`truenas-${release}`]);
      mkdirSync(join(server.stateDir, 'mnt', 'tank', 'smbdocs'));
      const t = server.testAppliance;
      await t.call(t.admin, 'user.create', {
        username: 'smbuser',
        full_name: 'SMB user',
        group_create: true,
        password: 'Midclt horse-battery 3',
        smb: true,
      });
      const steps = CASES.flatMap((c) => [
        { label: `${c.method} bad`, method: c.method, params: c.bad },
        { label: c.method, method: c.method, params: c.valid },
      ]);
      const outcomes = await runClient(client.env, server.rpcUrl, server.adminKey, steps);
      const contract = contractFor(release);
      const failures: string[] = [];
      for (const c of CASES) {
        const good = outcomes.get(c.method);
        if (!good?.ok) failures.push(`${c.method} ${JSON.stringify(c.valid)}: ${good?.stderr ?? 'no outcome'}`);
        else {
          const violations = contractViolations(contract.get(c.method)!.result, JSON.parse(good.json!));
          if (violations.length) failures.push(`${c.method} result: ${violations.join('; ')}`);
        }
        const bad = outcomes.get(`${c.method} bad`);
        if (!bad || bad.ok || bad.class !== 'ValidationErrors' || bad.stderr !== c.error)
          failures.push(
            `${c.method} ${JSON.stringify(c.bad)}: want ${c.error}, got ${bad?.class}: ${bad?.stderr ?? bad?.json}`,
          );
      }
      expect(failures).toEqual([]);
    });
  });
}

/**
 * smb.update's filemask is `UnixPerm | Literal['DEFAULT']` on both (MW/api/v25_10_1/smb.py:160-163,
 * stable/26 MW/api/v26_0_0/smb.py:229): 25.10.1 lists each member's error under its tag
 * (TS-25.10.1 MW/api/base/handler/accept.py:70-84); 26.0 joins both, their tags having brackets,
 * under `filemask`, after the others (stable/26 MW/api/base/handler/accept.py:112-133).
 */
const MASK_ERRORS = {
  '25.10.1': invalid(
    [
      'smb_update.filemask.function-after[validate_unix_perm(), str]',
      'Value error, Please supply a value between 000 and 777',
    ],
    ["smb_update.filemask.literal['DEFAULT']", "Input should be 'DEFAULT'"],
    ['smb_update.ntlmv1_auth', 'Input should be a valid boolean'],
  ),
  '26.0': invalid(
    ['smb_update.ntlmv1_auth', 'Input should be a valid boolean'],
    ['smb_update.filemask', "Value error, Please supply a value between 000 and 777 or Input should be 'DEFAULT'"],
  ),
};

for (const release of ['25.10.1', '26.0'] as const) {
  it(`smb.update's union errors through the official client as truenas-${release} words them`, async (ctx) => {
    if ('reason' in client) return ctx.skip(client.reason);
    const server = await startTestServer(EMULATIONS[`truenas-${release}`]);
    const outcomes = await runClient(client.env, server.rpcUrl, server.adminKey, [
      { label: 'bad', method: 'smb.update', params: [{ filemask: '0o1777', ntlmv1_auth: 'x' }] },
    ]);
    const bad = outcomes.get('bad');
    expect([bad?.class, bad?.stderr]).toEqual(['ValidationErrors', MASK_ERRORS[release]]);
  });
}
