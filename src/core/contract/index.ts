import type { z } from 'zod';
import { alertContract } from './alert.js';
import { apiKeyContract } from './api-key.js';
import { authContract } from './auth.js';
import type { MethodContract, ParamSpec } from './method.js';
import { coreContract } from './core.js';
import { groupContract } from './group.js';
import { keychainContract } from './keychain.js';
import { nfsContract } from './nfs.js';
import { filesystemContract } from './filesystem.js';
import { poolContract } from './pool.js';
import { poolDatasetContract } from './pool-dataset.js';
import { poolSnapshotContract } from './pool-snapshot.js';
import { poolSnapshotTaskContract } from './pool-snapshottask.js';
import { privilegeContract } from './privilege.js';
import { replicationConfigContract, replicationContract } from './replication.js';
import { sharingNfsContract } from './sharing-nfs.js';
import { sharingSmbContract } from './sharing-smb.js';
import { smbContract } from './smb.js';
import { serviceNamespaceContract } from './service-namespace.js';
import { systemContract } from './system.js';
import { userContract } from './user.js';

/**
 * THE contract: every method of the 25.10.1 API that stor serves or calls, with its params,
 * result and roles (`MW/api/v25_10_1/*.py`). The emulator implements it, the dispatcher validates
 * against it, and the typed client (`client.ts`) checks answers with it. Schemas only.
 */
export const CONTRACT = {
  ...coreContract,
  ...authContract,
  ...privilegeContract,
  ...userContract,
  ...groupContract,
  ...apiKeyContract,
  ...filesystemContract,
  ...poolContract,
  ...poolDatasetContract,
  ...poolSnapshotContract,
  ...poolSnapshotTaskContract,
  ...replicationContract,
  ...replicationConfigContract,
  ...systemContract,
  ...alertContract,
  ...sharingNfsContract,
  ...nfsContract,
  ...sharingSmbContract,
  ...smbContract,
  ...serviceNamespaceContract,
  ...keychainContract,
};

/**
 * The same methods by name, in that order (the order `core.get_methods` lists them in and a
 * session's allowlist holds them in): what the emulator reads to know a method's name, params
 * and roles. Only the dispatcher needs the handlers (appliance/methods/index.ts).
 */
export const CONTRACT_METHODS: ReadonlyMap<string, MethodContract> = new Map(
  Object.values(CONTRACT).map((c) => [c.name, c]),
);

export type MethodName = keyof typeof CONTRACT;
type ContractOf<M extends MethodName> = (typeof CONTRACT)[M];

/** What a method answers, as the client reads it. */
export type ResultOf<M extends MethodName> = z.output<ContractOf<M>['result']>;

/** The positional params a caller may send (each may be left out when it has a default). */
export type ParamsOf<M extends MethodName> =
  ContractOf<M> extends MethodContract<infer P>
    ? { [K in keyof P]?: P[K] extends ParamSpec ? z.input<P[K]['schema']> : never }
    : never;

/** Methods answering `query_result(Entry)`: a list, one item, or a count (a plain list is not one). */
export type QueryMethod = {
  [M in MethodName]: number extends ResultOf<M>
    ? [Extract<ResultOf<M>, readonly unknown[]>] extends [never]
      ? never
      : M
    : never;
}[MethodName];

/** One item of a query method's list. */
export type ItemOf<M extends QueryMethod> = Extract<ResultOf<M>, readonly unknown[]>[number];
