import { systemContract } from '../../contract/system.js';
import { LOCKOUT_RULE } from '../session/compose.js';
import { implement } from '../method.js';
import { emulationOf } from '../settings.js';

// The handlers of contract/system.ts: the release this emulator answers as, and `stor.emulation`.

/** The release this appliance emulates. */
export const EMULATED_RELEASE = '25.10.1';

export const systemMethods = [
  implement(systemContract['system.version_short'], () => EMULATED_RELEASE),
  implement(systemContract['system.version'], () => `TrueNAS-${EMULATED_RELEASE}`),
  // How this emulator was started, so a client can judge what locks users out by what this target
  // does rather than by what a real 25.10.1 would do.
  implement(systemContract['stor.emulation'], ({ appliance }) => ({
    emulator: 'stor' as const,
    release: EMULATED_RELEASE,
    settings: { ...appliance.settings },
    emulate: emulationOf(appliance.settings),
    lockout_rule: LOCKOUT_RULE[appliance.settings.roleExpansion],
  })),
];
