import * as z from 'zod';
import { AUTHENTICATED, PUBLIC, once } from './method.js';
import { method, service } from './service.js';

/** `stor.emulation`'s answer (stor's own method; a real appliance answers -32601). */
export const emulationInfo = once(() => z.object({
  emulator: z.literal('stor'),
  release: z.string(),
  settings: z.object({
    roleExpansion: z.enum(['terminating', 'as-reported', 'truenas-25.10.1']),
    roleLists: z.enum(['accept', 'reject-overlap']),
    uploadGate: z.enum(['sys-admin', 'role', 'full-admin']),
    sysAdmin: z.enum(['builtin-administrators', 'admin-uids']),
    httpRpc: z.enum(['served', 'refused']),
    keyLogin: z.enum(['plain', 'scram']),
  }),
  /** The `--emulate` preset the settings are, or `custom` when they mix. */
  emulate: z.enum(['truenas-25.10.1', 'as-reported', 'custom']),
  /** The login rule the role expansion follows. */
  lockout_rule: z.enum(['as-reported', 'self-including', 'none']),
}));

export type EmulationInfo = z.output<ReturnType<typeof emulationInfo>>;

export const systemContract = {
  ...service('system', {
    // Both need a login but no role (`authorization_required=False`, MW/plugins/system/product.py:75-80,
    // 109-113; MW/api/base/decorator.py:68).
    version_short: method({ summary: 'The release, e.g. "25.10.1".', access: AUTHENTICATED, params: () => [], result: () => z.string() }),
    version: method({ summary: 'The full version string, e.g. "TrueNAS-25.10.1".', access: AUTHENTICATED, params: () => [], result: () => z.string() }),
  }),
  ...service('stor', {
    emulation: method({
      summary: 'stor only: the behaviours this emulator was started with (role expansion, upload gate).',
      access: PUBLIC,
      params: () => [],
      result: () => emulationInfo(),
    }),
  }),
};
