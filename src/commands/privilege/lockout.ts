/**
 * What locks users out on *this* target (docs/COMMANDS.md "The two 25.10.1 defects, and how stor helps";
 * MW/role.py:354-365). The privilege commands never assume a model: they ask the target.
 * - The emulator says how it was started (`stor.emulation`): its role expansion is `as-reported`
 *   (the seed's reports), `truenas-25.10.1` (the real code) or `terminating` (nothing breaks).
 * - A real appliance has no `stor.emulation` (-32601). Its release (`system.version_short`) and its
 *   own catalogue (`privilege.roles`) decide: on every release stor knows, role expansion is
 *   `MW/role.py` `roles_for_role`, a recursion with no visited set, so a role that includes itself
 *   never terminates and login fails; overlaps and duplicates are only redundancy. A release stor
 *   does not know is judged by the same rule over its own catalogue, and the output says so.
 */
import type { LockoutRule } from '../../core/roles/index.js';
import type { Transport } from '../../core/transport/transport.js';
import { targetEmulation } from '../shared/emulation.js';
import { targetRelease } from '../shared/target-release.js';

export interface LockoutModel {
  rule: LockoutRule;
  /** Short, for sentences: `TrueNAS 25.10.1`, `the emulator (as-reported)`. */
  name: string;
  /** How the model was chosen and what it means, in one sentence. */
  basis: string;
  /** The target's release, when it told it. */
  release: string | null;
  /** True for `stor serve` or the embedded appliance. */
  emulator: boolean;
}

/**
 * Releases whose role expansion stor has checked are the ones `releaseOfVersion` names
 * (src/core/releases/): 25.10.0–25.10.7, whose MW/role.py is 25.10.1's (:354-365 expands with no
 * visited set; PRIVILEGE_WRITE and SYSTEM_PRODUCT_WRITE include themselves, :62, :231), and 26.0
 * from BETA.3 on, which expands the same way (stable/26 MW/role.py:364-379) but whose
 * PRIVILEGE_WRITE includes PRIVILEGE_READ instead (:64); SYSTEM_PRODUCT_WRITE still includes
 * itself (:248). The rule is the same everywhere; each target's own catalogue decides which roles
 * it catches.
 */

/** 26.0.0-BETA.1/2: stor ships no catalogue of theirs (PRIVILEGE_WRITE still includes itself, TS-26.0.0-BETA.2 MW/role.py:64), but their expansion is checked (same recursion). */
const EARLY_26_BETA = /^26\.0\.0-BETA\.[12]$/;

const EMULATOR_RULES: Record<string, { rule: LockoutRule; meaning: string }> = {
  'as-reported': {
    rule: 'as-reported',
    meaning:
      "a role listed with another role that includes it, a duplicate, or a self-including role breaks login, as the seed's reports describe 25.10.1",
  },
  'truenas-25.10.1': {
    rule: 'self-including',
    meaning:
      "only a self-including role breaks login, as the release's own code does (MW/role.py, 25.10 and 26.0 alike); overlaps are redundancy",
  },
  terminating: {
    rule: 'none',
    meaning:
      'role expansion always terminates, so no role list breaks login here (a real 25.10 or 26.0 refuses login through a self-including role)',
  },
};

/** Asks the target which rule its role expansion follows. */
export async function detectLockoutModel(t: Transport): Promise<LockoutModel> {
  const emulation = await targetEmulation(t);
  const expansion = emulation?.settings.roleExpansion;
  if (emulation && expansion !== undefined && EMULATOR_RULES[expansion]) {
    const { rule, meaning } = EMULATOR_RULES[expansion];
    const release = typeof emulation.release === 'string' ? emulation.release : null;
    const of = release !== null ? ` of TrueNAS ${release}` : '';
    // The setting `truenas-25.10.1` is "the release's own code", whichever release it answers as:
    // named after that release (`truenas-26.0`), so a 26 target is not described as 25.10.1.
    const own = emulation.settings.release;
    const label = expansion === 'truenas-25.10.1' && own !== undefined ? `truenas-${own}` : expansion;
    return {
      rule,
      name: `the emulator (${label})`,
      basis: `stor emulator${of}, role expansion ${label}: ${meaning}`,
      release,
      emulator: true,
    };
  }
  const { version: release, release: known } = await targetRelease(t);
  const selfIncluding =
    'a role that includes itself (directly or through others) never finishes expanding and breaks login; overlaps are redundancy';
  if (release !== null && (known !== null || EARLY_26_BETA.test(release))) {
    return {
      rule: 'self-including',
      name: `TrueNAS ${release}`,
      basis: `TrueNAS ${release}, judged by its release and its catalogue: ${selfIncluding}`,
      release,
      emulator: false,
    };
  }
  return {
    rule: 'self-including',
    name: release === null ? 'this appliance' : `release ${release}`,
    basis: `${release === null ? 'the appliance did not tell its release' : `release ${release} is not one stor knows`}; judged by its catalogue alone: ${selfIncluding}`,
    release,
    emulator: false,
  };
}

/** What dropping a self-including role costs, and what keeps most of it. */
export interface SelfIncludingAdvice {
  loses: string;
  keep: string;
}

const KNOWN_COSTS: Record<string, SelfIncludingAdvice> = {
  // MW/plugins/account_/privilege.py: role_prefix PRIVILEGE → create/update/delete need PRIVILEGE_WRITE.
  PRIVILEGE_WRITE: {
    loses: 'privilege editing (privilege.create, privilege.update, privilege.delete)',
    keep: 'list PRIVILEGE_READ to keep reading privileges, and have an administrator who is not bound to this privilege make privilege changes',
  },
  // MW/plugins/system/product.py:180-184: system.license_update needs SYSTEM_PRODUCT_WRITE.
  SYSTEM_PRODUCT_WRITE: {
    loses: 'licence updates (system.license_update)',
    keep: 'list SYSTEM_PRODUCT_READ to keep reading product information, and have a full administrator apply licences',
  },
};

export function selfIncludingAdvice(role: string, has: (name: string) => boolean): SelfIncludingAdvice {
  const known = KNOWN_COSTS[role];
  if (known) return known;
  const read = role.replace(/_(WRITE|DELETE)$/, '_READ');
  return {
    loses: `${role} itself, and every method registered for it`,
    keep:
      read !== role && has(read)
        ? `list ${read} to keep read access, and have a full administrator do the writes`
        : 'have a full administrator do what it allowed',
  };
}
