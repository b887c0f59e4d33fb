/**
 * sharing.nfs.* and nfs.config/update through the official client (`truenas_api_client.Client.call`,
 * as `midclt call` calls them) against `stor serve --emulate truenas-25.10.1` and `truenas-26.0`:
 * each method once with a valid argument, whose answer must be what the release's result schema
 * accepts, and once with an invalid one, which must fail as midclt prints the release's error
 * (ValidationErrors: `[EINVAL] attribute: message`, truenas_api_client/exc.py:88-109). The words
 * are SharingNFSService's and NFSService's (MW/plugins/nfs.py:337-342, 535-658;
 * MW/plugins/nfs_/validators.py:23-89; MW/service/crud_service.py:242). The calls run in one Python
 * process (conformance/official-client-methods.py), in order: the dataset and the share later
 * calls need are made first.
 *
 * Needs STOR_TEST_API_CLIENT (see official-client-methods.test.ts); without it the test is skipped.
 */
import { describe, expect, it } from 'vitest';
import { EMULATIONS } from '../../src/core/appliance/settings.js';
import { contractFor } from '../../src/core/releases/index.js';
import { startTestServer } from '../helpers/server.js';
import { NFS_METHODS, caseFailures, findClient, runClient, type ClientCase } from '../conformance/official-client.js';

const client = findClient();

/** An earlier call's result (or a field of it), filled in by the runner. */
const ref = (label: string, ...path: (string | number)[]) => ({ $ref: label, path });

/** What midclt prints for a -32602, one `[ERRNAME] attribute: message` line per error. */
const printed = (...lines: [errname: string, attribute: string, message: string][]) =>
  lines.map(([errname, a, m]) => `[${errname}] ${a}: ${m}`).join('\n');

const PATH = '/mnt/tank/nfs-official';

/** In call order; each bad call runs just before its valid one. */
const CASES: ClientCase[] = [
  {
    method: 'nfs.config',
    valid: [],
    bad: [1],
    stderr: printed(['EINVAL', 'ALL', 'Too many arguments (expected 0, found 1)']),
  },
  {
    method: 'nfs.update',
    valid: [{ allow_nonroot: true }],
    bad: [{ protocols: [] }],
    stderr: printed([
      'EINVAL',
      'nfs_update.protocols',
      'Must specify at least one value ("NFSV3", "NFSV4") in the "protocols" list.',
    ]),
  },
  {
    method: 'sharing.nfs.create',
    valid: [{ path: PATH, networks: ['10.0.0.0/24'], hosts: ['192.0.2.7'] }],
    bad: [{ path: PATH, networks: ['10.0.0.0/33'] }],
    stderr: printed([
      'EINVAL',
      'sharingnfs_create.networks',
      'The following do not appear to be valid IPv4 or IPv6 networks: 10.0.0.0/33',
    ]),
  },
  {
    method: 'sharing.nfs.query',
    valid: [[['path', '=', PATH]]],
    bad: ['x'],
    stderr: printed(['EINVAL', 'filters', 'Input should be a valid list']),
  },
  {
    method: 'sharing.nfs.get_instance',
    valid: [ref('sharing.nfs.create', 'id')],
    bad: ['x'],
    stderr: printed(['EINVAL', 'id', 'Input should be a valid integer']),
  },
  {
    method: 'sharing.nfs.update',
    valid: [ref('sharing.nfs.create', 'id'), { comment: 'through midclt' }],
    bad: [ref('sharing.nfs.create', 'id'), { hosts: ['a b'] }],
    stderr: printed(['EINVAL', 'sharingnfs_update.hosts', 'Cannot contain spaces or quotes: a b']),
  },
  {
    method: 'sharing.nfs.delete',
    valid: [ref('sharing.nfs.create', 'id')],
    bad: [99999],
    stderr: printed(['ENOENT', 'ALL', 'SharingNFS 99999 does not exist']),
  },
];

for (const release of ['25.10.1', '26.0'] as const) {
  describe(`sharing.nfs.* and nfs.* through the official client (stor serve --emulate truenas-${release})`, () => {
    it('the table calls every NFS method once', () => {
      expect(CASES.map((c) => c.method).sort()).toEqual([...NFS_METHODS].sort());
    });

    it("each valid call answers the release's result shape; each invalid one fails with its words as midclt prints them", async (ctx) => {
      if ('reason' in client) return ctx.skip(client.reason);
      const contract = contractFor(release);
      const server = await startTestServer(EMULATIONS[`truenas-${release}`]);
      const steps = [
        { label: 'dataset', method: 'pool.dataset.create', params: [{ name: PATH.slice('/mnt/'.length) }] },
        ...CASES.flatMap((c) => [
          { label: `${c.method} bad`, method: c.method, params: c.bad },
          { label: c.method, method: c.method, params: c.valid },
        ]),
      ];
      const outcomes = await runClient(client.env, server.rpcUrl, server.adminKey, steps);
      expect(outcomes.get('dataset')?.ok).toBe(true);
      const { failures, answers } = caseFailures(contract, CASES, outcomes);
      expect(failures).toEqual([]);
      expect(answers['nfs.update']).toMatchObject({ allow_nonroot: true, protocols: ['NFSV3', 'NFSV4'] });
      expect(answers['sharing.nfs.query']).toMatchObject([{ path: PATH, networks: ['10.0.0.0/24'], locked: false }]);
      expect(answers['sharing.nfs.update']).toMatchObject({ comment: 'through midclt', hosts: ['192.0.2.7'] });
      expect(answers['sharing.nfs.delete']).toBe(true);
      if (release === '26.0')
        expect(answers['sharing.nfs.get_instance']).toMatchObject({
          dataset: 'tank/nfs-official',
          relative_path: '',
          tier: null,
        });
    });
  });
}
