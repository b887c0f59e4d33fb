import { cpus } from 'node:os';
import { nfsContract, type NfsEntry, type NfsUpdate } from '../../contract/nfs.js';
import { ERRNO, rpcErrors, type ValidationTriple } from '../../errors.js';
import { readNfsConfig, writeNfsConfig, type NfsConfigRecord } from '../../store/shares-nfs.js';
import type { Db } from '../../store/store.js';
import { implement } from '../method.js';

// The handlers of contract/nfs.ts, as NFSService answers them (MW/plugins/nfs.py:85-406). The
// settings are stored; no NFS server runs, so none of them takes effect (docs/RELEASES.md "What the
// emulator serves, and what it does not").

/**
 * `nfs_extend` (MW/plugins/nfs.py:187-208) of the stored row: `servers` unset is managed, as many
 * nfsd as the machine has cores (1 … 32, `system.cpu_info`'s core_count); no Kerberos keytab, so
 * v4_krb_enabled is v4_krb; `rdma` only on an enterprise system, which the emulator is not.
 */
function configEntry(c: NfsConfigRecord): NfsEntry {
  const managed = c.servers === null;
  return {
    id: 1,
    servers: managed ? Math.min(Math.max(cpus().length, 1), 32) : c.servers,
    allow_nonroot: c.allow_nonroot,
    protocols: c.protocols,
    v4_krb: c.v4_krb,
    v4_domain: c.v4_domain,
    bindip: c.bindip,
    mountd_port: c.mountd_port,
    rpcstatd_port: c.rpcstatd_port,
    rpclockd_port: c.rpclockd_port,
    mountd_log: c.mountd_log,
    statd_lockd_log: c.statd_lockd_log,
    v4_krb_enabled: c.v4_krb,
    userd_manage_gids: c.userd_manage_gids,
    keytab_has_nfs_spn: false,
    managed_nfsd: managed,
    rdma: false,
  };
}

/**
 * do_update (MW/plugins/nfs.py:260-406), its checks in order. Not emulated: the port conflicts
 * `port.validate_port` finds with other services' ports (:358-360; no other service runs) and the
 * HA and directory-service Kerberos rules (:362-384; no failover, no directory service).
 */
function updateConfig(db: Db, data: NfsUpdate): NfsEntry {
  // MW/plugins/nfs.py:337-342
  if (data.protocols !== undefined && data.protocols.length === 0) {
    throw rpcErrors.validationOne(
      'nfs_update.protocols',
      'Must specify at least one value ("NFSV3", "NFSV4") in the "protocols" list.',
    );
  }
  const old = readNfsConfig(db);
  const next: NfsConfigRecord = { ...old, ...data };
  const errors: ValidationTriple[] = [];
  const add = (field: string, message: string) => errors.push([`nfs_update.${field}`, message, ERRNO.EINVAL]);
  // MW/plugins/nfs.py:371-377: bindip_choices are the static addresses (interface.ip_in_use
  // {'static': True}); the emulator has none, as a fresh install on DHCP has none.
  next.bindip.forEach((ip, i) => add(`bindip.${i}`, `Cannot use ${ip}. Please provide a valid ip address.`));
  // MW/plugins/nfs.py:386-387
  if (!next.protocols.includes('NFSV4') && next.v4_domain) add('v4_domain', 'This option does not apply to NFSv3');
  // MW/plugins/nfs.py:389-395: no RDMA-capable NIC (rdma.capable_protocols is empty).
  if (next.rdma) add('rdma', 'This platform cannot support NFS over RDMA or is missing an RDMA capable NIC.');
  if (errors.length > 0) throw rpcErrors.validation(errors);
  writeNfsConfig(db, next);
  // `return await self.config()` (:406)
  return configEntry(readNfsConfig(db));
}

export const nfsMethods = [
  implement(nfsContract['nfs.config'], ({ appliance: { store } }) => configEntry(readNfsConfig(store.db))),
  implement(nfsContract['nfs.update'], ({ appliance: { store } }, data) =>
    store.write(() => updateConfig(store.db, data)),
  ),
];
