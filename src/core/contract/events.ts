/**
 * The events of the 25.10.1 API that stor serves: who may subscribe to each with `core.subscribe`.
 * Schemas of the events' fields are those of the methods (a `<namespace>.query` event carries
 * query entries); what sends them is the emulator's (appliance/crud-events.ts).
 */
export interface EventContract {
  name: string;
  /**
   * The roles registered for the event (`Events.register` → `RoleManager.register_event`,
   * MW/event.py:18-22, MW/role.py:333-334): a session holding one of them (or one including it)
   * gets `{method: 'SUBSCRIBE', resource: name}` in its allowlist (MW/role.py:367-381).
   */
  roles: readonly string[];
  /** Any logged-in session may subscribe (`no_authz_required`, MW/main.py:926-939). */
  noAuthzRequired?: boolean;
}

/**
 * A CRUDService with an entry registers `<namespace>.query`, for `<role_prefix>_READ`
 * (MW/service/crud_service.py:113-133; `event_register` defaults to true, MW/service/base.py:19).
 */
const crudEvent = (namespace: string, rolePrefix: string): EventContract => ({
  name: `${namespace}.query`,
  roles: [`${rolePrefix}_READ`],
});

export const CONTRACT_EVENTS: ReadonlyMap<string, EventContract> = new Map(
  [
    // MW/job.py:99-102
    { name: 'core.get_jobs', roles: [], noAuthzRequired: true },
    // role_prefix: MW/plugins/account.py:241, 1906; account_/privilege.py:51; api_key.py:44;
    // pool_/dataset.py:42; pool_/snapshot.py:17.
    // MW/plugins/auth.py:1343: sent at each login and logout of a listed connection (auth.py:158, 179).
    { name: 'auth.sessions', roles: ['FULL_ADMIN'] },
    crudEvent('user', 'ACCOUNT'),
    crudEvent('group', 'ACCOUNT'),
    crudEvent('privilege', 'PRIVILEGE'),
    crudEvent('api_key', 'API_KEY'),
    crudEvent('pool.dataset', 'DATASET'),
    crudEvent('pool.snapshot', 'SNAPSHOT'),
    // MW/plugins/snapshot.py:50; also sent at each change of a task's state (:385-388).
    crudEvent('pool.snapshottask', 'SNAPSHOT_TASK'),
    // MW/plugins/replication.py:123; also sent at each change of a task's state (:681-684).
    crudEvent('replication', 'REPLICATION_TASK'),
    // MW/plugins/nfs.py:438
    crudEvent('sharing.nfs', 'SHARING_NFS'),
    // MW/plugins/smb.py:724
    crudEvent('sharing.smb', 'SHARING_SMB'),
    // MW/plugins/service.py:41; sent by notify_running (:436-443), not by the CRUD wrapper.
    crudEvent('service', 'SERVICE'),
    // MW/plugins/keychain.py:280
    crudEvent('keychaincredential', 'KEYCHAIN_CREDENTIAL'),
    // MW/plugins/alert.py:234-246: ADDED/CHANGED/REMOVED of alert.list's entries.
    { name: 'alert.list', roles: ['ALERT_LIST_READ'] },
  ].map((e) => [e.name, e]),
);
