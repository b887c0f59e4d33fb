import { CONTRACT_METHODS } from '../contract/index.js';
import { shippedCatalogue } from '../roles/index.js';
import type { Release } from './release.js';

/**
 * TrueNAS 25.10.6 (tag TS-25.10.6), the newest 25.10 tag. Its role.py is 25.10.1's
 * (`git diff TS-25.10.1 TS-25.10.6 -- MW/role.py` is empty), so is the catalogue; the methods stor
 * serves answer as 25.10.1's but for the root user's group rules, which came in 25.10.2
 * (MW/plugins/account.py:1634-1658, 2439-2451, 2485-2494; account.py is the same file on release/25.10.7).
 */
export const release25106: Release = {
  name: '25.10.6',
  source: 'TS-25.10.6',
  versionShort: '25.10.6',
  version: 'TrueNAS-25.10.6',
  // MW/api/ at TS-25.10.6: v24_10, v25_04_0…2, v25_10_0…5.
  apiVersions: [
    'v25.04.0',
    'v25.04.1',
    'v25.04.2',
    'v25.10.0',
    'v25.10.1',
    'v25.10.2',
    'v25.10.3',
    'v25.10.4',
    'v25.10.5',
  ],
  unlistedApiVersions: ['v24.10'],
  catalogue: () => shippedCatalogue('25.10.1'),
  contract: () => CONTRACT_METHODS,
  privilegeWriteIncludesItself: true,
  keyLogin: 'plain',
  rootGroupRules: true,
  noSymlinkPaths: false,
  setPasswordRefusesUnknownUser: false,
  poolEntryAllSed: false,
  createChecksUserProperties: false,
  retentionNeedsIdOrLimit: true,
  snapshotActionsThroughZfsResource: false,
  getMethodsEntry: '25.10',
  joinUnionErrors: false,
  python: '3.11',
  cliPrivateMethods: ['auth.login_ex'], // MW/plugins/auth.py:680
};
