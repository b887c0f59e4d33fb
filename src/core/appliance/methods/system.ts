import { systemContract } from '../../contract/system.js';
import { LOCKOUT_RULE } from '../session/compose.js';
import { implement } from '../method.js';
import { emulationOf } from '../settings.js';
import { systemInfo } from '../system/info.js';

// The handlers of contract/system.ts: the release this emulator answers as, and `stor.emulation`.

/** The release this appliance emulates. */
export const EMULATED_RELEASE = '25.10.1';

export const systemMethods = [
  implement(systemContract['system.version_short'], () => EMULATED_RELEASE),
  implement(systemContract['system.version'], () => `TrueNAS-${EMULATED_RELEASE}`),
  // `version` is `system.version_short`'s answer (MW/plugins/system/info.py:93).
  implement(systemContract['system.info'], ({ appliance }) => systemInfo(appliance, EMULATED_RELEASE)),
  implement(systemContract['system.boot_id'], ({ appliance }) => appliance.boot.id),
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
