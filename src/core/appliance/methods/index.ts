import { apiKeyMethods } from './api-key.js';
import { authMethods } from './auth.js';
import { coreMethods } from './core.js';
import { filesystemMethods } from './filesystem.js';
import { groupMethods } from './group.js';
import { poolDatasetMethods } from './pool-dataset.js';
import { poolSnapshotMethods } from './pool-snapshot.js';
import type { MethodDefinition } from '../method.js';
import { privilegeMethods } from './privilege.js';
import { systemMethods } from './system.js';
import { userMethods } from './user.js';

/**
 * THE method table: every method the emulated appliance answers, with its params schema, who may
 * call it and its handler. Dispatch, authorization, validation and `stor call --help` all read it.
 */
export const METHODS: ReadonlyMap<string, MethodDefinition> = new Map(
  [...coreMethods, ...authMethods, ...privilegeMethods, ...userMethods, ...groupMethods, ...apiKeyMethods, ...filesystemMethods, ...poolDatasetMethods, ...poolSnapshotMethods, ...systemMethods].map((m) => [
    m.name,
    m,
  ]),
);
