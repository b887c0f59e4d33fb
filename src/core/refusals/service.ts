import { ERRNO, rpcErrors, type RpcError } from '../errors.js';
import { pyRepr } from '../python-repr.js';

/**
 * How the service.* methods refuse, errno and text as 25.10.1 (and 26.0) word them: the emulator
 * throws these (src/core/appliance/methods/service-namespace.ts), and `stor service start|stop|
 * enable|disable --dry-run` predicts the same from reads (src/commands/service/model.ts).
 */

/** What a caller asks of a service: one of control's verbs, lower-cased, or update. */
export type ServiceAction = 'start' | 'stop' | 'restart' | 'reload' | 'update';

/** The sharing role that lets a session change its own service (MW/plugins/service_/utils.py:5-10). */
const SERVICE_WRITE_ROLE: Readonly<Record<string, string>> = {
  CIFS: 'SHARING_SMB_WRITE',
  NFS: 'SHARING_NFS_WRITE',
  ISCSITARGET: 'SHARING_ISCSI_WRITE',
  FTP: 'SHARING_FTP_WRITE',
  NVMET: 'SHARING_NVME_TARGET_WRITE',
};

/**
 * `app_has_write_privilege_for_service` (MW/plugins/service_/utils.py:13-38) for a user session
 * (every login is one, MW/auth.py:56-82, 137-191): FULL_ADMIN, SERVICE_WRITE, or the sharing role
 * of that very service, among the session's effective roles.
 */
export function mayChangeService(hasRole: (role: string) => boolean, service: string): boolean {
  if (hasRole('FULL_ADMIN') || hasRole('SERVICE_WRITE')) return true;
  const role = SERVICE_WRITE_ROLE[service.toUpperCase()];
  return role !== undefined && hasRole(role);
}

export const serviceRefusal = {
  /**
   * A name no service object has: `service.object` raises `MatchNotFound(name)`
   * (MW/plugins/service.py:424-429), answered as any exception, its text the name
   * (MW/api/base/server/ws_handler/rpc.py:378-391: `str(error) or repr(error)`).
   */
  unknown: (name: string): RpcError => {
    const repr = `MatchNotFound(${pyRepr(name)})`;
    return rpcErrors.exception('MatchNotFound', name || repr, repr);
  },

  /** service.update of an id or name with no record (MW/plugins/service.py:133-134). */
  notFound: (idOrName: number | string): RpcError =>
    rpcErrors.call(ERRNO.ENOENT, `Service ${String(idOrName)} not found.`),

  /**
   * A session whose role lets it past the dispatcher but not to this service. 25.10.1 checks in
   * each method, with its own words: start :177-178, stop :267-268 (no errno: EFAULT), restart
   * :315-316, reload :387-388 (which says "restart"), update :138-139. 26.0 checks once in control,
   * `to {verb.lower()} service` with EPERM (stable/26 MW/plugins/service.py:157-159).
   */
  lacksPrivilege: (service: string, action: ServiceAction, release26: boolean): RpcError => {
    if (release26 || action === 'update' || action === 'start' || action === 'restart')
      return rpcErrors.call(ERRNO.EPERM, `${service}: authenticated session lacks privilege to ${action} service`);
    if (action === 'stop')
      return rpcErrors.call(ERRNO.EFAULT, `${service}: authenticated session lacks privilege to stop service`);
    return rpcErrors.call(ERRNO.EPERM, `${service}: authenticated session lacks privilege to restart service`);
  },
};
