import { LOCKOUT_RULE } from './compose.js';
import { AUTHENTICATED, PUBLIC, defineMethod } from './method.js';
import type { ApplianceSettings } from './settings.js';

/** The release this appliance emulates. */
export const EMULATED_RELEASE = '25.10.1';

/**
 * `stor.emulation`'s answer: how this emulator was started, so a client can judge what locks
 * users out by what this target does rather than by what a real 25.10.1 would do. A real
 * appliance has no such method (-32601), which is how a client tells the two apart.
 */
export interface EmulationInfo {
  emulator: 'stor';
  release: string;
  settings: ApplianceSettings;
  /** The login rule the role expansion follows: `as-reported`, `self-including` or `none`. */
  lockout_rule: (typeof LOCKOUT_RULE)[keyof typeof LOCKOUT_RULE];
}

export const systemMethods = [
  // Both need a login but no role (`authorization_required=False`, MW/plugins/system/product.py:75-80,
  // 109-113; MW/api/base/decorator.py:68), whatever facts §0 says.
  defineMethod({
    name: 'system.version_short',
    summary: 'The release, e.g. "25.10.1".',
    access: AUTHENTICATED,
    params: [],
    handler: () => EMULATED_RELEASE,
  }),
  defineMethod({
    name: 'system.version',
    summary: 'The full version string, e.g. "TrueNAS-25.10.1".',
    access: AUTHENTICATED,
    params: [],
    handler: () => `TrueNAS-${EMULATED_RELEASE}`,
  }),
  defineMethod({
    name: 'stor.emulation',
    summary: 'stor only: the behaviours this emulator was started with (role expansion, upload gate).',
    access: PUBLIC,
    params: [],
    handler: ({ appliance }): EmulationInfo => ({
      emulator: 'stor',
      release: EMULATED_RELEASE,
      settings: { ...appliance.settings },
      lockout_rule: LOCKOUT_RULE[appliance.settings.roleExpansion],
    }),
  }),
];
