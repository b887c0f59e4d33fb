import { CONTRACT_METHODS } from '../contract/index.js';
import { shippedCatalogue } from '../roles/index.js';
import type { Release } from './release.js';

/** TrueNAS 25.10.1 (tag TS-25.10.1): the release stor's contract and seed were written from. */
export const release25101: Release = {
  name: '25.10.1',
  source: 'TS-25.10.1',
  versionShort: '25.10.1',
  version: 'TrueNAS-25.10.1',
  // MW/api/ at TS-25.10.1: v24_10, v25_04_0…2, v25_10_0, v25_10_1.
  apiVersions: ['v25.04.0', 'v25.04.1', 'v25.04.2', 'v25.10.0', 'v25.10.1'],
  unlistedApiVersions: ['v24.10'],
  catalogue: () => shippedCatalogue('25.10.1'),
  contract: () => CONTRACT_METHODS,
  // MW/role.py:62 `'PRIVILEGE_WRITE': Role(includes=['PRIVILEGE_WRITE'])`.
  privilegeWriteIncludesItself: true,
  keyLogin: 'plain',
  rootGroupRules: false,
  noSymlinkPaths: false,
  setPasswordRefusesUnknownUser: false,
  poolEntryAllSed: false,
  createChecksUserProperties: false,
  retentionNeedsIdOrLimit: true,
  snapshotActionsThroughZfsResource: false,
  getMethodsEntry: '25.10',
  joinUnionErrors: false,
  python: '3.11',
  // MW/plugins/auth.py:680 (the same line at TS-25.10.6 and release/25.10.7).
  cliPrivateMethods: ['auth.login_ex'],
};
