import { alertMethods } from './alert.js';
import { apiKeyMethods, apiKeyMethods26 } from './api-key.js';
import { authMethods, authMethods26 } from './auth.js';
import { coreMethods } from './core.js';
import { filesystemMethods } from './filesystem.js';
import { groupMethods } from './group.js';
import { keychainMethods } from './keychain.js';
import { nfsMethods } from './nfs.js';
import { poolMethods } from './pool.js';
import { poolDatasetMethods } from './pool-dataset.js';
import { poolSnapshotMethods } from './pool-snapshot.js';
import { poolSnapshotTaskMethods, poolSnapshotTaskMethods26 } from './pool-snapshottask.js';
import type { MethodDefinition } from '../method.js';
import { privilegeMethods } from './privilege.js';
import { replicationMethods, replicationMethods26 } from './replication.js';
import { sharingNfsMethods, sharingNfsMethods26 } from './sharing-nfs.js';
import { sharingSmbMethods, sharingSmbMethods26 } from './sharing-smb.js';
import { smbMethods, smbMethods26 } from './smb.js';
import { serviceNamespaceMethods } from './service-namespace.js';
import { systemMethods } from './system.js';
import { userMethods } from './user.js';

/**
 * The handler table: every method the emulated appliance answers, its contract and its handler,
 * one list per contract file. Only the dispatcher (rpc/dispatcher.ts) imports it; whatever else
 * needs a method's name, params or roles (core.get_methods, the allowlist a login composes,
 * core.download, /_upload/) reads the contract (`Appliance.contract`).
 */
export const METHODS: ReadonlyMap<string, MethodDefinition> = new Map(
  [
    ...coreMethods,
    ...authMethods,
    ...privilegeMethods,
    ...userMethods,
    ...groupMethods,
    ...apiKeyMethods,
    ...filesystemMethods,
    ...poolMethods,
    ...poolDatasetMethods,
    ...poolSnapshotMethods,
    ...poolSnapshotTaskMethods,
    ...replicationMethods,
    ...systemMethods,
    ...alertMethods,
    ...sharingNfsMethods,
    ...nfsMethods,
    ...sharingSmbMethods,
    ...smbMethods,
    ...serviceNamespaceMethods,
    ...keychainMethods,
  ].map((m) => [m.name, m]),
);

/**
 * Handlers written from a later release's own entry rather than 25.10.1's (26.0's SCRAM login:
 * contract/v26_0_0/auth.ts, api-key.ts; its sharing.nfs entries, sharing-nfs.ts), by method name. The dispatcher serves an entry of the
 * release's contract with the handler implemented from that very entry, here or in METHODS; an
 * entry no handler was implemented from gets 25.10.1's handler, adapted (dispatcher.ts `releaseMethod`).
 */
export const RELEASE_METHODS: ReadonlyMap<string, readonly MethodDefinition[]> = [
  ...authMethods26,
  ...apiKeyMethods26,
  ...sharingNfsMethods26,
  ...poolSnapshotTaskMethods26,
  ...replicationMethods26,
  ...sharingSmbMethods26,
  ...smbMethods26,
].reduce((byName, m) => byName.set(m.name, [...(byName.get(m.name) ?? []), m]), new Map<string, MethodDefinition[]>());
