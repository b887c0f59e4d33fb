import { smbContract, type SmbUpdate } from '../../contract/smb.js';
import { smbContract26, type SmbUpdate26 } from '../../contract/v26_0_0/smb.js';
import { ERRNO, rpcErrors, type ValidationTriple } from '../../errors.js';
import { listSmbShares, readSmbConfigChanges, writeSmbConfigChanges } from '../../store/shares-smb.js';
import { AccountsSnapshot } from '../accounts/accounts.js';
import { implement, type CallContext } from '../method.js';
import { auxParamErrors, smbConfigOf, smbSettingsOf, type SmbSettings } from '../shares/smb.js';

// The handlers of contract/smb.ts: SMBService's config and do_update (MW/plugins/smb.py:87-658).
// The settings are stored; no SMB server is configured or restarted.

function smbOptionsErrors(text: string): ValidationTriple[] {
  const schemaName = 'smb_update.smb_options';
  const errors = auxParamErrors(text, schemaName);
  // `verrors.add_child('smb_update.smb_options', errs)` puts the field's name in front once more (MW/plugins/smb.py:446-451).
  return errors.map(([attr, msg, errno]) => [`${schemaName}.${attr}`, msg, errno]);
}

/**
 * 26.0's own checks of stateful_failover (MW/plugins/smb.py:597-625 at stable/26), before validate_smb.
 * Spotlight search (`search_protocols`) is taken as available.
 */
function statefulFailoverErrors(next: SmbSettings, shares: ReturnType<typeof listSmbShares>): ValidationTriple[] {
  if (!next.stateful_failover) return [];
  const at = 'smb_update.stateful_failover';
  // failover.licensed: the emulator is no HA system.
  const errors: ValidationTriple[] = [
    [at, 'This feature is only available for HA-capable TrueNAS Enterprise servers.', ERRNO.EINVAL],
  ];
  if (next.minimum_protocol === 'SMB1')
    errors.push([at, 'This feature is incompatible with SMB1 support', ERRNO.EINVAL]);
  const invalid = shares.filter((s) => s.purpose === 'LEGACY_SHARE' || s.purpose === 'MULTIPROTOCOL_SHARE');
  if (invalid.length > 0)
    errors.push([
      at,
      `The following SMB shares are incompatible with this feature: ${invalid.map((s) => s.name).join(', ')}`,
      ERRNO.EINVAL,
    ]);
  if (next.smb_options) errors.push([at, 'This feature is incompatible with unsupported smb_options', ERRNO.EINVAL]);
  return errors;
}

/**
 * do_update (MW/plugins/smb.py:549-658; 26.0's at stable/26) up to the stored change. No directory
 * service is emulated, so its checks (:596-621) never apply. 25.10.1's `enable_smb1` is stored as
 * `minimum_protocol` (shares/smb.ts SmbSettings). SMB1 with audited shares is reported on the field
 * each release names it by.
 */
function updateSettings(ctx: CallContext, data: SmbUpdate | SmbUpdate26, release26: boolean): void {
  const { store } = ctx.appliance;
  store.write(() => {
    const accounts = AccountsSnapshot.load(store.db);
    const old = smbSettingsOf(ctx.appliance, accounts);
    const { enable_smb1: smb1, ...given } = Object.fromEntries(
      Object.entries(data).filter(([, v]) => v !== undefined),
    ) as Partial<SmbSettings> & { enable_smb1?: boolean };
    if (smb1 !== undefined)
      given.minimum_protocol = smb1 ? 'SMB1' : old.minimum_protocol === 'SMB1' ? 'SMB2' : old.minimum_protocol;
    const next: SmbSettings = { ...old, ...given };
    const smb1On = next.minimum_protocol === 'SMB1';
    const shares = listSmbShares(store.db);
    const errors: ValidationTriple[] = [];
    // MW/plugins/smb.py:623-629
    if (!ctx.session.isFullAdmin && old.smb_options !== next.smb_options) {
      errors.push([
        'smb_update.smb_options',
        'Changes to auxiliary parameters for the SMB service are restricted to users with full administrative privileges.',
        ERRNO.EINVAL,
      ]);
    }
    if (release26) errors.push(...statefulFailoverErrors(next, shares));
    // validate_smb (MW/plugins/smb.py:444-547), in its order.
    errors.push(...smbOptionsErrors(next.smb_options));
    if (smb1On && next.encryption === 'REQUIRED')
      errors.push([
        'smb_update.encryption',
        'Encryption may not be set to REQUIRED while SMB1 support is enabled.',
        ERRNO.EINVAL,
      ]);
    // MW/plugins/smb.py:465-491: workgroup, netbiosname, netbiosalias in turn.
    if (next.netbiosname.toLowerCase() === next.workgroup.toLowerCase())
      errors.push([
        'smb_update.netbiosname',
        `NetBIOS name [${next.netbiosname}] conflicts with workgroup name.`,
        ERRNO.EINVAL,
      ]);
    next.netbiosalias.forEach((alias, idx) => {
      if (alias.toLowerCase() === next.workgroup.toLowerCase())
        errors.push([
          `smb_update.netbiosalias.${idx}`,
          `NetBIOS alias [${alias}] conflicts with workgroup name.`,
          ERRNO.EINVAL,
        ]);
    });
    // MW/plugins/smb.py:493-500: root is refused, and the account must exist (user.get_user_obj).
    if (next.guest === 'root')
      errors.push(['smb_update.guest', '"root" is not a permitted guest account', ERRNO.EINVAL]);
    else if (!accounts.users.some((u) => u.username === next.guest))
      errors.push(['smb_update.guest', `${next.guest}: user does not exist`, ERRNO.EINVAL]);
    // bindip_choices (MW/plugins/smb.py:250-269): the emulator has no network interfaces of its own.
    next.bindip.forEach((ip, idx) =>
      errors.push([
        `smb_update.bindip.${idx}`,
        `IP address [${ip}] is not a configured address for this server`,
        ERRNO.EINVAL,
      ]),
    );
    if (!next.aapl_extensions) {
      const needs = shares.some(
        (s) =>
          s.options.afp === true ||
          s.options.timemachine === true ||
          s.purpose === 'TIMEMACHINE_SHARE' ||
          s.purpose === 'FCP_SHARE',
      );
      if (needs)
        errors.push([
          'smb_update.aapl_extensions',
          'This option must be enabled when AFP, time machine, or Final Cut Pro shares are present',
          ERRNO.EINVAL,
        ]);
    }
    const audited = shares.filter((s) => s.audit.enable);
    if (smb1On && audited.length > 0)
      errors.push([
        release26 ? 'smb_update.minimum_protocol' : 'smb_update.enable_smb1',
        `The following SMB shares have auditing enabled: ${audited.map((s) => s.name).join(', ')}`,
        ERRNO.EINVAL,
      ]);
    if (errors.length > 0) throw rpcErrors.validation(errors);
    writeSmbConfigChanges(store.db, { ...readSmbConfigChanges(store.db), ...given });
  });
}

export const smbMethods = [
  implement(smbContract['smb.config'], ({ appliance }) => smbConfigOf(appliance)),
  implement(smbContract['smb.update'], (ctx, data) => {
    updateSettings(ctx, data, false);
    return smbConfigOf(ctx.appliance);
  }),
];

/** 26.0's smb.config and smb.update: the same settings as SMBEntry (contract/v26_0_0/smb.ts). */
export const smbMethods26 = [
  implement(smbContract26['smb.config'], ({ appliance }) => smbSettingsOf(appliance)),
  implement(smbContract26['smb.update'], (ctx, data) => {
    updateSettings(ctx, data, true);
    return smbSettingsOf(ctx.appliance);
  }),
];
