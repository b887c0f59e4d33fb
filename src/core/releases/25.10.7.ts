import { CONTRACT_METHODS } from '../contract/index.js';
import { shippedCatalogue } from '../roles/index.js';
import type { Release } from './release.js';

/**
 * TrueNAS 25.10.7 (branch release/25.10.7; no tag in the mirror). Its role.py is 25.10.1's
 * (`git diff TS-25.10.1 release/25.10.7 -- MW/role.py` is empty), so is the catalogue, PRIVILEGE_WRITE
 * included (release/25.10.7 MW/role.py:62). Its newest API is v25_10_5 (there is no v25_10_6);
 * the methods stor serves answer as 25.10.1's, so the contract is 25.10.1's.
 */
export const release25107: Release = {
  name: '25.10.7',
  source: 'release/25.10.7',
  versionShort: '25.10.7',
  version: 'TrueNAS-25.10.7',
  // MW/api/ at release/25.10.7: v24_10, v25_04_0…2, v25_10_0…5.
  apiVersions: ['v25.04.0', 'v25.04.1', 'v25.04.2', 'v25.10.0', 'v25.10.1', 'v25.10.2', 'v25.10.3', 'v25.10.4', 'v25.10.5'],
  unlistedApiVersions: ['v24.10'],
  catalogue: () => shippedCatalogue('25.10.1'),
  contract: () => CONTRACT_METHODS,
  privilegeWriteIncludesItself: true,
  keyLogin: 'plain',
  rootGroupRules: true,
  noSymlinkPaths: false,
  setPasswordRefusesUnknownUser: false,
};
