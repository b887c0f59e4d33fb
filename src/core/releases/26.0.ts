import { CONTRACT_26_0_0_OVERRIDES, CONTRACT_26_0_0_REMOVED } from '../contract/v26_0_0/index.js';
import { shippedCatalogue } from '../roles/index.js';
import { overriddenContract } from './overrides.js';
import type { Release } from './release.js';

let contract: ReturnType<typeof overriddenContract> | undefined;

/**
 * TrueNAS 26.0 as branch stable/26 has it at c61eb9a45f3a (2026-08-22, 26.0.0-RC.1, the newest 26 in the
 * mirror): every answer of `--emulate truenas-26.0` (its /api/versions, catalogue, contract and
 * checks) is read from that one commit, which is what "stable/26" means in this code's citations. 146 roles
 * (stable/26 MW/role.py); PRIVILEGE_WRITE includes PRIVILEGE_READ instead of itself from
 * 26.0.0-BETA.3 on (stable/26 MW/role.py:64); SYSTEM_PRODUCT_WRITE still includes itself (:248).
 */
export const release260: Release = {
  name: '26.0',
  source: 'c61eb9a45f3afb4fa9d0a33b6b2d9a9cf0e46f15',
  versionShort: '26.0.0-RC.1',
  version: 'TrueNAS-26.0.0-RC.1',
  // MW/api/ at stable/26: v24_10, v25_04_0…2, v25_10_0…5, v26_0_0.
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
    'v26.0.0',
  ],
  unlistedApiVersions: ['v24.10'],
  catalogue: () => shippedCatalogue('26.0'),
  contract: () => (contract ??= overriddenContract(CONTRACT_26_0_0_OVERRIDES, CONTRACT_26_0_0_REMOVED)),
  privilegeWriteIncludesItself: false,
  // SCRAM-SHA-512 key login (NAS-139570; stable/26 MW/api/v26_0_0/auth.py:136-183, MW/plugins/auth.py).
  keyLogin: 'scram',
  rootGroupRules: true,
  noSymlinkPaths: true,
  setPasswordRefusesUnknownUser: true,
  poolEntryAllSed: true,
  createChecksUserProperties: true,
  retentionNeedsIdOrLimit: false,
  snapshotActionsThroughZfsResource: true,
  getMethodsEntry: '26.0',
  joinUnionErrors: true,
  python: '3.13',
  // stable/26 MW/plugins/auth.py:585, 727, 757, 1039, 1074, 1087.
  cliPrivateMethods: [
    'auth.login',
    'auth.login_ex_continue',
    'auth.login_ex',
    'auth.login_with_api_key',
    'auth.login_with_token',
    'auth.logout',
  ],
};
