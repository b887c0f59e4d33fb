import { release25106 } from './25.10.6.js';
import type { Release } from './release.js';

/**
 * TrueNAS 25.10.7 (branch release/25.10.7; no tag in the mirror): 25.10.6 under another version.
 * Its role.py is 25.10.1's (`git diff TS-25.10.1 release/25.10.7 -- MW/role.py` is empty), so is the
 * catalogue, PRIVILEGE_WRITE included (release/25.10.7 MW/role.py:62); its account.py is
 * TS-25.10.6's (root's group rules), its newest API v25_10_5 as there (there is no v25_10_6); the
 * methods stor serves answer as 25.10.1's.
 */
export const release25107: Release = {
  ...release25106,
  name: '25.10.7',
  source: 'release/25.10.7',
  versionShort: '25.10.7',
  version: 'TrueNAS-25.10.7',
};
