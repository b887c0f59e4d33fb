import { systemContract } from '../../contract/system.js';
import { LOCKOUT_RULE } from '../session/compose.js';
import { implement } from '../method.js';
import { emulationOf } from '../settings.js';
import { applianceHostId } from '../system/host-id.js';
import { systemInfo } from '../system/info.js';

// The handlers of contract/system.ts: the release this emulator answers as, and `stor.emulation`.

export const systemMethods = [
  // The release it answers as (src/core/releases/, `--emulate`/`--release`): sw_info()'s version
  // and fullname (MW/plugins/system/product.py).
  implement(systemContract['system.version_short'], ({ appliance }) => appliance.release.versionShort),
  implement(systemContract['system.version'], ({ appliance }) => appliance.release.version),
  // `version` is `system.version_short`'s answer (MW/plugins/system/info.py:93).
  implement(systemContract['system.info'], ({ appliance }) => systemInfo(appliance, appliance.release.versionShort)),
  implement(systemContract['system.boot_id'], ({ appliance }) => appliance.boot.id),
  implement(systemContract['system.host_id'], ({ appliance }) => applianceHostId(appliance)),
  // How this emulator was started, so a client can judge what locks users out by what this target
  // does rather than by what a real 25.10.1 would do.
  implement(systemContract['stor.emulation'], ({ appliance }) => ({
    emulator: 'stor' as const,
    release: appliance.release.versionShort,
    settings: { ...appliance.settings },
    emulate: emulationOf(appliance.settings),
    lockout_rule: LOCKOUT_RULE[appliance.settings.roleExpansion],
  })),
];
