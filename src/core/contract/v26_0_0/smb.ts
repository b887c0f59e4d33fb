import * as z from 'zod';
import { extendAfter, once, roles } from '../method.js';
import { method, service } from '../service.js';
import { smbServiceEntry, smbUpdateArgs } from '../smb.js';

// smb.config / smb.update in 26.0: SmbServiceEntry is SMBEntry (MW/api/v26_0_0/smb.py:156-306):
// `enable_smb1` gives way to `minimum_protocol` (SMB1, SMB2 or SMB3; SMB2 on a fresh install,
// MW/plugins/smb.py:83 at stable/26), and it gains `search_protocols` (SPOTLIGHT, none by default)
// and `stateful_failover` (false). smb.status is new (not served: no SMB server runs).

const minimumProtocol = () => z.enum(['SMB1', 'SMB2', 'SMB3']);
const searchProtocols = () => z.array(z.literal('SPOTLIGHT'));

/**
 * SMBEntry as answered, its fields in the model's order (MW/api/v26_0_0/smb.py:156-306 at
 * TS-26.0.0-BETA.3): `minimum_protocol` after `description`, `search_protocols` after
 * `aapl_extensions`, `stateful_failover` last.
 */
const smbEntry26 = once(() =>
  extendAfter(
    extendAfter(smbServiceEntry().omit({ enable_smb1: true }), 'description', { minimum_protocol: minimumProtocol() }),
    'aapl_extensions',
    { search_protocols: searchProtocols() },
  ).extend({ stateful_failover: z.boolean() }),
);
export type SmbEntry26 = z.input<ReturnType<typeof smbEntry26>>;

/** SMBUpdateArgs: SMBEntry's fields, each optional, `id` Excluded (MW/api/v26_0_0/smb.py:347-348). */
const smbUpdateArgs26 = once(() =>
  smbUpdateArgs().omit({ enable_smb1: true }).extend({
    minimum_protocol: minimumProtocol().optional(),
    search_protocols: searchProtocols().optional(),
    stateful_failover: z.boolean().optional(),
  }),
);
export type SmbUpdate26 = z.output<ReturnType<typeof smbUpdateArgs26>>;

export const smbContract26 = service('smb', {
  config: method({
    summary: 'The SMB server configuration (netbiosname, workgroup, minimum_protocol, …).',
    access: roles('SHARING_SMB_READ'),
    params: () => [],
    result: smbEntry26,
  }),
  update: method({
    summary: 'Change the SMB server configuration {netbiosname, workgroup, minimum_protocol, guest, …}.',
    access: roles('SHARING_SMB_WRITE'),
    // May be left out: every field of SMBUpdateArgs is optional (ForUpdateMetaclass), so 26's
    // single_argument_args gives it a default_factory (stable/26 MW/api/base/model.py:274-286).
    params: () => [{ name: 'smb_update', schema: smbUpdateArgs26(), default: () => ({}), factory: true }],
    result: smbEntry26,
  }),
});
