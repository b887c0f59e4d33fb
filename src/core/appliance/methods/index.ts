import { apiKeyMethods } from './api-key.js';
import { authMethods } from './auth.js';
import { coreMethods } from './core.js';
import { filesystemMethods } from './filesystem.js';
import { groupMethods } from './group.js';
import { poolMethods } from './pool.js';
import { poolDatasetMethods } from './pool-dataset.js';
import { poolSnapshotMethods } from './pool-snapshot.js';
import type { MethodDefinition } from '../method.js';
import { privilegeMethods } from './privilege.js';
import { systemMethods } from './system.js';
import { userMethods } from './user.js';

/**
 * The handler table: every method the emulated appliance answers, its contract and its handler,
 * one list per contract file. Only the dispatcher (rpc/dispatcher.ts) imports it; whatever else
 * needs a method's name, params or roles (core.get_methods, the allowlist a login composes,
 * core.download, /_upload/) reads the contract (`Appliance.contract`).
 */
export const METHODS: ReadonlyMap<string, MethodDefinition> = new Map(
  [...coreMethods, ...authMethods, ...privilegeMethods, ...userMethods, ...groupMethods, ...apiKeyMethods, ...filesystemMethods, ...poolMethods, ...poolDatasetMethods, ...poolSnapshotMethods, ...systemMethods].map((m) => [
    m.name,
    m,
  ]),
);
